// Property tests of column validation: the inline fast path agrees with the rule chain, and the object path maps indexes back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { INGEST_FUTURE_SKEW_MS, STRING_VALUE_LENGTH_MAX } from '../../src/core/limits.js';
import { IngestScratch, validateBatch, validateColumns, type TimeBounds } from '../../src/ingest/validate.js';
import { PointColumnsBuilder } from '../../src/model/point-columns.js';
import type { Point } from '../../src/model/sample.js';
import { Catalog } from '../../src/storage/catalog.js';
import { SeriesRegistry } from '../../src/storage/series-registry.js';

const NOW = Date.UTC(2024, 0, 10, 12);
const bounds: TimeBounds = { oldestMs: NOW - 2 * 86_400_000, newestMs: NOW + INGEST_FUTURE_SKEW_MS };

const opened: { dir: string; catalog: Catalog }[] = [];
function freshRegistry(): SeriesRegistry {
  const dir = mkdtempSync(join(tmpdir(), 'strata-columns-'));
  const catalog = new Catalog(join(dir, 'catalog.sqlite'), 'normal');
  opened.push({ dir, catalog });
  return new SeriesRegistry(catalog);
}
afterEach(() => {
  for (const { dir, catalog } of opened.splice(0)) {
    catalog.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Points whose fields have the right types but may break any value rule, edges included. */
const typedPoint: fc.Arbitrary<Point> = fc.record({
  tenant: fc.constantFrom('t1', 't2', 'bad tenant', ''),
  metric: fc.constantFrom('cpu', 'mem', 'disk.io', '', 'a\nb', 'x'.repeat(300)),
  timestamp: fc.oneof(
    fc.integer({ min: bounds.oldestMs, max: bounds.newestMs }),
    fc.constantFrom(bounds.oldestMs - 1, bounds.newestMs + 1, bounds.oldestMs, bounds.newestMs, NOW + 0.5, 2 ** 53, NaN, Math.floor(NOW / 1000)),
  ),
  value: fc.oneof(
    { weight: 5, arbitrary: fc.double() },
    { weight: 2, arbitrary: fc.string({ maxLength: 4 }) },
    { weight: 1, arbitrary: fc.constant('s'.repeat(STRING_VALUE_LENGTH_MAX + 1)) },
  ),
  unit: fc.constantFrom(undefined, 'ms', 'u'.repeat(100)),
});

function columnsOf(points: readonly Point[]): PointColumnsBuilder {
  const built = new PointColumnsBuilder();
  for (const p of points) built.push(p.tenant, p.metric, p.timestamp, p.value, p.unit);
  return built;
}

/** What a validation decided, without the series ids (they differ between registries). */
function decisions(result: ReturnType<typeof validateColumns>) {
  const { columns, rejected } = result;
  return {
    rejected: rejected.map((r) => [r.index, r.code, r.field, r.message]),
    timestamps: Array.from(columns.timestampsMs),
    values: Array.from(columns.values),
    strings: [...(columns.strings ?? new Map())],
  };
}

describe('validateColumns', () => {
  it('decides the same for series it knows (inline checks) as for new ones (the rule chain)', () => {
    fc.assert(
      fc.property(fc.array(typedPoint, { maxLength: 30 }), (points) => {
        const cold = freshRegistry();
        const coldResult = decisions(validateColumns(columnsOf(points), cold, bounds, new IngestScratch()));
        const warm = freshRegistry();
        // Register every series the batch names that can be registered, so the second pass finds them known.
        validateColumns(columnsOf(points.map((p) => ({ ...p, timestamp: NOW, value: 1 }))), warm, bounds, new IngestScratch());
        warm.persist();
        const warmResult = decisions(validateColumns(columnsOf(points), warm, bounds, new IngestScratch()));
        expect(warmResult).toEqual(coldResult);
      }),
      { numRuns: 200 },
    );
  });

  it('validateBatch refuses wrongly typed points at their index and validates the rest as columns', () => {
    const junk = fc.constantFrom<unknown>(null, 7, 'point', { tenant: 't1', metric: 5, timestamp: NOW, value: 1 }, { tenant: 't1', metric: 'm', timestamp: '1', value: 1 }, { tenant: 't1', metric: 'm', timestamp: NOW, value: true }, { tenant: 't1', metric: 'm', timestamp: NOW, value: 1, unit: null });
    fc.assert(
      fc.property(fc.array(fc.oneof({ weight: 3, arbitrary: typedPoint as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: junk }), { maxLength: 30 }), (items) => {
        const typed = items.flatMap((item, i) => (typeof item === 'object' && item !== null && typeof (item as Point).metric === 'string' && typeof (item as Point).timestamp === 'number' && (typeof (item as Point).value === 'number' || typeof (item as Point).value === 'string') && (item as Point).unit !== null ? [[i, item as Point] as const] : []));
        const viaObjects = validateBatch(items as Point[], freshRegistry(), bounds, new IngestScratch());
        const viaColumns = validateColumns(columnsOf(typed.map(([, p]) => p)), freshRegistry(), bounds, new IngestScratch());
        const indexes = viaObjects.rejected.map((r) => r.index);
        expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
        const typedIndexes = new Set(typed.map(([i]) => i));
        // Every untyped item is refused; the typed ones are refused exactly as the column path refuses them.
        expect(viaObjects.rejected.filter((r) => !typedIndexes.has(r.index)).length).toBe(items.length - typed.length);
        expect(viaObjects.rejected.filter((r) => typedIndexes.has(r.index))).toEqual(viaColumns.rejected.map((r) => ({ ...r, index: (typed[r.index] as readonly [number, Point])[0] })));
        expect(decisions(viaObjects)).toMatchObject({ timestamps: decisions(viaColumns).timestamps, values: decisions(viaColumns).values, strings: decisions(viaColumns).strings });
      }),
      { numRuns: 200 },
    );
  });
});
