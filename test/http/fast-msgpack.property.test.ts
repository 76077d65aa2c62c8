// Property tests: the fast msgpack ingest decoder yields exactly the points of the full decoder.
import fc from 'fast-check';
import { Packr, pack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { fastMsgpackIngest } from '../../src/http/routes/ingest/fast-msgpack.js';
import { pointsOf } from '../../src/model/point-columns.js';
import { decodeIngestBody, mapIngestItems, type IngestMapping, type IngestScope } from '../../src/http/routes/ingest/ingest-body.js';

const SCOPES: IngestScope[] = [
  { multi: false, tenant: 't1' },
  { multi: true, ownTenant: 't1', anyTenant: false },
  { multi: true, ownTenant: 't1', anyTenant: true },
];

/** A mapping with its columns as point objects, for comparisons. */
type Decoded = Omit<IngestMapping, 'columns'> & { points: ReturnType<typeof pointsOf> };

function decoded(mapping: IngestMapping): Decoded;
function decoded(mapping: IngestMapping | undefined): Decoded | undefined;
function decoded(mapping: IngestMapping | undefined): Decoded | undefined {
  if (mapping === undefined) return undefined;
  const { columns, ...rest } = mapping;
  return { ...rest, points: pointsOf(columns) };
}

/** The full decoder's answer, or the code it throws. */
function slow(raw: Buffer, type: string, scope: IngestScope): Decoded | string {
  try {
    return decoded(mapIngestItems(decodeIngestBody(raw, type), scope));
  } catch (error) {
    return (error as { code: string }).code;
  }
}

/** Metrics with every kind of deviation the fast path must hand over. */
const anyValue = fc.oneof(
  { weight: 6, arbitrary: fc.double() },
  { weight: 3, arbitrary: fc.integer({ min: -1e6, max: 1e6 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, 1.5e300, -0) },
);
const metricEntry = fc.record(
  {
    metricName: fc.oneof({ weight: 8, arbitrary: fc.string({ maxLength: 12 }) }, { weight: 1, arbitrary: fc.constantFrom('a"b', 'a\\b', 'é€😀', 'x\u0001', '', 5, null) }),
    metricValue: anyValue,
    collectionTime: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: -1e13, max: 1e13 }) }, { weight: 1, arbitrary: anyValue }),
    ttlInSeconds: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 1, max: 2_147_483_647 }) }, { weight: 1, arbitrary: anyValue }),
    unit: fc.oneof({ weight: 4, arbitrary: fc.string({ maxLength: 5 }) }, { weight: 1, arbitrary: anyValue }),
    tenantId: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('t1', 't2') }, { weight: 1, arbitrary: anyValue }),
    other: anyValue,
  },
  { requiredKeys: [] },
);
/** Clean metrics: the fast path must take every one of these bodies. */
const cleanEntry = fc.record(
  {
    metricName: fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !/["\\\u0000-\u001f]/.test(s)),
    metricValue: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.string({ maxLength: 6 }).filter((s) => !/["\\\u0000-\u001f]/.test(s))),
    collectionTime: fc.integer({ min: 0, max: 4_102_444_800_000 }),
    ttlInSeconds: fc.integer({ min: 1, max: 2_147_483_647 }),
    unit: fc.constantFrom('ms', 'percent', 'bytes'),
    tenantId: fc.constant('t1'),
  },
  { requiredKeys: ['metricName', 'metricValue', 'collectionTime', 'tenantId'] },
);
/** Mostly clean bodies with some deviating metrics mixed in. */
const body = fc.array(fc.oneof({ weight: 6, arbitrary: cleanEntry }, { weight: 1, arbitrary: metricEntry }), { maxLength: 12 });
const cleanBody = fc.array(cleanEntry, { minLength: 1, maxLength: 20 });

function checkAgreement(raw: Buffer, type: string, fast: (raw: Buffer, scope: IngestScope) => IngestMapping | undefined): number {
  let taken = 0;
  for (const scope of SCOPES) {
    const quick = decoded(fast(raw, scope));
    if (quick === undefined) continue;
    taken += 1;
    // Whenever the fast path answers, the full decoder agrees exactly and found nothing to report.
    expect(slow(raw, type, scope)).toEqual(quick);
    expect(Object.is(quick.points[0]?.value, (slow(raw, type, scope) as Decoded).points[0]?.value)).toBe(true);
  }
  return taken;
}

describe('the fast msgpack decoder agrees with the full decoder', () => {
  it('takes every clean body and agrees with the full decoder', () => {
    fc.assert(
      fc.property(cleanBody, (metrics) => {
        const packed = pack(metrics);
        for (const scope of SCOPES) {
          const quick = decoded(fastMsgpackIngest(packed, scope));
          expect(quick).toBeDefined();
          const full = slow(packed, 'application/x-msgpack', scope) as Decoded;
          expect(full).toEqual(quick);
          // toEqual does not tell 0 from -0; the values must be the very same numbers.
          quick?.points.forEach((point, i) => expect(Object.is(point.value, full.points[i]?.value)).toBe(true));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same points whenever it answers, for msgpackr, float32, 64-bit integer and truncated encodings', () => {
    let taken = 0;
    const float32 = new Packr({ useFloat32: 1 });
    fc.assert(
      fc.property(body, fc.boolean(), (metrics, useFloat32) => {
        const raw = useFloat32 ? float32.pack(metrics) : pack(metrics);
        taken += checkAgreement(raw, 'application/x-msgpack', fastMsgpackIngest);
      }),
      { numRuns: 500 },
    );
    expect(taken).toBeGreaterThan(0);
    // uint64 and int64 times, as msgpack libraries of other languages write them.
    const head = Buffer.from([0x91, 0x83, 0xaa, ...Buffer.from('metricName'), 0xa1, 0x6d, 0xab, ...Buffer.from('metricValue'), 0x01, 0xae, ...Buffer.from('collectionTime')]);
    for (const [type, bytes] of [
      [0xcf, [0, 0, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00]],
      [0xd3, [0xff, 0xff, 0xfe, 0x74, 0x30, 0xb0, 0xa8, 0x00]],
    ] as const) {
      const raw = Buffer.concat([head, Buffer.from([type, ...bytes])]);
      const quick = decoded(fastMsgpackIngest(raw, SCOPES[0] as IngestScope));
      expect(quick).toBeDefined();
      expect(slow(raw, 'application/x-msgpack', SCOPES[0] as IngestScope)).toEqual(quick);
    }
    expect(fastMsgpackIngest(Buffer.from([0x91, 0x81]), SCOPES[0] as IngestScope)).toBeUndefined();
    const whole = pack([{ metricName: 'm', metricValue: 1.5, collectionTime: 1_700_000_000_000 }]);
    for (let cut = 1; cut < whole.length; cut++) expect(fastMsgpackIngest(whole.subarray(0, cut), SCOPES[0] as IngestScope)).toBeUndefined();
  });

  it('tells keys apart by every byte, not by their length', () => {
    // Each near miss has the length of a real key; the full decoder ignores it, so the fast one must not take it.
    for (const key of ['metricNamf', 'MetricName', 'metricValuf', 'xetricValue', 'collectionTimf', 'collectionXime', 'ttlInSecondz', 'unis', 'tenantIe']) {
      const raw = pack([{ metricName: 'm', metricValue: 1.5, collectionTime: 1_700_000_000_000, tenantId: 't1', [key]: 'x' }]);
      for (const scope of SCOPES) expect(fastMsgpackIngest(raw, scope)).toBeUndefined();
    }
  });
});
