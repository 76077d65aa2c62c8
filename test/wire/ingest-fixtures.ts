// Owns the fixtures the fast ingest decoders' property tests share: scopes, metric arbitraries and the agreement check.
import fc from 'fast-check';
import { expect } from 'vitest';
import { pointsOf } from '../../src/model/point-columns.js';
import { decodeIngestBody, mapIngestItems } from '../../src/wire/ingest-body.js';
import type { IngestFormat, IngestMapping, IngestScope } from '../../src/wire/ingest-mapping.js';

/** The three kinds of scope: one tenant, multi for own tenant only, multi for any tenant. */
export const SCOPES: IngestScope[] = [
  { multi: false, tenant: 't1' },
  { multi: true, ownTenant: 't1', anyTenant: false },
  { multi: true, ownTenant: 't1', anyTenant: true },
];

/** A mapping with its columns as point objects, for comparisons. */
export type Decoded = Omit<IngestMapping, 'columns'> & { points: ReturnType<typeof pointsOf> };

/** A mapping with its columns copied out as point objects (undefined stays undefined). */
export function decoded(mapping: IngestMapping): Decoded;
export function decoded(mapping: IngestMapping | undefined): Decoded | undefined;
export function decoded(mapping: IngestMapping | undefined): Decoded | undefined {
  if (mapping === undefined) return undefined;
  const { columns, ...rest } = mapping;
  return { ...rest, points: pointsOf(columns) };
}

/** The full decoder's answer, or the code it throws. */
export function slow(raw: Buffer, format: IngestFormat, scope: IngestScope): Decoded | string {
  try {
    return decoded(mapIngestItems(decodeIngestBody(raw, format), scope));
  } catch (error) {
    return (error as { code: string }).code;
  }
}

/** Any field value: doubles, integers, short strings, and the odd null, boolean, array, object or extreme number. */
export const anyValue = fc.oneof(
  { weight: 6, arbitrary: fc.double() },
  { weight: 3, arbitrary: fc.integer({ min: -1e6, max: 1e6 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, 1.5e300, -0) },
);
/** Metrics with every kind of deviation the fast path must hand over: any field missing or of any kind, an unknown key. */
export const metricEntry = fc.record(
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
export const cleanEntry = fc.record(
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
export const body = fc.array(fc.oneof({ weight: 6, arbitrary: cleanEntry }, { weight: 1, arbitrary: metricEntry }), { maxLength: 12 });
/** A body of 1 to 20 clean metrics. */
export const cleanBody = fc.array(cleanEntry, { minLength: 1, maxLength: 20 });

/**
 * Checks, in every scope, that whenever the fast decoder takes a body the full decoder gives the
 * very same mapping; returns in how many scopes the fast decoder took it.
 */
export function checkAgreement(raw: Buffer, format: IngestFormat, fast: (raw: Buffer, scope: IngestScope) => IngestMapping | undefined): number {
  let taken = 0;
  for (const scope of SCOPES) {
    const quick = decoded(fast(raw, scope));
    if (quick === undefined) continue;
    taken += 1;
    // Whenever the fast path answers, the full decoder agrees exactly and found nothing to report.
    expect(slow(raw, format, scope)).toEqual(quick);
    expect(Object.is(quick.points[0]?.value, (slow(raw, format, scope) as Decoded).points[0]?.value)).toBe(true);
  }
  return taken;
}
