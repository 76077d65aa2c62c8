// Owns the property tests of the remote read codec: requests decoded as protobufjs encodes them, answers protobufjs decodes to the input, limits and matcher errors.
import fc from 'fast-check';
import * as snappyjs from 'snappyjs';
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import {
  decodeRemoteRead,
  decodeRemoteReadResponse,
  encodeRemoteRead,
  encodeRemoteReadResponse,
  type LabelMatcher,
  type MatcherType,
  type ReadSeries,
  type RemoteReadQuery,
} from '../../src/wire/prom-read-codec.js';
import { PROM_READ_QUERIES_MAX } from '../../src/wire/protocol-limits.js';
import { bits64, longToNumber, promSchema } from './prom-schema.js';

const RUNS = 500;
const S = promSchema();
const SAFE = Number.MAX_SAFE_INTEGER;
const TYPES: readonly MatcherType[] = ['EQ', 'NEQ', 'RE', 'NRE'];

const ms = fc.oneof(fc.integer({ min: 1_500_000_000_000, max: 1_900_000_000_000 }), fc.integer({ min: -SAFE, max: SAFE }));
const text = fc.oneof(fc.constantFrom('', 'up', '__name__', 'job', 'node|api', '.*'), fc.string({ unit: 'grapheme', maxLength: 10 }));

const matcher: fc.Arbitrary<LabelMatcher> = fc.record({ type: fc.constantFrom(...TYPES), name: text, value: text });
const hints = fc.record({ stepMs: ms, func: text, startMs: ms, endMs: ms, rangeMs: ms });
const query: fc.Arbitrary<RemoteReadQuery> = fc
  .record({ a: ms, b: ms, matchers: fc.array(matcher, { maxLength: 4 }), hints: fc.option(hints, { freq: 3 }) })
  .map(({ a, b, matchers, hints: h }) => ({ startMs: Math.min(a, b), endMs: Math.max(a, b), matchers, hints: h }));

/** The ReadRequest protobufjs writes for `queries`, with fields Strata ignores (accepted_response_types, grouping, by) set. */
function encodeWithProtobufjs(queries: readonly RemoteReadQuery[], acceptedResponseTypes: readonly number[], typeNumber?: (m: LabelMatcher) => number): Uint8Array {
  const message = {
    queries: queries.map((q) => ({
      startTimestampMs: q.startMs,
      endTimestampMs: q.endMs,
      matchers: q.matchers.map((m) => ({ type: typeNumber ? typeNumber(m) : TYPES.indexOf(m.type), name: m.name, value: m.value })),
      hints: q.hints === null ? undefined : { ...q.hints, grouping: ['job', 'instance'], by: true },
    })),
    acceptedResponseTypes,
  };
  return snappyjs.compress(S.ReadRequest.encode(message).finish());
}

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof StrataError) return e.code;
    throw e;
  }
  return undefined;
}

