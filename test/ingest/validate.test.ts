// Owns the unit tests of batch validation: every rejection code with its field, the seconds hint, order and string keys.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../src/core/errors.js';
import { ERROR_CODES } from '../../src/core/errors.js';
import { INGEST_FUTURE_SKEW_MS, METRIC_NAME_LENGTH_MAX, STRING_VALUE_LENGTH_MAX, TENANT_LENGTH_MAX, UNIT_LENGTH_MAX } from '../../src/core/limits.js';
import { IngestScratch, validateBatch, type TimeBounds } from '../../src/ingest/validate.js';
import type { Point } from '../../src/model/sample.js';
import { Catalog } from '../../src/storage/catalog.js';
import { SeriesRegistry } from '../../src/storage/series-registry.js';

const NOW = Date.UTC(2024, 0, 10, 12);
const DAY_MS = 86_400_000;
const bounds: TimeBounds = { oldestMs: NOW - 2 * DAY_MS, newestMs: NOW + INGEST_FUTURE_SKEW_MS };

let dir: string;
let catalog: Catalog;
let registry: SeriesRegistry;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-validate-'));
  catalog = new Catalog(join(dir, 'catalog.sqlite'), 'normal');
  registry = new SeriesRegistry(catalog);
});
afterEach(() => {
  catalog.close();
  rmSync(dir, { recursive: true, force: true });
});

const good = (fields: Record<string, unknown> = {}): Point => ({ tenant: 't1', metric: 'cpu', timestamp: NOW, value: 1, ...fields }) as unknown as Point;

function validate(points: readonly unknown[], scratch = new IngestScratch()) {
  return validateBatch(points as Point[], registry, bounds, scratch);
}

/** The one rejection of a single-point batch. */
function rejectionOf(point: unknown): { code: string; field: string; message: string; index: number } {
  const { columns, rejected } = validate([point]);
  expect(columns.length).toBe(0);
  expect(rejected).toHaveLength(1);
  return rejected[0]!;
}

