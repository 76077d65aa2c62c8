// Owns the property tests of the series-name scheme: format and parse are inverse, the format is canonical, every string parses, bad names are refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Label, parseSeriesMetricName, seriesMetricName, seriesProblem } from '../../src/wire/series-name.js';

const RUNS = 3000;

/** Characters that stress the escaping and the delimiters. */
const AWKWARD = ['"', '\\', '\n', ',', '}', '{', '=', ' ', '\\n', '\\"', '="', '",', '"}', 'é', '日本', '😀', '\t', '\r'];

/** Any text, with the awkward pieces mixed in often. */
const anyText = fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom(...AWKWARD)), { maxLength: 6 }).map((parts) => parts.join(''));

/** A metric name the scheme accepts: non-empty, no braces. */
const validName = anyText.map((s) => s.replace(/[{}]/g, '')).filter((s) => s !== '');

/** A label name the scheme accepts: non-empty, not __name__, no reserved character or white space. */
const validLabelName = fc
  .oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }), fc.constantFrom('job', 'instance', '__meta', 'le', 'a', 'b', 'été'))
  .map((s) => s.replace(/[{}=,"\\\s]/g, '_'))
  .filter((s) => s !== '' && s !== '__name__');

/** Labels with unique names and any values (empty ones included). */
const validLabels = fc.uniqueArray(fc.record({ name: validLabelName, value: fc.oneof(anyText, fc.constant('')) }), { selector: (l) => l.name, maxLength: 6 });

function byName(a: Label, b: Label): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

describe('seriesMetricName and parseSeriesMetricName', () => {
  it('round-trips every valid name and label set (empty values dropped, labels sorted)', () => {
    fc.assert(
      fc.property(validName, validLabels, (name, labels) => {
        expect(seriesProblem(name, labels)).toBeUndefined();
        const metric = seriesMetricName(name, labels);
        const kept = labels.filter((l) => l.value !== '').sort(byName);
        if (kept.length === 0) expect(metric).toBe(name);
        const parsed = parseSeriesMetricName(metric);
        expect(parsed.name).toBe(name);
        expect(parsed.labels).toEqual(kept);
      }),
      { numRuns: RUNS },
    );
  });

  it('does not depend on the order the labels come in', () => {
    fc.assert(
      fc.property(validName, validLabels, fc.nat(), (name, labels, seed) => {
        const rotated = labels.map((_, i) => labels[(i + seed) % labels.length] as Label);
        expect(seriesMetricName(name, rotated)).toBe(seriesMetricName(name, labels));
      }),
      { numRuns: RUNS },
    );
  });

  it('is canonical: whenever a string parses to labels, formatting them gives the string back', () => {
    // Strings built from the scheme's own tokens reach the labelled branch often; random text rarely would.
    const token = fc.oneof(fc.constantFrom('{', '}', '="', '"', ',', '\\', '\\n', '\\"', 'a', 'b', 'x', '__name__', ' ', '\n', '='), fc.string({ maxLength: 3 }));
    const nearCanonical = fc.oneof(
      fc.array(token, { maxLength: 14 }).map((t) => t.join('')),
      fc.tuple(validName, validLabels, fc.nat(), fc.constantFrom('', '"', '\\', ',', '}', 'x')).map(([name, labels, at, insert]) => {
        const metric = seriesMetricName(name, labels);
        const i = at % (metric.length + 1);
        return metric.slice(0, i) + insert + metric.slice(i);
      }),
    );
    let labelled = 0;
    fc.assert(
      fc.property(nearCanonical, (s) => {
        const parsed = parseSeriesMetricName(s);
        if (parsed.labels.length === 0) {
          expect(parsed.name).toBe(s);
          return;
        }
        labelled++;
        expect(seriesProblem(parsed.name, parsed.labels)).toBeUndefined();
        expect(seriesMetricName(parsed.name, parsed.labels)).toBe(s);
      }),
      { numRuns: RUNS },
    );
    expect(labelled).toBeGreaterThan(RUNS / 20);
  });

  it('parses any string without throwing, as itself with no labels when not canonical', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), anyText), (s) => {
        const parsed = parseSeriesMetricName(s);
        expect(typeof parsed.name).toBe('string');
        if (parsed.labels.length === 0) expect(parsed.name).toBe(s);
      }),
      { numRuns: RUNS },
    );
  });

  it('reads names that are not canonical as plain names', () => {
    for (const s of ['cpu.load', 'up{}', 'up{a="1"', 'up{b="1",a="2"}', 'up{a="1",a="2"}', 'up{a=""}', '{a="1"}', 'up{a="x\\q"}', 'up{a="1"}x', 'up{a="1",}']) {
      expect(parseSeriesMetricName(s), s).toEqual({ name: s, labels: [] });
    }
    expect(parseSeriesMetricName('up{a="x\\"y\\\\z\\n",b="}"}')).toEqual({ name: 'up', labels: [{ name: 'a', value: 'x"y\\z\n' }, { name: 'b', value: '}' }] });
  });
});

describe('seriesProblem', () => {
  it('names each broken rule', () => {
    expect(seriesProblem('', [])).toMatch(/no metric name/);
    expect(seriesProblem('a{b', [])).toMatch(/brace/);
    expect(seriesProblem('a}', [])).toMatch(/brace/);
    expect(seriesProblem('up', [{ name: '', value: 'x' }])).toMatch(/empty/);
    expect(seriesProblem('up', [{ name: '__name__', value: 'x' }])).toMatch(/twice/);
    for (const bad of ['a=b', 'a,b', 'a"b', 'a\\b', 'a b', 'a\nb', 'a{', 'a}']) expect(seriesProblem('up', [{ name: bad, value: 'x' }]), bad).toMatch(/reserved/);
    expect(
      seriesProblem('up', [
        { name: 'job', value: 'x' },
        { name: 'job', value: 'y' },
      ]),
    ).toMatch(/twice/);
    expect(seriesProblem('up', [{ name: 'job', value: '' }])).toBeUndefined();
  });

  it('refuses exactly the label names that hold a reserved character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 6 }), (labelName) => {
        const reserved = /[{}=,"\\\s]/.test(labelName) || labelName === '__name__';
        expect(seriesProblem('up', [{ name: labelName, value: 'v' }]) !== undefined).toBe(reserved);
      }),
      { numRuns: RUNS },
    );
  });
});
