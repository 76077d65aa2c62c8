// Owns a sorted set of names kept as a list of bounded sorted blocks: ordered scans from any name, and cheap inserts however large the set grows.

/**
 * Names per block before it splits in two. An insert or delete moves at most this many entries
 * (one flat sorted array would move up to all of them, so a batch of 100,000 new series in a
 * tenant of a million would move tens of billions); finding a block stays a binary search.
 */
const BLOCK_NAMES_MAX = 1024;

/** The read side of SortedNames. */
export interface SortedNameView {
  /** How many names the set holds. */
  readonly size: number;
  /**
   * The names from `start` on, in UTF-16 code unit order (JavaScript's `<`): `start` itself
   * included when `inclusive` and present. The set must not change while the iterator is in use.
   */
  namesFrom(start: string, inclusive: boolean): Generator<string, void, undefined>;
}

/** A set of distinct names in UTF-16 code unit order. */
export class SortedNames implements SortedNameView {
  /** Non-empty, each sorted, and every name of a block below every name of the next. */
  private readonly blocks: string[][] = [];
  private count = 0;

  /** A set of `names` (distinct), sorted once rather than inserted one by one. */
  static of(names: Iterable<string>): SortedNames {
    const set = new SortedNames();
    const sorted = [...names].sort();
    // Half-full blocks, so the inserts that follow a load do not split every block at once.
    const step = BLOCK_NAMES_MAX / 2;
    for (let i = 0; i < sorted.length; i += step) set.blocks.push(sorted.slice(i, i + step));
    set.count = sorted.length;
    return set;
  }

  get size(): number {
    return this.count;
  }

  /** Adds `name`; false when it was already there. */
  add(name: string): boolean {
    if (this.blocks.length === 0) {
      this.blocks.push([name]);
      this.count = 1;
      return true;
    }
    // Past the last block's end, a name joins the last block.
    const b = Math.min(this.blockAtOrAfter(name, true), this.blocks.length - 1);
    const block = this.blocks[b] as string[];
    const at = lowerBound(block, name);
    if (block[at] === name) return false;
    block.splice(at, 0, name);
    this.count++;
    if (block.length > BLOCK_NAMES_MAX) this.blocks.splice(b + 1, 0, block.splice(block.length >> 1));
    return true;
  }

  /** Removes `name`; false when it was not there. */
  delete(name: string): boolean {
    const b = this.blockAtOrAfter(name, true);
    const block = this.blocks[b];
    if (block === undefined) return false;
    const at = lowerBound(block, name);
    if (block[at] !== name) return false;
    block.splice(at, 1);
    this.count--;
    if (block.length === 0) this.blocks.splice(b, 1);
    return true;
  }

  *namesFrom(start: string, inclusive: boolean): Generator<string, void, undefined> {
    let b = this.blockAtOrAfter(start, inclusive);
    if (b === this.blocks.length) return;
    const firstBlock = this.blocks[b] as string[];
    let i = inclusive ? lowerBound(firstBlock, start) : upperBound(firstBlock, start);
    for (; b < this.blocks.length; b++, i = 0) {
      const block = this.blocks[b] as string[];
      for (; i < block.length; i++) yield block[i] as string;
    }
  }

  /** The first block whose last name is >= `name` (> when not `inclusive`); blocks.length when none. */
  private blockAtOrAfter(name: string, inclusive: boolean): number {
    let lo = 0;
    let hi = this.blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const block = this.blocks[mid] as string[];
      const last = block[block.length - 1] as string;
      if (inclusive ? last < name : last <= name) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** The first index whose name is >= `name`. */
function lowerBound(sorted: readonly string[], name: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as string) < name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index whose name is > `name`. */
function upperBound(sorted: readonly string[], name: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as string) <= name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
