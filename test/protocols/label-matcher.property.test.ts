// Owns the property tests of the label matchers: Prometheus semantics (missing label = empty, full anchoring, complements), the RE2 translation's two forms agreeing, and every refusal being PROMETHEUS_MATCHER_INVALID.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/core/errors.js';
import { compileMatchers, compilePattern } from '../../src/protocols/label-matcher.js';
import { translateRe2 } from '../../src/protocols/re2-pattern.js';
import type { LabelMatcher } from '../../src/wire/prom-read-codec.js';
import type { SeriesIdentity } from '../../src/wire/series-name.js';

const RUNS = 1000;

/** Characters that stress the translation: regex syntax, newlines, astral and non-ASCII letters, RE2-only white space. */
const AWKWARD = ['.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '^', '$', '\\', '/', '-', '\n', '\r', '\v', ' ', 'é', 'α', '😀', 'a', 'b', 'Z', '0'];

const anyValue = fc.array(fc.oneof(fc.constantFrom(...AWKWARD), fc.string({ maxLength: 3 })), { maxLength: 8 }).map((parts) => parts.join(''));

const labelName = fc.constantFrom('job', 'instance', 'le', 'Zone', 'mode');

/** A series: a metric name and sorted labels with non-empty values (as parseSeriesMetricName yields). */
const series: fc.Arbitrary<SeriesIdentity> = fc
  .record({
    name: fc.constantFrom('up', 'http_requests_total', 'cpu.load'),
    labels: fc.uniqueArray(fc.record({ name: labelName, value: anyValue.filter((v) => v !== '') }), { selector: (l) => l.name, maxLength: 4 }),
  })
  .map(({ name, labels }) => ({ name, labels: [...labels].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) }));

/** RE2 text matching exactly `value`: every ASCII punctuation escaped (RE2 makes `\` + punctuation literal), the rest as is. */
function re2Literal(value: string): string {
  return [...value].map((c) => (c.length === 1 && c.charCodeAt(0) < 0x80 && /[^0-9A-Za-z]/.test(c) && c !== '\n' && c !== '\r' && c !== '\v' ? `\\${c}` : c)).join('');
}

function valueOf(s: SeriesIdentity, name: string): string {
  return name === '__name__' ? s.name : (s.labels.find((l) => l.name === name)?.value ?? '');
}

/** Small RE2 patterns built from pieces whose two JavaScript forms must agree (no nested repetition). */
const atom = fc.constantFrom('a', 'b', '😀', 'é', '.', '[^a]', '[a-c]', '\\S', '\\s', '\\D', '\\W', '\\w', '[[:alpha:]]', '\\x{1F600}', '\\.', '[^\\n]', '(?:a|😀)', '\\Q.*\\E');
const piece = fc.tuple(atom, fc.constantFrom('', '*', '+', '?', '{1,2}', '*?')).map(([a, q]) => a + q);
const pattern = fc.array(fc.array(piece, { minLength: 1, maxLength: 3 }).map((p) => p.join('')), { minLength: 1, maxLength: 2 }).map((alts) => alts.join('|'));
const subject = fc.array(fc.constantFrom('a', 'b', 'c', '😀', 'é', '\n', ' ', '\v', '.', '*'), { maxLength: 6 }).map((p) => p.join(''));

/** Case-insensitive patterns over ASCII letters, classes and the two letters outside ASCII that fold into ASCII. */
const ciAtom = fc.constantFrom('a', 'B', 'k', 's', 'é', '1', '.', '[a-c]', '[^k]', '[K-S]', '\\w', '[[:upper:]]', '[^[:lower:]]', '\\d', '[\\x{17f}]');
const ciPattern = fc
  .array(fc.tuple(ciAtom, fc.constantFrom('', '*', '+', '?')).map(([a, q]) => a + q), { minLength: 1, maxLength: 4 })
  .map((pieces) => `(?i)${pieces.join('')}`)
  .filter((p) => !p.includes('é'));
const ciSubject = fc.array(fc.constantFrom('a', 'A', 'b', 'B', 'k', 'K', '\u212a', 's', 'S', '\u017f', 'é', 'É', '1', '😀', '_'), { maxLength: 5 }).map((p) => p.join(''));

