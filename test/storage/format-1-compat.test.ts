// Owns the format-1 compatibility check: rows the format-1 codecs wrote (a fixture) still decode to exactly their columns.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { BucketColumns, SampleColumns } from '../../src/model/bucket.js';
import { bucketEncodingOf, decodeBuckets, encodeBuckets } from '../../src/storage/bucket-codec.js';
import { chunkEncodingOf, decodeChunk, encodeChunk } from '../../src/storage/chunk-codec.js';
import type { FloatScheme } from '../../src/storage/float-column.js';
import { bitsDifference } from './float-arbitraries.js';

// The fixture was written once, by a script outside the repository, with the codecs of the
// commit before format 2 (cbd1a55, its "about" says so) built from a git worktree; it also
// recorded which format-1 scheme that code chose for each column. Doubles are the 16 hex digits
// of their 64 bits, big-endian, so NaN and -0 survive JSON; timestamps and counts are plain integers.
const FIXTURE = new URL('./fixtures/format-1-rows.json', import.meta.url);

interface ChunkFixture {
  readonly name: string;
  readonly valueScheme?: FloatScheme | null;
  readonly hex: string;
  readonly length: number;
  readonly timestampsMs: number[];
  readonly values: string[];
  readonly strings: { readonly timestampsMs: number[]; readonly values: string[] } | null;
}

interface BucketFixture {
  readonly name: string;
  readonly statSchemes: Array<FloatScheme | null>;
  readonly hex: string;
  readonly length: number;
  readonly startsMs: number[];
  readonly numPoints: number[];
  readonly count: number[];
  readonly mean: string[];
  readonly m2: string[];
  readonly min: string[];
  readonly max: string[];
}

const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { chunks: ChunkFixture[]; buckets: BucketFixture[] };

function bytesOf(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** Doubles from the hex of their 64 bits. */
function doublesOf(hexes: readonly string[]): Float64Array {
  const out = new Float64Array(hexes.length);
  const view = new DataView(out.buffer);
  hexes.forEach((hex, i) => view.setBigUint64(i * 8, BigInt(`0x${hex}`), true));
  return out;
}

function expectedSamples(c: ChunkFixture): SampleColumns {
  return {
    length: c.length,
    timestampsMs: Float64Array.from(c.timestampsMs),
    values: doublesOf(c.values),
    strings:
      c.strings === null
        ? null
        : { length: c.strings.values.length, timestampsMs: Float64Array.from(c.strings.timestampsMs), values: c.strings.values },
  };
}

function expectSamples(actual: SampleColumns, expected: SampleColumns): void {
  expect(actual.length).toBe(expected.length);
  expect(bitsDifference(actual.timestampsMs, expected.timestampsMs)).toBeNull();
  expect(bitsDifference(actual.values, expected.values)).toBeNull();
  if (expected.strings === null) {
    expect(actual.strings).toBeNull();
  } else {
    expect(bitsDifference(actual.strings!.timestampsMs, expected.strings.timestampsMs)).toBeNull();
    expect(actual.strings!.values).toEqual(expected.strings.values);
  }
}

const BUCKET_COLUMNS = ['startsMs', 'numPoints', 'count', 'mean', 'm2', 'min', 'max'] as const;

function expectedBuckets(b: BucketFixture): BucketColumns {
  return {
    length: b.length,
    startsMs: Float64Array.from(b.startsMs),
    numPoints: Float64Array.from(b.numPoints),
    count: Float64Array.from(b.count),
    mean: doublesOf(b.mean),
    m2: doublesOf(b.m2),
    min: doublesOf(b.min),
    max: doublesOf(b.max),
  };
}

function expectBuckets(actual: BucketColumns, expected: BucketColumns): void {
  expect(actual.length).toBe(expected.length);
  for (const name of BUCKET_COLUMNS) expect(bitsDifference(actual[name], expected[name]), name).toBeNull();
}

describe('format-1 rows', () => {
  it('are what the fixture says: version byte 1, both format-1 value schemes, NaN and -0 among the values', () => {
    const rows = [...fixture.chunks, ...fixture.buckets];
    for (const row of rows) expect(bytesOf(row.hex)[0], row.name).toBe(1);
    const schemes = new Set([...fixture.chunks.map((c) => c.valueScheme ?? null), ...fixture.buckets.flatMap((b) => b.statSchemes)]);
    expect(schemes).toEqual(new Set(['decimal', 'xor', null]));
    const allValues = fixture.chunks.flatMap((c) => Array.from(doublesOf(c.values)));
    expect(allValues.some((v) => Number.isNaN(v))).toBe(true);
    expect(allValues.some((v) => Object.is(v, -0))).toBe(true);
    expect(fixture.buckets.some((b) => b.count.includes(0) && Array.from(doublesOf(b.mean)).some((v) => Number.isNaN(v)))).toBe(true);
  });

  for (const c of fixture.chunks) {
    it(`decode as chunks, bit-exactly: ${c.name}`, () => {
      const bytes = bytesOf(c.hex);
      const expected = expectedSamples(c);
      expectSamples(decodeChunk(bytes), expected);
      expect(chunkEncodingOf(bytes)).toEqual({ format: 1, entropy: 'none', values: c.valueScheme ?? undefined });
      // What a compaction does with it: re-encoded as format 2, it reads back the same.
      for (const effort of ['fast', 'compact'] as const) {
        const again = encodeChunk(decodeChunk(bytes), effort);
        expect(chunkEncodingOf(again).format).toBe(2);
        expectSamples(decodeChunk(again), expected);
      }
    });
  }

  for (const b of fixture.buckets) {
    it(`decode as bucket rows, bit-exactly: ${b.name}`, () => {
      const bytes = bytesOf(b.hex);
      const expected = expectedBuckets(b);
      expectBuckets(decodeBuckets(bytes), expected);
      expect(bucketEncodingOf(bytes)).toEqual({ format: 1, entropy: 'none', stats: b.statSchemes.map((s) => s ?? undefined) });
      for (const effort of ['fast', 'compact'] as const) {
        const again = encodeBuckets(decodeBuckets(bytes), effort);
        expect(bucketEncodingOf(again).format).toBe(2);
        expectBuckets(decodeBuckets(again), expected);
      }
    });
  }

  it('detect a truncated format-1 chunk', () => {
    const walk = fixture.chunks.find((c) => c.name === '2-decimal walk')!;
    const bytes = bytesOf(walk.hex);
    expect(() => decodeChunk(bytes.subarray(0, bytes.length >>> 1))).toThrow();
  });
});
