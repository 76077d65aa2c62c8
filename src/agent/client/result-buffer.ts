// Owns the agent's bounded FIFO of check results waiting to be posted: the oldest are dropped (and counted) when full.
import { assert } from '../../core/assert.js';
import { AGENT_BUFFER_RESULTS_MAX } from '../agent-limits.js';

/**
 * A bounded first-in first-out queue over a ring of slots. `push` at the back drops the oldest item when full;
 * `requeue` puts an item that could not be posted back at the front, so it goes out first next time (when full,
 * the requeued item is itself the oldest and is the one dropped).
 */
export class ResultBuffer<T> {
  private readonly slots: (T | undefined)[];
  private head = 0;
  private count = 0;
  private droppedCount = 0;

  constructor(readonly capacity: number = AGENT_BUFFER_RESULTS_MAX) {
    assert(Number.isSafeInteger(capacity) && capacity > 0, 'buffer capacity is a positive integer');
    this.slots = new Array<T | undefined>(capacity).fill(undefined);
  }

  /** Items waiting. */
  get size(): number {
    return this.count;
  }

  /** Items dropped because the buffer was full, since it was made. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Appends at the back; when full, the oldest item is dropped first and counted. */
  push(item: T): void {
    if (this.count === this.capacity) {
      this.shift();
      this.droppedCount += 1;
    }
    this.slots[(this.head + this.count) % this.capacity] = item;
    this.count += 1;
  }

  /** Puts an item back at the front (a post that failed); when full it is the oldest, so it is dropped and counted. */
  requeue(item: T): void {
    if (this.count === this.capacity) {
      this.droppedCount += 1;
      return;
    }
    this.head = (this.head + this.capacity - 1) % this.capacity;
    this.slots[this.head] = item;
    this.count += 1;
  }

  /** Removes and returns the front item, or undefined when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.slots[this.head];
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) % this.capacity;
    this.count -= 1;
    return item;
  }

  /** The items front to back (for status and tests). */
  toArray(): T[] {
    const items: T[] = [];
    for (let i = 0; i < this.count; i++) items.push(this.slots[(this.head + i) % this.capacity] as T);
    return items;
  }
}
