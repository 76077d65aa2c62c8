// Owns one series' buffer of recent points in one window: append, then sort and de-duplicate.
import type { SampleColumns, StringColumns } from '../model/bucket.js';
import { OWN_ARRAYS, type DoubleSource } from './double-slabs.js';

const INITIAL_CAPACITY = 16;
/** Past this many out-of-order steps a buffer is sorted by comparison rather than by insertion. */
const INSERTION_SORT_DESCENTS_MAX = 64;

/** Points of one series in one head window, in arrival order until finalized. */
export class HeadBuffer {
  timestampsMs: Float64Array;
  values: Float64Array;
  length = 0;
  /** String values by buffer position; the value slot holds NaN. */
  strings: Map<number, string> | null = null;
  /** True while every append was later than the one before (the common case: no sort needed). */
  ascending = true;

  private readonly room: DoubleSource;

  /**
   * `capacityHint`: how many points the series had in its previous window (saves regrowing);
   * `room`: where the columns come from (the head's slabs).
   */
  constructor(capacityHint = INITIAL_CAPACITY, room: DoubleSource = OWN_ARRAYS) {
    const capacity = Math.max(INITIAL_CAPACITY, capacityHint);
    this.room = room;
    this.timestampsMs = room.take(capacity);
    this.values = room.take(capacity);
  }

  /** Appends a point; a NaN value with `text` set is a string point. */
  append(timestampMs: number, value: number, text: string | undefined): void {
    const n = this.length;
    if (n === this.timestampsMs.length) this.grow();
    if (n > 0 && timestampMs <= (this.timestampsMs[n - 1] as number)) this.ascending = false;
    this.timestampsMs[n] = timestampMs;
    this.values[n] = value;
    if (text !== undefined) (this.strings ??= new Map()).set(n, text);
    this.length = n + 1;
  }

  private grow(): void {
    const ts = this.room.take(this.timestampsMs.length * 2);
    ts.set(this.timestampsMs);
    this.timestampsMs = ts;
    const vs = this.room.take(this.values.length * 2);
    vs.set(this.values);
    this.values = vs;
  }

  /**
   * samples(), except that the columns are views of the buffer's own when they need no sort or
   * de-duplication (the common case), not copies: for a caller done with them before the buffer
   * changes again, as sealing is (it encodes them at once). Copying a window's two columns cost
   * two backing-store allocations a series, about a tenth of a seal's time.
   */
  samplesView(): SampleColumns {
    const n = this.length;
    if (this.ascending && this.strings === null) {
      return { length: n, timestampsMs: this.timestampsMs.subarray(0, n), values: this.values.subarray(0, n), strings: null };
    }
    return this.samples();
  }

  /** The samples, ascending, one per timestamp (the last written wins), strings apart. */
  samples(): SampleColumns {
    const n = this.length;
    if (this.ascending && this.strings === null) {
      return { length: n, timestampsMs: this.timestampsMs.slice(0, n), values: this.values.slice(0, n), strings: null };
    }
    const order = this.ascending ? identityOrder(n) : sortedOrder(this.timestampsMs, n);
    const ts = new Float64Array(n);
    const vs = new Float64Array(n);
    const strTs: number[] = [];
    const strVs: string[] = [];
    let count = 0;
    for (let k = 0; k < n; k++) {
      const i = order[k] as number;
      const t = this.timestampsMs[i] as number;
      const next = order[k + 1];
      if (next !== undefined && this.timestampsMs[next] === t) continue;
      const text = this.strings?.get(i);
      if (text !== undefined) {
        strTs.push(t);
        strVs.push(text);
      } else {
        ts[count] = t;
        vs[count] = this.values[i] as number;
        count++;
      }
    }
    const strings: StringColumns | null = strTs.length > 0 ? { length: strTs.length, timestampsMs: Float64Array.from(strTs), values: strVs } : null;
    return { length: count, timestampsMs: ts.slice(0, count), values: vs.slice(0, count), strings };
  }
}

function identityOrder(n: number): Int32Array {
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  return order;
}

/**
 * Positions ordered by time, equal times by position (a stable sort), so the last position of a
 * timestamp is its last write. Insertion sort: points arrive nearly in order (concurrent writers
 * swap neighbouring batches), which it sorts in about linear time, without the comparator calls
 * and boxed indices of Array.prototype.sort.
 */
function sortedOrder(timestampsMs: Float64Array, n: number): Int32Array {
  const order = identityOrder(n);
  let descents = 0;
  for (let i = 1; i < n; i++) if ((timestampsMs[i] as number) < (timestampsMs[i - 1] as number)) descents++;
  if (descents > INSERTION_SORT_DESCENTS_MAX) {
    // Far from ordered (a reversed backfill, say): a comparison sort keeps it O(n log n).
    const boxed = Array.from(order).sort((a, b) => (timestampsMs[a] as number) - (timestampsMs[b] as number) || a - b);
    return Int32Array.from(boxed);
  }
  for (let k = 1; k < n; k++) {
    const i = order[k] as number;
    const t = timestampsMs[i] as number;
    let j = k - 1;
    // Strictly greater only: an equal time stays after the earlier write (stability).
    while (j >= 0 && (timestampsMs[order[j] as number] as number) > t) {
      order[j + 1] = order[j] as number;
      j--;
    }
    order[j + 1] = i;
  }
  return order;
}
