// Owns interning metric names decoded from body bytes: a repeated name costs a hash and a compare, not a decode.
import { NAME_CACHE_ENTRIES_MAX } from './wire-limits.js';

/** Multiplier of the word hash (the 32-bit FNV prime). */
const HASH_PRIME = 0x01000193;

interface Entry {
  /** The name's bytes as big-endian 32-bit words, without the last partial word. */
  readonly words: Int32Array;
  /** The last 0 to 3 bytes, packed big-endian. */
  readonly tail: number;
  readonly length: number;
  readonly text: string;
}

/**
 * UTF-8 strings by a hash of their bytes, read a 32-bit word at a time. Interned names also make
 * the store's map lookups cheaper, since a string reused from here keeps its computed hash. A
 * colliding name only replaces the entry (a miss costs a decode), so crafted names cannot make
 * lookups slower than decoding.
 */
export class NameCache {
  private readonly entries = new Map<number, Entry>();

  /** buf[start, end) as a string; `view` is a DataView over exactly `buf`. */
  intern(buf: Buffer, view: DataView, start: number, end: number): string {
    const length = end - start;
    let hash = length;
    let j = start;
    for (; j + 4 <= end; j += 4) hash = Math.imul(hash ^ view.getInt32(j), HASH_PRIME);
    let tail = 0;
    for (; j < end; j++) tail = (tail << 8) | (buf[j] as number);
    hash = Math.imul(hash ^ tail, HASH_PRIME);
    const entry = this.entries.get(hash);
    if (entry !== undefined && entry.length === length && entry.tail === tail && sameWords(view, start, entry.words)) return entry.text;
    const text = buf.toString('utf8', start, end);
    const words = new Int32Array(length >>> 2);
    for (let w = 0; w < words.length; w++) words[w] = view.getInt32(start + 4 * w);
    if (this.entries.size >= NAME_CACHE_ENTRIES_MAX) this.entries.clear();
    this.entries.set(hash, { words, tail, length, text });
    return text;
  }
}

function sameWords(view: DataView, start: number, words: Int32Array): boolean {
  for (let w = 0; w < words.length; w++) if (view.getInt32(start + 4 * w) !== words[w]) return false;
  return true;
}
