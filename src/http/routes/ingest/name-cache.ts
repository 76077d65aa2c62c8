// Owns interning metric names decoded from request bytes: a repeated name costs a hash and a compare, not a decode.

/** FNV-1a offset basis and prime (32-bit). */
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** Names kept at most; past it the cache starts over (a workload's names come back within a batch). */
export const NAME_CACHE_ENTRIES_MAX = 100_000;

interface Entry {
  readonly bytes: Uint8Array;
  readonly text: string;
}

/**
 * UTF-8 strings by their bytes' FNV-1a hash. Interned names also make the store's map lookups
 * cheaper, since a string reused from here keeps its computed hash.
 */
export class NameCache {
  private readonly entries = new Map<number, Entry>();

  /** buf[start, end) as a string; `hash` is FNV-1a of those bytes. */
  text(buf: Buffer, start: number, end: number, hash: number): string {
    const entry = this.entries.get(hash);
    if (entry !== undefined && entry.bytes.length === end - start) {
      const bytes = entry.bytes;
      let i = 0;
      while (i < bytes.length && bytes[i] === buf[start + i]) i++;
      if (i === bytes.length) return entry.text;
    }
    const text = buf.toString('utf8', start, end);
    if (this.entries.size >= NAME_CACHE_ENTRIES_MAX) this.entries.clear();
    // A copy, not a view: a view would keep the whole request body alive.
    this.entries.set(hash, { bytes: Uint8Array.prototype.slice.call(buf, start, end), text });
    return text;
  }
}