describe('rejections, one code and field each', () => {
  const cases: readonly { name: string; point: unknown; code: ErrorCode; field: string }[] = [
    { name: 'null point', point: null, code: 'INGEST_POINT_MALFORMED', field: 'point' },
    { name: 'number point', point: 42, code: 'INGEST_POINT_MALFORMED', field: 'point' },
    { name: 'string point', point: 'cpu 1', code: 'INGEST_POINT_MALFORMED', field: 'point' },
    { name: 'missing tenant', point: { metric: 'cpu', timestamp: NOW, value: 1 }, code: 'INGEST_TENANT_INVALID', field: 'tenant' },
    { name: 'empty tenant', point: good({ tenant: '' }), code: 'INGEST_TENANT_INVALID', field: 'tenant' },
    { name: 'tenant with a space', point: good({ tenant: 'a b' }), code: 'INGEST_TENANT_INVALID', field: 'tenant' },
    { name: 'tenant with a slash', point: good({ tenant: 'a/b' }), code: 'INGEST_TENANT_INVALID', field: 'tenant' },
    { name: 'numeric tenant', point: good({ tenant: 5 }), code: 'INGEST_TENANT_INVALID', field: 'tenant' },
    { name: 'over-long tenant', point: good({ tenant: 't'.repeat(TENANT_LENGTH_MAX + 1) }), code: 'INGEST_TENANT_INVALID', field: 'tenant' },
    { name: 'empty metric', point: good({ metric: '' }), code: 'INGEST_METRIC_NAME_EMPTY', field: 'metric' },
    { name: 'over-long metric', point: good({ metric: 'm'.repeat(METRIC_NAME_LENGTH_MAX + 1) }), code: 'INGEST_METRIC_NAME_TOO_LONG', field: 'metric' },
    { name: 'metric with a newline', point: good({ metric: 'cpu\nload' }), code: 'INGEST_METRIC_NAME_INVALID', field: 'metric' },
    { name: 'metric with NUL', point: good({ metric: 'cpu\u0000load' }), code: 'INGEST_METRIC_NAME_INVALID', field: 'metric' },
    { name: 'metric with DEL', point: good({ metric: 'cpu\u007f' }), code: 'INGEST_METRIC_NAME_INVALID', field: 'metric' },
    { name: 'metric with a lone high surrogate', point: good({ metric: 'cpu\ud83d' }), code: 'INGEST_METRIC_NAME_INVALID', field: 'metric' },
    { name: 'metric with a lone low surrogate', point: good({ metric: '\ude00cpu' }), code: 'INGEST_METRIC_NAME_INVALID', field: 'metric' },
    { name: 'numeric metric', point: good({ metric: 7 }), code: 'INGEST_METRIC_NAME_INVALID', field: 'metric' },
    { name: 'missing metric', point: { tenant: 't1', timestamp: NOW, value: 1 }, code: 'INGEST_METRIC_NAME_INVALID', field: 'metric' },
    { name: 'NaN value', point: good({ value: NaN }), code: 'INGEST_VALUE_NOT_FINITE', field: 'value' },
    { name: 'Infinity value', point: good({ value: Infinity }), code: 'INGEST_VALUE_NOT_FINITE', field: 'value' },
    { name: '-Infinity value', point: good({ value: -Infinity }), code: 'INGEST_VALUE_NOT_FINITE', field: 'value' },
    { name: 'boolean value', point: good({ value: true }), code: 'INGEST_VALUE_INVALID', field: 'value' },
    { name: 'null value', point: good({ value: null }), code: 'INGEST_VALUE_INVALID', field: 'value' },
    { name: 'missing value', point: { tenant: 't1', metric: 'cpu', timestamp: NOW }, code: 'INGEST_VALUE_INVALID', field: 'value' },
    { name: 'object value', point: good({ value: { n: 1 } }), code: 'INGEST_VALUE_INVALID', field: 'value' },
    { name: 'bigint value', point: good({ value: 1n }), code: 'INGEST_VALUE_INVALID', field: 'value' },
    { name: 'over-long string value', point: good({ value: 's'.repeat(STRING_VALUE_LENGTH_MAX + 1) }), code: 'INGEST_VALUE_INVALID', field: 'value' },
    { name: 'fractional timestamp', point: good({ timestamp: NOW + 0.5 }), code: 'INGEST_TIMESTAMP_INVALID', field: 'timestamp' },
    { name: 'string timestamp', point: good({ timestamp: String(NOW) }), code: 'INGEST_TIMESTAMP_INVALID', field: 'timestamp' },
    { name: 'missing timestamp', point: { tenant: 't1', metric: 'cpu', value: 1 }, code: 'INGEST_TIMESTAMP_INVALID', field: 'timestamp' },
    { name: 'unsafe timestamp', point: good({ timestamp: 2 ** 53 }), code: 'INGEST_TIMESTAMP_INVALID', field: 'timestamp' },
    { name: 'NaN timestamp', point: good({ timestamp: NaN }), code: 'INGEST_TIMESTAMP_INVALID', field: 'timestamp' },
    { name: 'timestamp too old', point: good({ timestamp: bounds.oldestMs - 1 }), code: 'INGEST_TIMESTAMP_TOO_OLD', field: 'timestamp' },
    { name: 'timestamp zero', point: good({ timestamp: 0 }), code: 'INGEST_TIMESTAMP_TOO_OLD', field: 'timestamp' },
    { name: 'timestamp too far ahead', point: good({ timestamp: bounds.newestMs + 1 }), code: 'INGEST_TIMESTAMP_IN_FUTURE', field: 'timestamp' },
    { name: 'numeric unit', point: good({ unit: 5 }), code: 'INGEST_UNIT_INVALID', field: 'unit' },
    { name: 'null unit', point: good({ unit: null }), code: 'INGEST_UNIT_INVALID', field: 'unit' },
    { name: 'over-long unit', point: good({ unit: 'u'.repeat(UNIT_LENGTH_MAX + 1) }), code: 'INGEST_UNIT_INVALID', field: 'unit' },
  ];

  it.each(cases)('$name → $code on $field', ({ point, code, field }) => {
    const r = rejectionOf(point);
    expect(r).toMatchObject({ index: 0, code, field });
    expect(r.message.length).toBeGreaterThan(0);
    expect(ERROR_CODES[code].kind).toBe('invalid');
  });

  it('rejects a point without a tenant wherever it stands in the batch', () => {
    const noTenant = { metric: 'cpu', timestamp: NOW, value: 1 };
    for (const points of [[noTenant, good()], [good(), noTenant], [noTenant, noTenant]]) {
      const { columns, rejected } = validate(points);
      expect(rejected.filter((r) => r.code === 'INGEST_TENANT_INVALID').map((r) => r.index)).toEqual(
        points.flatMap((p, i) => (p === noTenant ? [i] : [])),
      );
      expect(columns.length).toBe(points.filter((p) => p !== noTenant).length);
    }
    expect(registry.lookup(undefined as unknown as string, 'cpu')).toBeUndefined();
  });

  it('accepts the edges of every limit', () => {
    const points = [
      good({ tenant: 't'.repeat(TENANT_LENGTH_MAX) }),
      good({ tenant: 'A-z_0.9' }),
      good({ metric: 'm'.repeat(METRIC_NAME_LENGTH_MAX) }),
      good({ metric: 'ünï.cødé metric/with spaces' }),
      good({ value: 's'.repeat(STRING_VALUE_LENGTH_MAX) }),
      good({ value: '' }),
      good({ value: -0 }),
      good({ value: Number.MAX_VALUE }),
      good({ timestamp: bounds.oldestMs }),
      good({ timestamp: bounds.newestMs }),
      good({ unit: 'u'.repeat(UNIT_LENGTH_MAX) }),
      good({ unit: '' }),
    ];
    const { columns, rejected } = validate(points);
    expect(rejected).toEqual([]);
    expect(columns.length).toBe(points.length);
  });

  it('states the limit or the bad value in messages', () => {
    expect(rejectionOf(good({ timestamp: bounds.newestMs + 1 })).message).toContain(`${INGEST_FUTURE_SKEW_MS} ms in the future`);
    expect(rejectionOf(good({ timestamp: 1.5 })).message).toContain('1.5');
    expect(rejectionOf(good({ metric: 'm'.repeat(METRIC_NAME_LENGTH_MAX + 1) })).message).toContain(String(METRIC_NAME_LENGTH_MAX));
    expect(rejectionOf(good({ timestamp: bounds.oldestMs - 1 })).message).toContain(new Date(bounds.oldestMs).toISOString());
  });
});

