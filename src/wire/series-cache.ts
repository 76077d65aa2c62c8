// Owns the bounded cross-request cache the protocol decoders name series through: values by the raw bytes that named them, verified byte for byte.
import { SERIES_CACHE_BYTES_MAX, SERIES_CACHE_ENTRIES_MAX, SERIES_CACHE_KEY_BYTES_MAX, SERIES_CACHE_SEEN_BITS } from './protocol-limits.js';

/** What one cached entry is estimated to cost besides its key and value bytes: the entry, its key array and the map slot. */
const ENTRY_OVERHEAD_BYTES = 128;
/** Multipliers of the word hash (the 32-bit FNV prime, then two odd constants that spread the final bits). */
const HASH_PRIME = 0x01000193;
const SALT_MIX = 0x9e3779b1;
const FINAL_MIX = 0x85ebca6b;

/** How a key's bytes hash: `view` holds them at [start, end); `salt` tells apart keys of different scopes (an OTLP metric). */
export type SeriesKeyHash = (view: DataView, start: number, end: number, salt: number) => number;

/** What a cache holds and has answered: entries now, and lookups it answered since it was made. */
export interface SeriesCacheStats {
  readonly entries: number;
  readonly hits: number;
}

/** Limits and hash of one cache; every field defaults to the protocol limit, tests shrink them or force collisions. */
export interface SeriesCacheOptions {
  readonly entriesMax?: number;
  readonly bytesMax?: number;
  readonly hash?: SeriesKeyHash;
}

/**
 * A 30-bit hash of bytes read a 32-bit word at a time. Each step folds the high bits down after the
 * multiply, so every bit of every word reaches the low 30 bits kept (a plain multiply only carries
 * upwards). 30 bits stay a small integer in V8, a cheaper Map key than a heap number.
 */
export function seriesKeyHash(view: DataView, start: number, end: number, salt: number): number {
  let hash = (end - start) ^ Math.imul(salt, SALT_MIX);
  let i = start;
  for (; i + 4 <= end; i += 4) {
    hash = Math.imul(hash ^ view.getInt32(i), HASH_PRIME);
    hash ^= hash >>> 15;
  }
  for (; i < end; i++) hash = Math.imul(hash ^ view.getUint8(i), HASH_PRIME);
  hash = Math.imul(hash ^ (hash >>> 16), FINAL_MIX);
  return (hash ^ (hash >>> 13)) & 0x3fffffff;
}

/**
 * Hashes of keys seen once, as one bit each. A cache stores a key only when its hash was seen
 * before: a series sent in every request is cached from its second request on, while a series seen
 * once (churn, a one-off batch) costs a bit, not an entry the garbage collector must carry into its
 * old generation (that measured about twice the cost of naming the series). A false mark only
 * stores a key early. Starts over once a quarter of its bits are marked.
 */
export class SeenFilter {
  private readonly bits = new Int32Array(SERIES_CACHE_SEEN_BITS >>> 5);
  private marked = 0;

  /** Whether `hash` was marked before; marks it. */
  seenBefore(hash: number): boolean {
    const index = hash & (SERIES_CACHE_SEEN_BITS - 1);
    const word = index >>> 5;
    const bit = 1 << (index & 31);
    if (((this.bits[word] as number) & bit) !== 0) return true;
    if (++this.marked > SERIES_CACHE_SEEN_BITS / 4) {
      this.bits.fill(0);
      this.marked = 1;
    }
    this.bits[word] = (this.bits[word] as number) | bit;
    return false;
  }
}

interface Entry<V> {
  readonly salt: number;
  readonly length: number;
  /** The key's bytes as big-endian 32-bit words, without the last partial word. */
  readonly words: Int32Array;
  /** The last 0 to 3 bytes, packed big-endian. */
  readonly tail: number;
  readonly cost: number;
  readonly value: V;
}

/** The last `length % 4` bytes of a key at `start`, packed big-endian. */
function tailOf(view: DataView, start: number, length: number): number {
  let tail = 0;
  for (let i = start + (length & ~3); i < start + length; i++) tail = (tail << 8) | view.getUint8(i);
  return tail;
}

