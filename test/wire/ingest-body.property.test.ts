// Owns the property tests of the full ingest decoder: mapping bodies (Blueflood metrics) onto points and per-metric errors.
import fc from 'fast-check';
import { pack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { pointsOf } from '../../src/model/point-columns.js';
import { decodeIngestBody, mapIngestItems, storeRejectionEntries } from '../../src/wire/ingest-body.js';

const goodMetric = fc.record({
  metricName: fc.string({ minLength: 1, maxLength: 20 }),
  metricValue: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: 10 })),
  collectionTime: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  ttlInSeconds: fc.integer({ min: 1, max: 2_147_483_647 }),
  unit: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
});
const badMetric = fc.oneof(
  fc.constant(42),
  fc.constant('text'),
  fc.constant([1, 2]),
  goodMetric.map((m) => ({ ...m, metricName: 7 })),
  goodMetric.map((m) => ({ ...m, metricValue: true })),
  goodMetric.map((m) => ({ ...m, collectionTime: '2020-01-01' })),
  goodMetric.map((m) => ({ ...m, ttlInSeconds: 0 })),
  goodMetric.map((m) => ({ ...m, ttlInSeconds: 1.5 })),
  goodMetric.map((m) => ({ ...m, unit: 5 })),
);

describe('mapIngestItems', () => {
  it('maps every good metric to one point, in order, and refuses every bad one with its body index', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), goodMetric, badMetric), { maxLength: 40 }), (rows) => {
        const items = rows.map(([good, g, b]) => (good ? g : b));
        const mapping = mapIngestItems(items, { multi: false, tenant: 't1' });
        const goodIndexes = rows.flatMap(([good], i) => (good ? [i] : []));
        const badIndexes = rows.flatMap(([good], i) => (good ? [] : [i]));
        const points = pointsOf(mapping.columns);
        expect(points).toHaveLength(goodIndexes.length);
        expect(mapping.errors.map((e) => e.index)).toEqual(badIndexes);
        expect(mapping.errors.every((e) => typeof e.code === 'string' && e.code.length > 0)).toBe(true);
        const positions = mapping.positions ?? points.map((_, i) => i);
        expect(positions).toEqual(goodIndexes);
        points.forEach((point, i) => {
          const source = items[positions[i] as number] as { metricName: string; metricValue: unknown; collectionTime: number; unit?: string };
          expect(point).toEqual({ tenant: 't1', metric: source.metricName, timestamp: source.collectionTime, value: source.metricValue, unit: source.unit });
        });
      }),
    );
  });

  it('reports store rejections at their body index, past refused and skipped metrics', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('good', 'bad', 'null'), goodMetric), { minLength: 1, maxLength: 30 }), (rows) => {
        const items = rows.map(([kind, m]) => (kind === 'good' ? m : kind === 'null' ? { ...m, metricValue: null } : { ...m, metricName: 1 }));
        const mapping = mapIngestItems(items, { multi: false, tenant: 't' });
        const rejected = pointsOf(mapping.columns).map((_, index) => ({ index, code: 'X', message: 'x', field: 'value' }));
        const entries = storeRejectionEntries(rejected, mapping);
        expect(entries.map((e) => e.index)).toEqual(rows.flatMap(([kind], i) => (kind === 'good' ? [i] : [])));
        expect(entries.every((e) => e.source === 'metricValue')).toBe(true);
        expect(mapping.skipped).toBe(rows.filter(([kind]) => kind === 'null').length);
      }),
    );
  });

  it('multi: takes each tenantId, refuses missing ones, and other tenants unless allowed', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(goodMetric, fc.constantFrom('own', 'other', undefined)), { maxLength: 20 }), fc.boolean(), (rows, anyTenant) => {
        const items = rows.map(([m, t]) => (t === undefined ? m : { ...m, tenantId: t }));
        const mapping = mapIngestItems(items, { multi: true, ownTenant: 'own', anyTenant });
        const ok = rows.filter(([, t]) => t === 'own' || (anyTenant && t === 'other'));
        expect(pointsOf(mapping.columns).map((p) => p.tenant)).toEqual(ok.map(([, t]) => t));
        for (const error of mapping.errors) expect(['INGEST_TENANT_INVALID', 'AUTH_TENANT_FORBIDDEN']).toContain(error.code);
      }),
    );
  });
});

describe('decodeIngestBody', () => {
  it('decodes JSON and msgpack to the same array', () => {
    fc.assert(
      fc.property(fc.array(goodMetric, { maxLength: 10 }), (metrics) => {
        const clean = JSON.parse(JSON.stringify(metrics));
        expect(decodeIngestBody(Buffer.from(JSON.stringify(clean)), 'json')).toEqual(clean);
        expect(decodeIngestBody(pack(clean), 'msgpack')).toEqual(clean);
      }),
    );
  });

  it('refuses empty, unparsable and non-array bodies with HTTP_BODY_INVALID', () => {
    for (const [raw, type] of [[Buffer.alloc(0), 'json'], [Buffer.from('{'), 'json'], [Buffer.from('{}'), 'json'], [pack({ a: 1 }), 'msgpack']] as const) {
      expect(() => decodeIngestBody(raw, type)).toThrowError(expect.objectContaining({ code: 'HTTP_BODY_INVALID' }));
    }
  });
});