describe('compileMatchers', () => {
  it('EQ and NEQ are complements, and a missing label reads as the empty value', () => {
    fc.assert(
      fc.property(series, fc.constantFrom('__name__', 'job', 'instance', 'absent'), fc.oneof(anyValue, fc.constant('')), (s, name, value) => {
        const eq = compileMatchers([{ type: 'EQ', name, value }])(s);
        const neq = compileMatchers([{ type: 'NEQ', name, value }])(s);
        expect(eq).toBe(!neq);
        expect(eq).toBe(valueOf(s, name) === value);
      }),
      { numRuns: RUNS },
    );
  });

  it('RE of an escaped literal selects exactly what EQ selects (full anchoring), and NRE the rest', () => {
    fc.assert(
      fc.property(series, fc.constantFrom('__name__', 'job', 'instance', 'absent'), fc.oneof(anyValue, fc.constant('')), (s, name, value) => {
        const eq = compileMatchers([{ type: 'EQ', name, value }])(s);
        expect(compileMatchers([{ type: 'RE', name, value: re2Literal(value) }])(s)).toBe(eq);
        expect(compileMatchers([{ type: 'NRE', name, value: re2Literal(value) }])(s)).toBe(!eq);
      }),
      { numRuns: RUNS },
    );
  });

  it('a conjunction holds exactly when every matcher holds alone', () => {
    const matcher: fc.Arbitrary<LabelMatcher> = fc.record({
      type: fc.constantFrom('EQ' as const, 'NEQ' as const, 'RE' as const, 'NRE' as const),
      name: fc.constantFrom('__name__', 'job', 'absent'),
      value: fc.constantFrom('', 'up', 'a.*', '.+', 'x|y', '😀?'),
    });
    fc.assert(
      fc.property(series, fc.array(matcher, { maxLength: 4 }), (s, matchers) => {
        const all = compileMatchers(matchers)(s);
        expect(all).toBe(matchers.every((m) => compileMatchers([m])(s)));
      }),
      { numRuns: RUNS },
    );
  });

  it('RE and NRE are complements for every accepted pattern', () => {
    fc.assert(
      fc.property(series, pattern, (s, p) => {
        const re = compileMatchers([{ type: 'RE', name: 'job', value: p }])(s);
        expect(compileMatchers([{ type: 'NRE', name: 'job', value: p }])(s)).toBe(!re);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('translateRe2', () => {
  it('writes a code-unit form that matches exactly what the Unicode form matches', () => {
    fc.assert(
      fc.property(pattern, fc.array(subject, { minLength: 1, maxLength: 8 }), (p, subjects) => {
        const js = translateRe2(p);
        const unicode = new RegExp(`^(?:${js.unicode})$`, 'u');
        if (js.codeUnits === undefined) return;
        const codeUnits = new RegExp(`^(?:${js.codeUnits})$`);
        for (const s of subjects) expect(codeUnits.test(s), `${p} on ${JSON.stringify(s)}`).toBe(unicode.test(s));
      }),
      { numRuns: RUNS },
    );
  });

  it('compilePattern agrees with the Unicode form on every subject, whichever engine it picked', () => {
    fc.assert(
      fc.property(pattern, fc.array(subject, { minLength: 1, maxLength: 8 }), (p, subjects) => {
        const unicode = new RegExp(`^(?:${translateRe2(p).unicode})$`, 'u');
        const test = compilePattern(p);
        for (const s of subjects) expect(test(s)).toBe(unicode.test(s));
      }),
      { numRuns: RUNS },
    );
  });

  it('spells (?i) out in the code-unit form exactly as Unicode simple case folding matches', () => {
    fc.assert(
      fc.property(ciPattern, fc.array(ciSubject, { minLength: 1, maxLength: 8 }), (p, subjects) => {
        const js = translateRe2(p);
        expect(js.codeUnits, p).toBeDefined();
        const unicode = new RegExp(`^(?:${js.unicode})$`, 'iu');
        const codeUnits = new RegExp(`^(?:${js.codeUnits})$`);
        for (const s of subjects) expect(codeUnits.test(s), `${p} on ${JSON.stringify(s)}`).toBe(unicode.test(s));
      }),
      { numRuns: RUNS },
    );
  });

  it('accepts any string or refuses it with PROMETHEUS_MATCHER_INVALID, never another error', () => {
    const text = fc.array(fc.oneof(fc.constantFrom(...AWKWARD, '\\1', '(?=', '(?i)', '(?P<', '>', '\\p{', '\\x{', ':]', '[:', '{1001}', '\\C'), fc.string({ maxLength: 2 })), { maxLength: 10 });
    fc.assert(
      fc.property(
        text.map((p) => p.join('')),
        fc.array(subject, { maxLength: 3 }),
        (p, subjects) => {
          let test: ((value: string) => boolean) | undefined;
          try {
            test = compilePattern(p);
          } catch (error) {
            expect(isStrataError(error) && error.code === 'PROMETHEUS_MATCHER_INVALID', String(error)).toBe(true);
            return;
          }
          for (const s of subjects) expect(typeof test(s)).toBe('boolean');
        },
      ),
      { numRuns: RUNS * 3 },
    );
  });
});
