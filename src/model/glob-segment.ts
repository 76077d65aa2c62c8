// Owns one `*`-free piece of a glob (literal code units and `?`): matching it at a position, and finding its leftmost occurrence in time linear in the text.

/** The UTF-16 code unit of `?`. */
const ANY_CODE = 0x3f;
/** Bits in one word of the bit-parallel state. */
const WORD_BITS = 32;
/** Code units below this get their mask from an array; the rest from a map (names are mostly ASCII). */
const DIRECT_CODES = 128;

/**
 * A `*`-free piece of a glob: `?` matches any one UTF-16 code unit, every other code unit itself.
 * Finding it in a text never backtracks: a piece without `?` uses the engine's string search, a
 * piece with `?` runs the shift-and automaton (one bit per position of the piece), so the cost is
 * the text length times ceil(piece length / 32) words.
 */
export class GlobSegment {
  /** The piece as written in the glob. */
  readonly text: string;
  /** Its length in UTF-16 code units; a match covers exactly this many. */
  readonly length: number;
  private readonly wildcards: boolean;
  /** Shift-and masks (only for a piece with `?`): bit i of a code's mask is set when position i accepts that code. */
  private readonly directMasks: readonly Uint32Array[] = [];
  private readonly otherMasks = new Map<number, Uint32Array>();
  private readonly anyMask: Uint32Array = new Uint32Array(0);
  /** Automaton state, reused between searches (a search runs to completion before the next starts). */
  private readonly state: Uint32Array = new Uint32Array(0);

  constructor(text: string) {
    this.text = text;
    this.length = text.length;
    this.wildcards = text.includes('?');
    if (!this.wildcards) return;
    const words = Math.ceil(this.length / WORD_BITS);
    this.state = new Uint32Array(words);
    this.anyMask = new Uint32Array(words);
    for (let i = 0; i < this.length; i++) if (text.charCodeAt(i) === ANY_CODE) setBit(this.anyMask, i);
    const direct: Uint32Array[] = new Array<Uint32Array>(DIRECT_CODES).fill(this.anyMask);
    for (let i = 0; i < this.length; i++) {
      const code = text.charCodeAt(i);
      if (code === ANY_CODE) continue;
      let mask = code < DIRECT_CODES ? direct[code] : this.otherMasks.get(code);
      if (mask === undefined || mask === this.anyMask) {
        mask = this.anyMask.slice();
        if (code < DIRECT_CODES) direct[code] = mask;
        else this.otherMasks.set(code, mask);
      }
      setBit(mask, i);
    }
    this.directMasks = direct;
  }

  /** Whether the piece matches `text` at `at` (the caller keeps `at + length` within the text). */
  matchesAt(text: string, at: number): boolean {
    if (!this.wildcards) return text.startsWith(this.text, at);
    for (let i = 0; i < this.length; i++) {
      const code = this.text.charCodeAt(i);
      if (code !== ANY_CODE && code !== text.charCodeAt(at + i)) return false;
    }
    return true;
  }

  /** The leftmost position p >= from where the piece matches with p + length <= end, or -1. */
  indexIn(text: string, from: number, end: number): number {
    if (from + this.length > end) return -1;
    if (!this.wildcards) {
      const found = text.indexOf(this.text, from);
      return found !== -1 && found + this.length <= end ? found : -1;
    }
    return this.shiftAnd(text, from, end);
  }

  /** Shift-and over text[from, end): after reading code unit i, bit k of the state says the piece's first k+1 units end at i. */
  private shiftAnd(text: string, from: number, end: number): number {
    const state = this.state;
    const words = state.length;
    const lastWord = words - 1;
    const lastBit = 1 << ((this.length - 1) % WORD_BITS);
    state.fill(0);
    for (let i = from; i < end; i++) {
      const code = text.charCodeAt(i);
      const mask = (code < DIRECT_CODES ? this.directMasks[code] : this.otherMasks.get(code)) ?? this.anyMask;
      // A new partial match may start at every unit: the 1 shifted into bit 0.
      let carry = 1;
      for (let w = 0; w < words; w++) {
        const word = state[w] as number;
        state[w] = ((word << 1) | carry) & (mask[w] as number);
        carry = word >>> (WORD_BITS - 1);
      }
      if (((state[lastWord] as number) & lastBit) !== 0) return i - this.length + 1;
    }
    return -1;
  }
}

function setBit(mask: Uint32Array, bit: number): void {
  const word = Math.floor(bit / WORD_BITS);
  mask[word] = (mask[word] as number) | (1 << bit % WORD_BITS);
}
