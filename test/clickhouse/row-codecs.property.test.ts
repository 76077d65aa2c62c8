// Property: the RowBinary row codecs round-trip bit-exact: buckets out and back, samples and per-series samples in, points and series rows split by shard.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RowBinaryReader, RowBinaryWriter } from '../../src/clickhouse/row-binary.js';
import { concatSamples, decodeBuckets, decodeSamples, decodeSeriesSamples, encodeBuckets, encodePoints, encodeSeriesRows } from '../../src/clickhouse/row-codecs.js';
import { SeriesCache } from '../../src/clickhouse/series-cache.js';
import { seriesIdBytes } from '../../src/clickhouse/series-id.js';
import type { BucketColumns, SampleColumns } from '../../src/model/bucket.js';
import { bucketsFromSamples } from '../../src/model/rollup-math.js';

const KIND_NUMBER = 0;
const KIND_STRING = 1;
const U32_MAX = 2 ** 32 - 1;

/** Every double, NaN, -0 and the infinities included. */
const anyDouble = fc.oneof(fc.double(), fc.constantFrom(Number.NaN, -0, 0, Infinity, -Infinity, Number.MIN_VALUE, -Number.MAX_VALUE));
const seriesIdArb = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const textArb = fc.string({ unit: 'grapheme', maxLength: 12 });

/** Each element of `got` is `want`'s, bit for bit as far as a double can tell (NaN is NaN, -0 is not 0). */
function expectSameDoubles(got: ArrayLike<number>, want: ArrayLike<number>, what: string): void {
  expect(got.length, what).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    if (!Object.is(got[i], want[i])) expect.fail(`${what}[${i}]: got ${got[i]}, want ${want[i]}`);
  }
}

const BUCKET_KEYS = ['startsMs', 'numPoints', 'count', 'mean', 'm2', 'min', 'max'] as const;

function expectSameBuckets(got: BucketColumns, want: BucketColumns): void {
  expect(got.length).toBe(want.length);
  for (const key of BUCKET_KEYS) expectSameDoubles(got[key], want[key], key);
}

const bucketsArb = fc
  .array(
    fc.record({
      start: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      numPoints: fc.integer({ min: 1, max: U32_MAX }),
      count: fc.integer({ min: 0, max: U32_MAX }),
      mean: anyDouble,
      m2: anyDouble,
      min: anyDouble,
      max: anyDouble,
    }),
    { maxLength: 40 },
  )
  .map((rows): BucketColumns => {
    const col = (pick: (r: (typeof rows)[number]) => number) => Float64Array.from(rows.map(pick));
    return {
      length: rows.length,
      startsMs: col((r) => r.start),
      numPoints: col((r) => r.numPoints),
      count: col((r) => r.count),
      mean: col((r) => r.mean),
      m2: col((r) => r.m2),
      min: col((r) => r.min),
      max: col((r) => r.max),
    };
  });

/** One series' samples: distinct ascending timestamps, each a number or a string. */
const samplesArb = fc
  .uniqueArray(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), { maxLength: 30 })
  .chain((ts) => fc.tuple(fc.constant([...ts].sort((a, b) => a - b)), fc.array(fc.oneof(anyDouble, textArb), { minLength: ts.length, maxLength: ts.length })))
  .map(([ts, values]) => ts.map((t, i) => ({ ts: t, value: values[i] as number | string })));

type Sample = { ts: number; value: number | string };

function writeSampleRow(w: RowBinaryWriter, s: Sample): void {
  w.u64(s.ts);
  if (typeof s.value === 'string') {
    w.u8(KIND_STRING);
    w.f64(0);
    w.string(s.value);
  } else {
    w.u8(KIND_NUMBER);
    w.f64(s.value);
    w.string('');
  }
}

