// Owns the scheduler's min-heap of due times: one binary heap over every scheduled slot, so one timer serves them all.

/** Something with a due time; its `dueMs` must not change while it is in a heap. */
export interface Due {
  readonly dueMs: number;
}

/**
 * A binary min-heap ordered by `dueMs` (ties in no set order). Push and pop are O(log n); the
 * scheduler keeps one for every (check, zone) slot instead of a timer per check.
 */
export class ScheduleHeap<T extends Due> {
  private items: T[] = [];

  /** How many items the heap holds. */
  get size(): number {
    return this.items.length;
  }

  /** The item due first, without removing it. */
  peek(): T | undefined {
    return this.items[0];
  }

  /** Adds an item. */
  push(item: T): void {
    const items = this.items;
    items.push(item);
    let at = items.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      const above = items[parent] as T;
      if (above.dueMs <= item.dueMs) break;
      items[at] = above;
      at = parent;
    }
    items[at] = item;
  }

  /** Removes and returns the item due first. */
  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    items[0] = last;
    this.siftDown(0);
    return top;
  }

  /** Keeps only the items `keep` accepts, rebuilding the heap in O(n). */
  retain(keep: (item: T) => boolean): void {
    const kept = this.items.filter(keep);
    // Floyd's build: sift every inner node down, from the last one up.
    this.items = kept;
    for (let at = (kept.length >> 1) - 1; at >= 0; at--) this.siftDown(at);
  }

  /** Moves the item at `start` down to where it belongs. */
  private siftDown(start: number): void {
    const items = this.items;
    const item = items[start] as T;
    const count = items.length;
    let at = start;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= count) break;
      const right = left + 1;
      const child = right < count && (items[right] as T).dueMs < (items[left] as T).dueMs ? right : left;
      const below = items[child] as T;
      if (below.dueMs >= item.dueMs) break;
      items[at] = below;
      at = child;
    }
    items[at] = item;
  }
}
