// Owns a bounded map that forgets its least recently used entry: the alarm runtime's caches never grow past their limit.
import { assert } from '../../core/assert.js';

/** A Map with at most `capacity` entries; reading or writing an entry makes it the most recent. */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {
    assert(Number.isSafeInteger(capacity) && capacity > 0, 'an LRU map holds at least one entry');
  }

  /** How many entries it holds. */
  get size(): number {
    return this.entries.size;
  }

  /** The value of `key`, made the most recent; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // A Map iterates in insertion order: re-inserting moves the key to the recent end.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Sets `key`, made the most recent; the least recent entry goes when the map is full. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  /** Removes `key`; true when it was there. */
  delete(key: K): boolean {
    return this.entries.delete(key);
  }
}