function expectSamples(got: SampleColumns, want: readonly Sample[]): void {
  const numbers = want.filter((s) => typeof s.value === 'number');
  const strings = want.filter((s) => typeof s.value === 'string');
  expect(got.length).toBe(numbers.length);
  expectSameDoubles(got.timestampsMs, numbers.map((s) => s.ts), 'timestampsMs');
  expectSameDoubles(got.values, numbers.map((s) => s.value as number), 'values');
  if (strings.length === 0) {
    expect(got.strings).toBeNull();
  } else {
    expect(got.strings?.length).toBe(strings.length);
    expectSameDoubles(got.strings?.timestampsMs ?? [], strings.map((s) => s.ts), 'strings.timestampsMs');
    expect(got.strings?.values).toEqual(strings.map((s) => s.value));
  }
}

describe('row codecs', () => {
  it('decodeBuckets(encodeBuckets(b)) is b, bit for bit', () => {
    fc.assert(
      fc.property(seriesIdArb, bucketsArb, (id, buckets) => {
        const w = new RowBinaryWriter();
        const idBytes = seriesIdBytes(id);
        encodeBuckets(w, idBytes, buckets);
        const body = w.finish();
        // Rows carry the series id first; a read of one series selects only the columns after it.
        const r = new RowBinaryReader(body);
        const rest = new RowBinaryWriter();
        for (let i = 0; i < buckets.length; i++) {
          expect(r.u64Bytes().equals(idBytes)).toBe(true);
          rest.u64(r.u64());
          rest.u32(r.u32());
          rest.u32(r.u32());
          for (let c = 0; c < 4; c++) rest.f64(r.f64());
        }
        expect(r.done).toBe(true);
        expectSameBuckets(decodeBuckets(rest.finish()), buckets);
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips the buckets of real samples, NaN stats of string-only buckets included', () => {
    fc.assert(
      fc.property(samplesArb, fc.constantFrom(300_000, 3_600_000, 86_400_000), (samples, width) => {
        const w = new RowBinaryWriter();
        for (const s of samples) writeSampleRow(w, s);
        const columns = decodeSamples(w.finish());
        expectSamples(columns, samples);
        const buckets = bucketsFromSamples(columns, width);
        const out = new RowBinaryWriter();
        encodeBuckets(out, seriesIdBytes(7n), buckets);
        const body = out.finish();
        // Drop the 8 id bytes of each 56-byte row.
        const rows = Buffer.concat(Array.from({ length: buckets.length }, (_, i) => body.subarray(i * 56 + 8, (i + 1) * 56)));
        expect(body.length).toBe(buckets.length * 56);
        const back = decodeBuckets(rows);
        expectSameBuckets(back, buckets);
        for (let i = 0; i < back.length; i++) if (back.count[i] === 0) expect([back.mean[i], back.m2[i], back.min[i], back.max[i]].every(Number.isNaN)).toBe(true);
      }),
      { numRuns: 300 },
    );
    expect(decodeBuckets(Buffer.alloc(0)).length).toBe(0);
    expect(decodeSamples(Buffer.alloc(0))).toMatchObject({ length: 0, strings: null });
  });

  it('decodeSeriesSamples splits rows sorted by series into each series samples, in order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(seriesIdArb, samplesArb.filter((s) => s.length > 0)), { maxLength: 8, selector: ([id]) => id }), (series) => {
        const sorted = [...series].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        const w = new RowBinaryWriter();
        for (const [id, samples] of sorted) for (const s of samples) (w.u64Bytes(seriesIdBytes(id)), writeSampleRow(w, s));
        const got = decodeSeriesSamples(w.finish());
        expect(got.map((g) => g.idBytes.readBigUInt64LE(0))).toEqual(sorted.map(([id]) => id));
        got.forEach((g, i) => expectSamples(g.samples, (sorted[i] as [bigint, Sample[]])[1]));
      }),
      { numRuns: 300 },
    );
    expect(decodeSeriesSamples(Buffer.alloc(0))).toEqual([]);
  });

  it('concatSamples of consecutive reads of a series is the samples of one read', () => {
    fc.assert(
      fc.property(samplesArb, fc.array(fc.nat(), { maxLength: 5 }), (samples, cuts) => {
        const at = [...new Set(cuts.map((c) => c % (samples.length + 1)))].sort((a, b) => a - b);
        const bounds = [0, ...at, samples.length];
        const parts = bounds.slice(1).map((end, i) => {
          const w = new RowBinaryWriter();
          for (const s of samples.slice(bounds[i], end)) writeSampleRow(w, s);
          return decodeSamples(w.finish());
        });
        expectSamples(concatSamples(parts), samples);
      }),
      { numRuns: 300 },
    );
  });

  it('encodePoints sends each point to its series shard, in batch order, leaving out the replaced ones', () => {
    const pointArb = fc.record({ series: fc.integer({ min: 0, max: 9 }), ts: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), value: fc.oneof(anyDouble, textArb), replaced: fc.boolean() });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(pointArb, { maxLength: 60 }), fc.boolean(), (shards, points, withReplaced) => {
        const cache = new SeriesCache((id) => Number(id % BigInt(shards)));
        const local = Array.from({ length: 10 }, (_, i) => cache.registry.resolve('t', `m${i}`, undefined));
        cache.rowsFor(Uint32Array.from(local), local.length);
        const strings = new Map<number, string>();
        points.forEach((p, i) => typeof p.value === 'string' && strings.set(i, p.value));
        const columns = {
          length: points.length,
          seriesIds: Uint32Array.from(points.map((p) => local[p.series] as number)),
          timestampsMs: Float64Array.from(points.map((p) => p.ts)),
          values: Float64Array.from(points.map((p) => (typeof p.value === 'string' ? Number.NaN : p.value))),
          strings: strings.size === 0 ? null : strings,
        };
        const replaced = withReplaced ? Uint8Array.from(points.map((p) => (p.replaced ? 1 : 0))) : null;
        const bodies = encodePoints(columns, cache, shards, replaced);
        expect(bodies).toHaveLength(shards);
        bodies.forEach((body, shard) => {
          const want = points.filter((p) => (!withReplaced || !p.replaced) && cache.placement(local[p.series] as number).shard === shard);
          const r = new RowBinaryReader(body);
          for (const p of want) {
            expect(r.u64Bytes().equals(cache.placement(local[p.series] as number).idBytes)).toBe(true);
            expect(r.u64()).toBe(p.ts);
            const kind = r.u8();
            const value = r.f64();
            const text = r.string();
            if (typeof p.value === 'string') expect([kind, value, text]).toEqual([KIND_STRING, 0, p.value]);
            else expect(kind === KIND_NUMBER && Object.is(value, p.value) && text === '').toBe(true);
          }
          expect(r.done).toBe(true);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('encodeSeriesRows sends each row to its series shard; a row without a unit has version 0', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.uniqueArray(fc.tuple(textArb, fc.option(textArb, { nil: undefined })), { maxLength: 12, selector: ([m]) => m }), fc.integer({ min: 1, max: 2 ** 52 }), (shards, series, version) => {
        const cache = new SeriesCache((id) => Number(id % BigInt(shards)));
        const ids = Uint32Array.from(series.map(([metric, unit]) => cache.registry.resolve('tenant', metric, unit)));
        const rows = cache.rowsFor(ids, ids.length);
        const bodies = encodeSeriesRows(rows, cache, shards, version);
        bodies.forEach((body, shard) => {
          const r = new RowBinaryReader(body);
          for (const row of rows.filter((x) => cache.placement(x.id).shard === shard)) {
            expect(r.string()).toBe('tenant');
            expect(r.string()).toBe(row.metric);
            expect(r.u64Bytes().equals(cache.placement(row.id).idBytes)).toBe(true);
            expect(r.string()).toBe(row.unit ?? '');
            expect(r.u8()).toBe(row.unit === null ? 0 : 1);
            expect(r.u64()).toBe(row.unit === null ? 0 : version);
          }
          expect(r.done).toBe(true);
        });
      }),
      { numRuns: 200 },
    );
  });
});
