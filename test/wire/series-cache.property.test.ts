// Owns the property tests of SeriesCache: a hit is always the value stored for exactly those bytes and salt, whatever the hash, and the cache stays within its bounds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SERIES_CACHE_KEY_BYTES_MAX } from '../../src/wire/protocol-limits.js';
import { SeriesCache, seriesKeyHash, type SeriesKeyHash } from '../../src/wire/series-cache.js';

const RUNS = 300;

/** Looks a key up as the decoders do: its hash, then get. */
function find<V>(cache: SeriesCache<V>, salt: number, view: DataView, start: number, end: number): V | undefined {
  return cache.get(cache.keyHash(salt, view, start, end), salt, view, start, end);
}

/** Offers a key's value as the decoders do after a miss. */
function offer<V>(cache: SeriesCache<V>, salt: number, view: DataView, start: number, end: number, value: V, valueBytes: number): void {
  cache.set(cache.keyHash(salt, view, start, end), salt, view, start, end, value, valueBytes);
}

/** The text a key stands for in the model: its salt and bytes. */
function keyText(salt: number, bytes: Uint8Array): string {
  return `${salt}:${Array.from(bytes).join(',')}`;
}

/** A view over `bytes` placed at `offset` in a larger buffer, so keys are read at arbitrary, unaligned positions. */
function placed(bytes: Uint8Array, offset: number): DataView {
  const buf = new Uint8Array(offset + bytes.length + 3).fill(0xee);
  buf.set(bytes, offset);
  return new DataView(buf.buffer);
}

/** Keys from a small alphabet and lengths around word boundaries, so equal and near-equal keys come up often. */
const keyBytes = fc.uint8Array({ maxLength: 11 }).map((raw) => raw.map((b) => b % 3));
const operation = fc.record({ set: fc.boolean(), salt: fc.nat({ max: 2 }), key: keyBytes, offset: fc.nat({ max: 5 }) });

const HASHES: readonly [string, SeriesKeyHash][] = [
  ['the real hash', seriesKeyHash],
  ['a constant hash (every key collides)', () => 0],
  ['a hash of the length only', (_view, start, end) => end - start],
];

describe('SeriesCache', () => {
  for (const [name, hash] of HASHES) {
    it(`answers only the value stored for exactly that salt and those bytes, with ${name}, within its bounds`, () => {
      fc.assert(
        fc.property(fc.array(operation, { maxLength: 60 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 150, max: 2_000 }), (ops, entriesMax, bytesMax) => {
          const cache = new SeriesCache<string>({ entriesMax, bytesMax, hash });
          const offered = new Set<string>();
          for (const { set, salt, key, offset } of ops) {
            const view = placed(key, offset);
            const text = keyText(salt, key);
            if (set) {
              offer(cache, salt, view, offset, offset + key.length, text, text.length);
              // A key offered a second time is stored and found again, unless it alone is over the byte budget.
              if (offered.has(text) && key.length + text.length + 128 <= bytesMax) expect(find(cache, salt, view, offset, offset + key.length)).toBe(text);
              offered.add(text);
            } else {
              const got = find(cache, salt, view, offset, offset + key.length);
              if (got !== undefined) expect(got).toBe(text);
            }
            expect(cache.size).toBeLessThanOrEqual(entriesMax);
            expect(cache.bytes).toBeLessThanOrEqual(bytesMax);
          }
        }),
        { numRuns: RUNS },
      );
    });
  }

  it('stores a key the second time it is offered, keeps every key of a workload that fits, and starts over when full', () => {
    const cache = new SeriesCache<number>({ entriesMax: 3 });
    const keys = [0, 1, 2, 3].map((i) => Uint8Array.from([i, i, i, i, i]));
    const offerAll = (some: Uint8Array[]) => some.forEach((key) => offer(cache, 0, placed(key, 0), 0, 5, key[0] as number, 0));
    offerAll(keys.slice(0, 3));
    expect(cache.size).toBe(0);
    offerAll(keys.slice(0, 3));
    expect(keys.slice(0, 3).map((key) => find(cache, 0, placed(key, 0), 0, 5))).toEqual([0, 1, 2]);
    offerAll([keys[3] as Uint8Array, keys[3] as Uint8Array]);
    expect(cache.size).toBe(1);
    expect(keys.map((key) => find(cache, 0, placed(key, 0), 0, 5))).toEqual([undefined, undefined, undefined, 3]);
  });

  it('tells apart keys that collide, and salts with the same bytes', () => {
    const cache = new SeriesCache<string>({ hash: () => 7 });
    const a = placed(Uint8Array.from([1, 2, 3, 4, 5, 6]), 1);
    const b = placed(Uint8Array.from([9, 2, 3, 4, 5, 6]), 1);
    offer(cache, 0, a, 1, 7, 'a', 1);
    offer(cache, 0, a, 1, 7, 'a', 1);
    expect(find(cache, 0, b, 1, 7)).toBeUndefined();
    expect(find(cache, 1, a, 1, 7)).toBeUndefined();
    expect(find(cache, 0, a, 1, 7)).toBe('a');
    // The hash was seen, so b is stored at once, in a's place.
    offer(cache, 0, b, 1, 7, 'b', 1);
    expect(find(cache, 0, a, 1, 7)).toBeUndefined();
    expect(find(cache, 0, b, 1, 7)).toBe('b');
    expect(cache.size).toBe(1);
  });

  it('does not keep a key longer than SERIES_CACHE_KEY_BYTES_MAX', () => {
    const cache = new SeriesCache<string>();
    const long = placed(new Uint8Array(SERIES_CACHE_KEY_BYTES_MAX + 1).fill(9), 0);
    for (let i = 0; i < 2; i++) offer(cache, 0, long, 0, SERIES_CACHE_KEY_BYTES_MAX + 1, 'long', 4);
    expect(find(cache, 0, long, 0, SERIES_CACHE_KEY_BYTES_MAX + 1)).toBeUndefined();
    for (let i = 0; i < 2; i++) offer(cache, 0, long, 0, SERIES_CACHE_KEY_BYTES_MAX, 'fits', 4);
    expect(find(cache, 0, long, 0, SERIES_CACHE_KEY_BYTES_MAX)).toBe('fits');
  });

  // Every step of the hash is a bijection of its 32-bit state, so such keys differ before the cut to 30 bits (a clash then is a 2^-30 chance).
  it('spreads keys that differ in any one bit over different hashes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.nat(), fc.nat({ max: 7 }), (bytes, at, bit) => {
        const flipped = Uint8Array.from(bytes);
        const i = at % bytes.length;
        flipped[i] = (flipped[i] as number) ^ (1 << bit);
        expect(seriesKeyHash(placed(bytes, 0), 0, bytes.length, 0)).not.toBe(seriesKeyHash(placed(flipped, 0), 0, bytes.length, 0));
      }),
      { numRuns: RUNS },
    );
  });
});
