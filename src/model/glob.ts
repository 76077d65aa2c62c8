// Owns metric-name glob patterns: `*` matches any run of characters, `?` exactly one, matched without backtracking.
import { GlobSegment } from './glob-segment.js';

/**
 * A compiled glob. `*` matches any run of UTF-16 code units (empty too), `?` exactly one, and
 * every other code unit itself, newlines included. Matching a name costs at most its length
 * times the glob's length, never more: a regular expression for `*a*a*a*a*b` backtracks
 * exponentially and froze the server for seconds on one 200-character name.
 */
export interface GlobMatcher {
  /** The glob it was compiled from. */
  readonly glob: string;
  /** The code units before the first `*` or `?`: every matching name starts with them. */
  readonly literalPrefix: string;
  /** Whether the whole of `name` matches the glob. */
  matches(name: string): boolean;
}

/** Compiles a glob (see GlobMatcher) once, to test many names. */
export function compileGlob(glob: string): GlobMatcher {
  return new SegmentedGlob(glob);
}

/**
 * The glob split on `*` into pieces: the first must match at the start of the name, the last at
 * its end, and the middle ones in order in between. Taking each middle piece at its leftmost
 * occurrence is never worse than any later one (it leaves the most room for the rest), so one
 * left-to-right pass decides the match and nothing is ever retried.
 */
class SegmentedGlob implements GlobMatcher {
  readonly glob: string;
  readonly literalPrefix: string;
  private readonly first: GlobSegment;
  private readonly last: GlobSegment;
  private readonly middle: readonly GlobSegment[];
  private readonly hasStar: boolean;
  /** The fewest code units a match needs: the pieces' lengths; `*` may match nothing. */
  private readonly minLength: number;

  constructor(glob: string) {
    this.glob = glob;
    const wildcard = glob.search(/[*?]/);
    this.literalPrefix = wildcard === -1 ? glob : glob.slice(0, wildcard);
    const pieces = glob.split('*');
    this.hasStar = pieces.length > 1;
    this.first = new GlobSegment(pieces[0] as string);
    this.last = this.hasStar ? new GlobSegment(pieces[pieces.length - 1] as string) : this.first;
    this.middle = pieces
      .slice(1, -1)
      .filter((piece) => piece !== '')
      .map((piece) => new GlobSegment(piece));
    this.minLength = glob.length - (pieces.length - 1);
  }

  matches(name: string): boolean {
    if (!this.hasStar) return name.length === this.first.length && this.first.matchesAt(name, 0);
    // Also keeps the first and last pieces from overlapping.
    if (name.length < this.minLength) return false;
    const end = name.length - this.last.length;
    if (!this.first.matchesAt(name, 0) || !this.last.matchesAt(name, end)) return false;
    let at = this.first.length;
    for (const piece of this.middle) {
      const found = piece.indexIn(name, at, end);
      if (found === -1) return false;
      at = found + piece.length;
    }
    return true;
  }
}
