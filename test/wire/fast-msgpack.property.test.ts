// Owns the property tests of the fast msgpack ingest decoder: it yields exactly the points of the full decoder.
import fc from 'fast-check';
import { Packr, pack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { fastMsgpackIngest } from '../../src/wire/fast-msgpack.js';
import type { IngestScope } from '../../src/wire/ingest-mapping.js';
import { body, checkAgreement, cleanBody, decoded, SCOPES, slow, type Decoded } from './ingest-fixtures.js';

describe('the fast msgpack decoder agrees with the full decoder', () => {
  it('takes every clean body and agrees with the full decoder', () => {
    fc.assert(
      fc.property(cleanBody, (metrics) => {
        const packed = pack(metrics);
        for (const scope of SCOPES) {
          const quick = decoded(fastMsgpackIngest(packed, scope));
          expect(quick).toBeDefined();
          const full = slow(packed, 'msgpack', scope) as Decoded;
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
        taken += checkAgreement(raw, 'msgpack', fastMsgpackIngest);
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
      expect(slow(raw, 'msgpack', SCOPES[0] as IngestScope)).toEqual(quick);
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
