// Owns last-write-wins inside one batch: which points a later point of the same series and timestamp replaces.

/** The smallest table; it doubles until it holds twice the batch. */
const TABLE_SLOTS_MIN = 1024;
/** Marks an empty slot in the table of point indexes. */
const EMPTY = -1;

/**
 * Finds, in one pass over a batch, the points that a later point of the same series and
 * timestamp replaces (the engine keeps the later one). Points go to ClickHouse without a version:
 * ReplacingMergeTree keeps the row inserted last, so across batches the insert order decides, and
 * inside one batch (one block, whose rows ClickHouse sorts) only one row per key may be sent. An
 * open-addressing table of point indexes over reused typed arrays: no allocation per point.
 */
export class BatchDedupe {
  private slots = new Int32Array(TABLE_SLOTS_MIN).fill(EMPTY);
  private replaced = new Uint8Array(TABLE_SLOTS_MIN);

  /**
   * The points to leave out (1 = replaced by a later point of the batch), or null when the batch
   * has no repeated key. Valid until the next call.
   */
  replacedPoints(seriesIds: Uint32Array, timestampsMs: Float64Array, length: number): Uint8Array | null {
    this.reserve(length);
    const slots = this.slots;
    const mask = slots.length - 1;
    slots.fill(EMPTY);
    let found = false;
    for (let i = 0; i < length; i++) {
      const id = seriesIds[i] as number;
      const t = timestampsMs[i] as number;
      // Timestamps are safe integers: mix both 32-bit halves with the series id.
      let h = Math.imul((t % 4294967296) ^ Math.imul(id, 0x9e3779b1), 0x85ebca6b) ^ Math.floor(t / 4294967296);
      h = (h ^ (h >>> 15)) & mask;
      for (;;) {
        const j = slots[h] as number;
        if (j === EMPTY) {
          slots[h] = i;
          break;
        }
        if (seriesIds[j] === id && timestampsMs[j] === t) {
          if (!found) this.replaced.fill(0, 0, length);
          found = true;
          this.replaced[j] = 1;
          slots[h] = i;
          break;
        }
        h = (h + 1) & mask;
      }
    }
    return found ? this.replaced : null;
  }

  private reserve(length: number): void {
    let size = this.slots.length;
    while (size < length * 2) size *= 2;
    if (size !== this.slots.length) this.slots = new Int32Array(size);
    if (this.replaced.length < length) this.replaced = new Uint8Array(size);
  }
}
