import fc from 'fast-check';
import { pack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { decodeTask } from '../../src/http/routes/ingest/decode-worker.js';
import { fastJsonIngest } from '../../src/http/routes/ingest/fast-json.js';
import { PointArraySink } from '../../src/http/routes/ingest/fast-fields.js';
import { ColumnSink, pointsOf } from '../../src/http/routes/ingest/point-columns.js';

const point = fc.record({
  tenant: fc.constantFrom('t1', 't2', 'tenant-3'),
  metric: fc.string({ maxLength: 8 }),
  timestamp: fc.integer({ min: -1e13, max: 1e13 }),
  value: fc.oneof(fc.double({ noNaN: true }), fc.string({ maxLength: 5 })),
  unit: fc.option(fc.constantFrom('ms', 'bytes', ''), { nil: undefined }),
});

describe('point columns', () => {
  it('round-trip any points exactly, in order', () => {
    fc.assert(
      fc.property(fc.array(point, { maxLength: 3000 }), (points) => {
        const columns = new ColumnSink();
        const array = new PointArraySink();
        for (const p of points) {
          columns.add(p.tenant, p.metric, p.timestamp, p.value, p.unit);
          array.add(p.tenant, p.metric, p.timestamp, p.value, p.unit);
        }
        const back = pointsOf(columns.columns());
        expect(back).toEqual(array.points);
        back.forEach((p, i) => expect(Object.is(p.value, array.points[i]?.value)).toBe(true));
      }),
      { numRuns: 50 },
    );
  });

  it('a decode task returns columns for clean bodies and the body itself otherwise', () => {
    const metrics = Array.from({ length: 50 }, (_, i) => ({ metricName: `m${i % 7}`, metricValue: i % 3 === 0 ? `s${i}` : i / 3, collectionTime: 1_700_000_000_000 + i, unit: 'ms' }));
    const scope = { multi: false, tenant: 't1' } as const;
    const expected = fastJsonIngest(Buffer.from(JSON.stringify(metrics)), scope)?.points;
    for (const [body, msgpack] of [[Buffer.from(JSON.stringify(metrics)), false], [pack(metrics), true]] as const) {
      const outcome = decodeTask({ body, msgpack, scope });
      expect(outcome.ok).toBe(true);
      if (outcome.ok) expect(pointsOf(outcome.columns)).toEqual(expected);
    }
    const bad = Buffer.from(JSON.stringify([...metrics, { metricName: 'x' }]));
    const outcome = decodeTask({ body: bad, msgpack: false, scope });
    expect(outcome).toEqual({ ok: false, body: bad });
  });
});