describe('the seconds hint', () => {
  it('says a timestamp in seconds looks like seconds', () => {
    const r = rejectionOf(good({ timestamp: Math.floor(NOW / 1000) }));
    expect(r.code).toBe('INGEST_TIMESTAMP_TOO_OLD');
    expect(r.message).toMatch(/looks like seconds/);
  });

  it('gives no hint for a millisecond timestamp that is merely too old, nor for small numbers', () => {
    expect(rejectionOf(good({ timestamp: bounds.oldestMs - 1 })).message).not.toMatch(/seconds/);
    expect(rejectionOf(good({ timestamp: 12_345 })).message).not.toMatch(/looks like seconds/);
  });
});

describe('accepted points', () => {
  it('keep batch order, with rejections indexed by batch position', () => {
    const points = [
      good({ metric: 'a', value: 1, timestamp: NOW - 3 }),
      good({ value: NaN }),
      good({ metric: 'b', value: 'up', timestamp: NOW - 1 }),
      null,
      good({ metric: 'a', value: 2, timestamp: NOW - 5 }),
      good({ tenant: 't2', metric: 'a', value: 'down', timestamp: NOW - 2 }),
      good({ tenant: '!' }),
      good({ metric: 'c', value: 3.5, timestamp: NOW }),
    ];
    const { columns, rejected } = validate(points);
    expect(rejected.map((r) => [r.index, r.code])).toEqual([
      [1, 'INGEST_VALUE_NOT_FINITE'],
      [3, 'INGEST_POINT_MALFORMED'],
      [6, 'INGEST_TENANT_INVALID'],
    ]);
    expect(columns.length).toBe(5);
    expect(Array.from(columns.timestampsMs)).toEqual([NOW - 3, NOW - 1, NOW - 5, NOW - 2, NOW]);
    const ids = Array.from(columns.seriesIds);
    expect(ids[0]).toBe(ids[2]);
    expect(new Set(ids).size).toBe(4);
    expect(registry.lookup('t1', 'a')).toBe(ids[0]);
    expect(registry.lookup('t1', 'b')).toBe(ids[1]);
    expect(registry.lookup('t2', 'a')).toBe(ids[3]);
    expect(registry.lookup('t1', 'c')).toBe(ids[4]);
    const values = Array.from(columns.values);
    expect(values[0]).toBe(1);
    expect(values[1]).toBeNaN();
    expect(values[2]).toBe(2);
    expect(values[3]).toBeNaN();
    expect(values[4]).toBe(3.5);
  });

  it('key strings by accepted index, not batch index', () => {
    const points = [good({ value: NaN }), good({ value: 'first' }), good({ timestamp: 1.5 }), good({ value: 4 }), good({ value: 'second' })];
    const { columns } = validate(points);
    expect(columns.length).toBe(3);
    expect([...(columns.strings ?? new Map())]).toEqual([
      [0, 'first'],
      [2, 'second'],
    ]);
  });

  it('have no string map when the batch has no strings', () => {
    expect(validate([good(), good({ value: 2 })]).columns.strings).toBeNull();
  });

  it('check a tenant again after an invalid one, and a known series skips nothing that matters', () => {
    const first = validate([good()]);
    expect(first.rejected).toEqual([]);
    registry.persist();
    // Now t1/cpu is known; its points must still have their timestamp, value and unit checked.
    const { columns, rejected } = validate([good(), good({ tenant: 'bad tenant' }), good({ tenant: 'bad tenant' }), good({ value: Infinity }), good({ timestamp: 0 }), good({ unit: 9 })]);
    expect(columns.length).toBe(1);
    expect(rejected.map((r) => [r.index, r.code])).toEqual([
      [1, 'INGEST_TENANT_INVALID'],
      [2, 'INGEST_TENANT_INVALID'],
      [3, 'INGEST_VALUE_NOT_FINITE'],
      [4, 'INGEST_TIMESTAMP_TOO_OLD'],
      [5, 'INGEST_UNIT_INVALID'],
    ]);
  });

  it('reuse the scratch: a second, smaller batch is not polluted by the first', () => {
    const scratch = new IngestScratch();
    validate(Array.from({ length: 50 }, (_, i) => good({ metric: `m${i}`, value: i })), scratch);
    const { columns } = validate([good({ metric: 'x', value: 'only' })], scratch);
    expect(columns.length).toBe(1);
    expect(columns.seriesIds.length).toBe(1);
    expect(columns.timestampsMs.length).toBe(1);
    expect([...(columns.strings ?? new Map())]).toEqual([[0, 'only']]);
  });

  it('reject nothing and accept nothing for an empty batch', () => {
    const { columns, rejected } = validate([]);
    expect(columns.length).toBe(0);
    expect(rejected).toEqual([]);
  });

  it('keep a series’ unit when points repeat it, and record a new one when it changes', () => {
    const first = validate([good({ metric: 'lat', unit: 'ms' })]);
    registry.persist();
    const id = first.columns.seriesIds[0] as number;
    const again = validate([good({ metric: 'lat', unit: 'ms', value: 2 }), good({ metric: 'lat', unit: 'ms', value: 3, timestamp: NOW - 1 })]);
    expect(again.rejected).toEqual([]);
    expect(Array.from(again.columns.seriesIds)).toEqual([id, id]);
    expect(registry.row(id)?.unit).toBe('ms');
    validate([good({ metric: 'lat', unit: 's', value: 4 })]);
    expect(registry.row(id)?.unit).toBe('s');
    // A repeated unit still obeys the unit rules when it is new to the series.
    expect(rejectionOf(good({ metric: 'lat', unit: 'u'.repeat(UNIT_LENGTH_MAX + 1) })).code).toBe('INGEST_UNIT_INVALID');
  });

  it('record a unit with the series', () => {
    const { columns } = validate([good({ metric: 'mem', unit: 'bytes' })]);
    expect(registry.row(columns.seriesIds[0] as number)?.unit).toBe('bytes');
  });
});