/**
 * Values by the bytes that produced them (a TimeSeries' labels, an OTLP data point's attributes),
 * kept across requests by the decoder that owns the cache. A hit costs a hash of the key and a
 * compare with the stored copy: equal hashes are never trusted alone. A colliding key replaces the
 * entry, so crafted collisions cost the sender a decode per series, never a wrong value or a long
 * chain. Bounded by an entry count and an estimate of the bytes held; past either it starts over,
 * as the names of a workload come back within a few requests. A key is stored the second time it
 * is offered, so series seen once never take an entry. Keys longer than SERIES_CACHE_KEY_BYTES_MAX
 * are not kept (such a series is named the slow way each time).
 */
export class SeriesCache<V> {
  private readonly entries = new Map<number, Entry<V>>();
  private readonly entriesMax: number;
  private readonly bytesMax: number;
  private readonly hash: SeriesKeyHash;
  private readonly seen = new SeenFilter();
  private bytesHeld = 0;
  private hits = 0;

  constructor(options: SeriesCacheOptions = {}) {
    this.entriesMax = options.entriesMax ?? SERIES_CACHE_ENTRIES_MAX;
    this.bytesMax = options.bytesMax ?? SERIES_CACHE_BYTES_MAX;
    this.hash = options.hash ?? seriesKeyHash;
  }

  /** Entries held now. */
  get size(): number {
    return this.entries.size;
  }

  /** The estimated bytes held now. */
  get bytes(): number {
    return this.bytesHeld;
  }

  /** Entries now and hits so far. */
  stats(): SeriesCacheStats {
    return { entries: this.entries.size, hits: this.hits };
  }

  /** The hash of the key at [start, end) of `view` under `salt`, for get and set (a miss then costs one hash). */
  keyHash(salt: number, view: DataView, start: number, end: number): number {
    return this.hash(view, start, end, salt);
  }

  /** The value stored for the key at [start, end) of `view` under `salt`, whose keyHash is `hash`, or undefined. */
  get(hash: number, salt: number, view: DataView, start: number, end: number): V | undefined {
    const entry = this.entries.get(hash);
    if (entry === undefined || entry.salt !== salt || entry.length !== end - start) return undefined;
    const words = entry.words;
    for (let w = 0; w < words.length; w++) if (view.getInt32(start + 4 * w) !== words[w]) return undefined;
    if (entry.tail !== tailOf(view, start, end - start)) return undefined;
    this.hits++;
    return entry.value;
  }

  /**
   * Offers `value` for the key at [start, end) under `salt`, whose keyHash is `hash` (after get
   * missed it); `valueBytes` estimates what the value holds. Stored when the key's hash was offered
   * before (see SeenFilter).
   */
  set(hash: number, salt: number, view: DataView, start: number, end: number, value: V, valueBytes: number): void {
    const length = end - start;
    const cost = length + valueBytes + ENTRY_OVERHEAD_BYTES;
    if (length > SERIES_CACHE_KEY_BYTES_MAX || cost > this.bytesMax || !this.seen.seenBefore(hash)) return;
    const old = this.entries.get(hash);
    if (old !== undefined) {
      this.entries.delete(hash);
      this.bytesHeld -= old.cost;
    }
    if (this.entries.size >= this.entriesMax || this.bytesHeld + cost > this.bytesMax) this.clear();
    const words = new Int32Array(length >>> 2);
    for (let w = 0; w < words.length; w++) words[w] = view.getInt32(start + 4 * w);
    this.entries.set(hash, { salt, length, words, tail: tailOf(view, start, length), cost, value });
    this.bytesHeld += cost;
  }

  /** Counts bytes a stored value grew by (names it formed later); the next set starts over when past the budget. */
  charge(bytes: number): void {
    this.bytesHeld += bytes;
  }

  /** Forgets every entry (the seen filter keeps its marks: those keys are still worth storing). */
  clear(): void {
    this.entries.clear();
    this.bytesHeld = 0;
  }
}
