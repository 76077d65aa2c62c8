import fc from 'fast-check';
import { Packr, pack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { fastJsonIngest } from '../../src/http/routes/ingest/fast-json.js';
import { fastMsgpackIngest } from '../../src/http/routes/ingest/fast-msgpack.js';
import { decodeIngestBody, mapIngestItems, type IngestMapping, type IngestScope } from '../../src/http/routes/ingest/ingest-body.js';

const SCOPES: IngestScope[] = [
  { multi: false, tenant: 't1' },
  { multi: true, ownTenant: 't1', anyTenant: false },
  { multi: true, ownTenant: 't1', anyTenant: true },
];

/** The full decoder's answer, or the code it throws. */
function slow(raw: Buffer, type: string, scope: IngestScope): IngestMapping | string {
  try {
    return mapIngestItems(decodeIngestBody(raw, type), scope);
  } catch (error) {
    return (error as { code: string }).code;
  }
}

/** Mostly clean metrics, with every kind of deviation the fast paths must hand over. */
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
const body = fc.array(metricEntry, { maxLength: 12 });
/** Clean metrics: the fast paths must take every one of these bodies. */
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
const cleanBody = fc.array(cleanEntry, { minLength: 1, maxLength: 20 });

function checkAgreement(raw: Buffer, type: string, fast: (raw: Buffer, scope: IngestScope) => IngestMapping | undefined): number {
  let taken = 0;
  for (const scope of SCOPES) {
    const quick = fast(raw, scope);
    if (quick === undefined) continue;
    taken += 1;
    // Whenever the fast path answers, the full decoder agrees exactly and found nothing to report.
    expect(slow(raw, type, scope)).toEqual(quick);
    expect(Object.is(quick.points[0]?.value, (slow(raw, type, scope) as IngestMapping).points[0]?.value)).toBe(true);
  }
  return taken;
}

describe('fast ingest decoders agree with the full decoder', () => {
  it('JSON: same points whenever the fast path answers; it answers for clean bodies', () => {
    let taken = 0;
    fc.assert(
      fc.property(body, fc.boolean(), (metrics, spaced) => {
        const raw = Buffer.from(spaced ? JSON.stringify(metrics, null, 2) : JSON.stringify(metrics));
        taken += checkAgreement(raw, 'application/json', fastJsonIngest);
      }),
      { numRuns: 500 },
    );
    const clean = Buffer.from(JSON.stringify([{ metricName: 'a.b', metricValue: 1.25e-7, collectionTime: 1_700_000_000_000, ttlInSeconds: 5, unit: 'ms' }]));
    expect(fastJsonIngest(clean, SCOPES[0] as IngestScope)?.points).toEqual([{ tenant: 't1', metric: 'a.b', timestamp: 1_700_000_000_000, value: 1.25e-7, unit: 'ms' }]);
    expect(taken).toBeGreaterThan(0);
  });

  it('both take every clean body and agree with the full decoder', () => {
    fc.assert(
      fc.property(cleanBody, (metrics) => {
        const json = Buffer.from(JSON.stringify(metrics));
        const packed = pack(metrics);
        for (const scope of SCOPES) {
          const quickJson = fastJsonIngest(json, scope);
          const quickPack = fastMsgpackIngest(packed, scope);
          expect(quickJson).toBeDefined();
          expect(quickPack).toBeDefined();
          expect(slow(json, 'application/json', scope)).toEqual(quickJson);
          expect(slow(packed, 'application/x-msgpack', scope)).toEqual(quickPack);
          quickJson?.points.forEach((point, i) => expect(Object.is(point.value, JSON.parse(json.toString())[i].metricValue)).toBe(true));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('JSON: exotic number spellings parse exactly as JSON.parse, malformed ones are refused', () => {
    const numbers = ['0', '-0', '12345678901234567890', '1E3', '1e-7', '-1.5E+300', '0.1', '123456789012345', '9007199254740993', '1e400'];
    for (const text of numbers) {
      const raw = Buffer.from(`[{"metricName":"m","metricValue":${text},"collectionTime":${text}}]`);
      const quick = fastJsonIngest(raw, SCOPES[0] as IngestScope);
      expect(Object.is(quick?.points[0]?.value, JSON.parse(text))).toBe(true);
    }
    for (const text of ['01', '+1', '.5', '1.', '1e', '--1', 'NaN', '0x10']) {
      expect(fastJsonIngest(Buffer.from(`[{"metricName":"m","metricValue":${text},"collectionTime":1}]`), SCOPES[0] as IngestScope)).toBeUndefined();
    }
    for (const text of ['[', '[]', '[{}]', '[{"metricName":"m","metricValue":1,"collectionTime":1}] x', '[{"metricName":"m","metricValue":1,"collectionTime":1},]', '\ufeff[]']) {
      expect(fastJsonIngest(Buffer.from(text), SCOPES[0] as IngestScope)).toBeUndefined();
    }
  });

  it('msgpack: same points whenever the fast path answers, for msgpackr and for 64-bit integer and float32 encodings', () => {
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
      const quick = fastMsgpackIngest(raw, SCOPES[0] as IngestScope);
      expect(quick).toBeDefined();
      expect(slow(raw, 'application/x-msgpack', SCOPES[0] as IngestScope)).toEqual(quick);
    }
    expect(fastMsgpackIngest(Buffer.from([0x91, 0x81]), SCOPES[0] as IngestScope)).toBeUndefined();
  });
});