describe('decodeRemoteRead', () => {
  it('decodes any ReadRequest protobufjs encodes to its queries', () => {
    fc.assert(
      fc.property(fc.array(query, { maxLength: 5 }), fc.array(fc.constantFrom(0, 1), { maxLength: 2 }), (queries, accepted) => {
        expect(decodeRemoteRead(encodeWithProtobufjs(queries, accepted))).toEqual(queries);
      }),
      { numRuns: RUNS },
    );
  });

  it('reads what encodeRemoteRead writes, and protobufjs reads it too', () => {
    fc.assert(
      fc.property(fc.array(query, { maxLength: 5 }), (queries) => {
        const body = encodeRemoteRead(queries);
        expect(decodeRemoteRead(body)).toEqual(queries);
        const decoded = S.ReadRequest.toObject(S.ReadRequest.decode(snappyjs.uncompress(body)), { defaults: true, enums: String }) as {
          queries: { startTimestampMs: unknown; endTimestampMs: unknown; matchers: LabelMatcher[]; hints: Record<string, unknown> | null }[];
        };
        expect(decoded.queries.map((q) => [longToNumber(q.startTimestampMs), longToNumber(q.endTimestampMs), q.matchers])).toEqual(queries.map((q) => [q.startMs, q.endMs, q.matchers]));
        decoded.queries.forEach((q, i) => {
          const want = queries[i]?.hints ?? null;
          if (want === null) expect(q.hints).toBeNull();
          else expect({ stepMs: longToNumber(q.hints?.stepMs), func: q.hints?.func, startMs: longToNumber(q.hints?.startMs), endMs: longToNumber(q.hints?.endMs), rangeMs: longToNumber(q.hints?.rangeMs) }).toEqual(want);
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('reads a request with no queries, and accepted_response_types written unpacked', () => {
    expect(decodeRemoteRead(snappyjs.compress(new Uint8Array(0)))).toEqual([]);
    // Field 2 as two plain varints (the unpacked form of a repeated enum) is read past too.
    expect(decodeRemoteRead(snappyjs.compress(Uint8Array.from([0x10, 0x01, 0x10, 0x00])))).toEqual([]);
  });

  it('refuses an unknown matcher type with PROMETHEUS_MATCHER_INVALID', () => {
    fc.assert(
      fc.property(query.filter((q) => q.matchers.length > 0), fc.oneof(fc.integer({ min: 4, max: 2 ** 31 - 1 }), fc.integer({ min: -(2 ** 31), max: -1 })), (q, bad) => {
        const body = encodeWithProtobufjs([q], [], (m) => (m === q.matchers[0] ? bad : TYPES.indexOf(m.type)));
        let error: unknown;
        try {
          decodeRemoteRead(body);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(StrataError);
        expect((error as StrataError).code).toBe('PROMETHEUS_MATCHER_INVALID');
        expect((error as StrataError).details).toMatchObject({ type: bad });
      }),
      { numRuns: RUNS / 5 },
    );
  });

  it('refuses more than PROM_READ_QUERIES_MAX queries with PROMETHEUS_READ_TOO_LARGE', () => {
    const one: RemoteReadQuery = { startMs: 0, endMs: 1, matchers: [{ type: 'EQ', name: '__name__', value: 'up' }], hints: null };
    expect(decodeRemoteRead(encodeRemoteRead(Array.from({ length: PROM_READ_QUERIES_MAX }, () => one)))).toHaveLength(PROM_READ_QUERIES_MAX);
    expect(codeOf(() => decodeRemoteRead(encodeRemoteRead(Array.from({ length: PROM_READ_QUERIES_MAX + 1 }, () => one))))).toBe('PROMETHEUS_READ_TOO_LARGE');
  });

  it('refuses a start after the end, and times that are not safe integers, with PROTOCOL_BODY_MALFORMED', () => {
    fc.assert(
      fc.property(ms, ms, (a, b) => {
        fc.pre(a !== b);
        const body = encodeWithProtobufjs([{ startMs: Math.max(a, b), endMs: Math.min(a, b), matchers: [], hints: null }], []);
        expect(codeOf(() => decodeRemoteRead(body))).toBe('PROTOCOL_BODY_MALFORMED');
      }),
      { numRuns: RUNS / 5 },
    );
    const huge = fc.oneof(fc.bigInt({ min: 2n ** 53n, max: 2n ** 63n - 1n }), fc.bigInt({ min: -(2n ** 63n), max: -(2n ** 53n) }));
    fc.assert(
      fc.property(huge, fc.constantFrom('startTimestampMs', 'endTimestampMs', 'hints.stepMs', 'hints.rangeMs'), (t, where) => {
        const q: Record<string, unknown> = { startTimestampMs: 0, endTimestampMs: 0, hints: { stepMs: 0 } };
        if (where.startsWith('hints.')) (q.hints as Record<string, unknown>)[where.slice(6)] = bits64(t);
        else q[where] = bits64(t);
        const body = snappyjs.compress(S.ReadRequest.encode({ queries: [q] }).finish());
        expect(codeOf(() => decodeRemoteRead(body))).toBe('PROTOCOL_BODY_MALFORMED');
      }),
      { numRuns: RUNS / 5 },
    );
  });

  it('refuses damaged bodies with a protocol code, never another error', () => {
    fc.assert(
      fc.property(fc.array(query, { minLength: 1, maxLength: 3 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }), fc.nat(), (queries, flips, cutSeed) => {
        const plain = Uint8Array.from(snappyjs.uncompress(encodeRemoteRead(queries)));
        for (const [at, value] of flips) plain[at % plain.length] = value;
        const allowed = [undefined, 'PROTOCOL_BODY_MALFORMED', 'PROMETHEUS_MATCHER_INVALID', 'PROMETHEUS_READ_TOO_LARGE'];
        expect(allowed).toContain(codeOf(() => decodeRemoteRead(snappyjs.compress(plain))));
        expect(allowed).toContain(codeOf(() => decodeRemoteRead(snappyjs.compress(plain.subarray(0, cutSeed % plain.length)))));
      }),
      { numRuns: RUNS },
    );
  });
});

const readSeries: fc.Arbitrary<ReadSeries> = fc
  .tuple(
    fc.uniqueArray(fc.record({ name: fc.oneof(fc.constantFrom('__name__', 'job', 'instance'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 })), value: text }), { selector: (l) => l.name, maxLength: 5 }),
    fc.array(fc.tuple(ms, fc.double()), { maxLength: 20 }),
  )
  .map(([labels, samples]) => ({
    labels: [...labels].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    timestampsMs: Float64Array.from(samples.map(([t]) => t).sort((a, b) => a - b)),
    values: Float64Array.from(samples.map(([, v]) => v)),
  }));

/** A ReadSeries with plain arrays, for comparisons. */
function plain(series: ReadSeries): { labels: ReadSeries['labels']; timestampsMs: number[]; values: number[] } {
  return { labels: series.labels, timestampsMs: Array.from(series.timestampsMs), values: Array.from(series.values) };
}

describe('encodeRemoteReadResponse', () => {
  it('writes a ReadResponse protobufjs decodes to exactly the input', () => {
    fc.assert(
      fc.property(fc.array(fc.array(readSeries, { maxLength: 4 }), { maxLength: 4 }), (results) => {
        const body = encodeRemoteReadResponse(results);
        const decoded = S.ReadResponse.toObject(S.ReadResponse.decode(snappyjs.uncompress(body)), { defaults: true }) as {
          results: { timeseries: { labels: { name: string; value: string }[]; samples: { value: number; timestamp: unknown }[] }[] }[];
        };
        const got = decoded.results.map((r) => r.timeseries.map((t) => ({ labels: t.labels, timestampsMs: t.samples.map((s) => longToNumber(s.timestamp)), values: t.samples.map((s) => s.value) })));
        expect(got).toEqual(results.map((r) => r.map(plain)));
        expect(decodeRemoteReadResponse(body).map((r) => r.map(plain))).toEqual(results.map((r) => r.map(plain)));
      }),
      { numRuns: RUNS },
    );
  });
});
