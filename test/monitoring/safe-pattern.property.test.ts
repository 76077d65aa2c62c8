// Properties of compileSafePattern: literals are accepted and match themselves, nested quantifiers never compile, accepted patterns keep RegExp's meaning.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/core/errors.js';
import { PATTERN_LENGTH_MAX } from '../../src/monitoring/monitoring-limits.js';
import { patternWeight } from '../../src/monitoring/pattern-weight.js';
import { compileSafePattern, matchSafe } from '../../src/monitoring/safe-pattern.js';

const escape = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
const atom = fc.constantFrom('a', 'b', '.', '\\d', '\\w', '[ab]', '[^a]', '(?:ab)', '(?:a|b)');
const quantifier = fc.constantFrom('+', '*', '{1,3}', '{2,}');
/** A pattern built from atoms, each with at most one quantifier (star height 1), at most a few repetitions. */
const flatPattern = fc
  .array(fc.tuple(atom, fc.option(fc.constantFrom('+', '*', '?', '{1,3}'), { nil: undefined })), { minLength: 1, maxLength: 8 })
  .map((parts) => parts.map(([a, q]) => a + (q ?? '')).join(''));

describe('compileSafePattern properties', () => {
  it('accepts any escaped literal that fits, and it matches the literal itself', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        const source = escape(text);
        fc.pre(source.length <= PATTERN_LENGTH_MAX);
        const re = compileSafePattern(source);
        expect(matchSafe(re, `xx${text}yy`)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses every nested quantifier (X q1)q2 as unsafe', () => {
    fc.assert(
      fc.property(flatPattern, quantifier, quantifier, fc.constantFrom('(', '(?:'), (inner, q1, q2, open) => {
        const source = `${open}${inner.length > 0 ? `(?:${inner})` : 'a'}${q1})${q2}`;
        try {
          compileSafePattern(source);
          expect.unreachable(`${source} compiled`);
        } catch (error) {
          expect(isStrataError(error) && error.code).toBe('MONITORING_PATTERN_UNSAFE');
          expect(isStrataError(error) && error.details['reason']).toBe('unsafe');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('an accepted pattern matches exactly what the plain RegExp matches', () => {
    let accepted = 0;
    fc.assert(
      fc.property(flatPattern, fc.string({ unit: fc.constantFrom('a', 'b', '1', ' ', 'x'), maxLength: 30 }), (source, text) => {
        let re: RegExp;
        try {
          re = compileSafePattern(source);
        } catch (error) {
          expect(isStrataError(error) && error.code).toBe('MONITORING_PATTERN_UNSAFE');
          return;
        }
        accepted += 1;
        expect(matchSafe(re, text)).toBe(new RegExp(source).test(text));
      }),
      { numRuns: 500 },
    );
    expect(accepted).toBeGreaterThan(250);
  });

  it('throws nothing but MONITORING_PATTERN_UNSAFE for arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '(', ')', '[', ']', '{', '}', '*', '+', '?', '|', '\\', '1', ',', '^', '$', '<', '=', '!'), maxLength: 40 }), (source) => {
        try {
          compileSafePattern(source);
        } catch (error) {
          expect(isStrataError(error) && error.code).toBe('MONITORING_PATTERN_UNSAFE');
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('patternWeight ends with a non-negative integer on any text, and is at least the atoms of a plain literal', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '(', ')', '[', ']', '{', '}', '*', '+', '?', '|', '\\', 'u', 'x', '1', ','), maxLength: 60 }), (source) => {
        const weight = patternWeight(source);
        expect(Number.isSafeInteger(weight) && weight >= 0).toBe(true);
      }),
      { numRuns: 1000 },
    );
    fc.assert(fc.property(fc.stringMatching(/^[a-z0-9 ]{0,40}$/), (literal) => {
        expect(patternWeight(literal)).toBe(literal.length);
      }),
    );
  });
});
