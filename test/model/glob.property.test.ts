// Properties of glob matching: the linear matcher agrees with a memoised dynamic-programming matcher and with the old regular expression.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../src/model/glob.js';

/** The reference: glob[i..] matches name[j..], memoised over (i, j), on UTF-16 code units. */
function referenceMatches(glob: string, name: string): boolean {
  const memo = new Map<number, boolean>();
  const at = (i: number, j: number): boolean => {
    const key = i * (name.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (i === glob.length) result = j === name.length;
    else if (glob[i] === '*') result = at(i + 1, j) || (j < name.length && at(i, j + 1));
    else result = j < name.length && (glob[i] === '?' || glob[i] === name[j]) && at(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return at(0, 0);
}

/** The regular expression the matcher replaced (safe on these short inputs). */
function oldRegExpMatches(glob: string, name: string): boolean {
  let source = '';
  for (const ch of glob) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's').test(name);
}

// A small alphabet, so globs and names often nearly match; regex metacharacters, a newline and
// both halves of a surrogate pair must all match only themselves.
const LETTERS = ['a', 'b', '.', '\\', '(', '[', '^', '$', '+', '|', '\n', '\ud83d', '\ude00'];
const nameOf = (maxLength: number) => fc.string({ unit: fc.constantFrom(...LETTERS), maxLength });
const globOf = (maxLength: number) => fc.string({ unit: fc.constantFrom(...LETTERS, '*', '*', '?'), maxLength });

/** A name built from the glob (so it matches): each `*` replaced by a random run, each `?` by a random unit. */
const matchingPair = globOf(12).chain((glob) =>
  fc.tuple(fc.constant(glob), fc.array(nameOf(4), { minLength: glob.length, maxLength: glob.length }), fc.array(fc.constantFrom(...LETTERS), { minLength: glob.length, maxLength: glob.length })),
);

describe('compileGlob', () => {
  it('agrees with the dynamic-programming reference and the old regular expression', () => {
    fc.assert(
      fc.property(globOf(12), nameOf(16), (glob, name) => {
        const expected = referenceMatches(glob, name);
        expect(compileGlob(glob).matches(name)).toBe(expected);
        expect(oldRegExpMatches(glob, name)).toBe(expected);
      }),
      { numRuns: 5000 },
    );
  });

  it('matches every name built from the glob by filling its wildcards', () => {
    fc.assert(
      fc.property(matchingPair, ([glob, runs, units]) => {
        let name = '';
        for (let i = 0; i < glob.length; i++) {
          const ch = glob[i] as string;
          name += ch === '*' ? (runs[i] as string) : ch === '?' ? (units[i] as string) : ch;
        }
        expect(compileGlob(glob).matches(name)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with the reference on tiny globs and names, where pieces crowd each other', () => {
    const tiny = (units: string[], maxLength: number) => fc.string({ unit: fc.constantFrom(...units), maxLength });
    fc.assert(
      fc.property(tiny(['a', 'b', '*', '?'], 6), tiny(['a', 'b'], 6), (glob, name) => {
        expect(compileGlob(glob).matches(name)).toBe(referenceMatches(glob, name));
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees with the reference on long `?` pieces (more than one 32-bit word of the automaton)', () => {
    const unit = fc.constantFrom('a', 'b', '?');
    const piece = fc.string({ unit, minLength: 30, maxLength: 100 });
    // Names that hold the piece, filled in, perhaps with one unit flipped, so partial matches run
    // long and cross the automaton's word boundaries.
    const nearMatch = (middle: string) =>
      fc
        .tuple(
          fc.string({ unit: fc.constantFrom('a', 'b'), maxLength: 40 }),
          fc.array(fc.constantFrom('a', 'b'), { minLength: middle.length, maxLength: middle.length }),
          fc.option(fc.nat(middle.length - 1)),
          fc.string({ unit: fc.constantFrom('a', 'b'), maxLength: 40 }),
        )
        .map(([before, fill, flip, after]) => {
          const units = [...middle].map((ch, i) => (ch === '?' ? (fill[i] as string) : ch));
          if (flip !== null) units[flip] = units[flip] === 'a' ? 'b' : 'a';
          return before + units.join('') + after;
        });
    const pair = piece.chain((middle) => fc.tuple(fc.constant(middle), nearMatch(middle), fc.boolean()));
    fc.assert(
      fc.property(pair, ([middle, name, anchored]) => {
        const glob = anchored ? `a${middle}*` : `*${middle}*`;
        expect(compileGlob(glob).matches(name)).toBe(referenceMatches(glob, name));
      }),
      { numRuns: 2000 },
    );
  });

  it('has a literal prefix that every match starts with', () => {
    fc.assert(
      fc.property(globOf(12), nameOf(16), (glob, name) => {
        const matcher = compileGlob(glob);
        expect(matcher.literalPrefix.includes('*') || matcher.literalPrefix.includes('?')).toBe(false);
        expect(glob.startsWith(matcher.literalPrefix)).toBe(true);
        if (matcher.matches(name)) expect(name.startsWith(matcher.literalPrefix)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
