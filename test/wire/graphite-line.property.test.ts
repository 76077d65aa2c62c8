// Owns the property tests of the Graphite plaintext line parser: valid lines read exactly, every malformed shape refused with its code, no input throws.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { METRIC_NAME_LENGTH_MAX } from '../../src/core/limits.js';
import { GraphiteLineScratch, GraphitePoint, parseGraphiteLine, parseGraphiteText, type GraphiteParsed } from '../../src/wire/graphite-line.js';
import { SERIES_LABELS_MAX } from '../../src/wire/protocol-limits.js';
import { parseSeriesMetricName, seriesMetricName } from '../../src/wire/series-name.js';

const RUNS = 2000;
const NOW_MS = 1_764_000_000_000;

const segment = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('.'));
/** Tag values may hold anything but `;`, white space and control characters (values with `=`, quotes and backslashes too). */
const tagValue = fc.stringMatching(/^[A-Za-z0-9._=:"\\/-]{1,10}$/);
const tags = fc.uniqueArray(fc.record({ name: fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/), value: tagValue }), { selector: (t) => t.name, maxLength: 6 });
/** One or more spaces and tabs. */
const gap = fc.array(fc.constantFrom(' ', '\t'), { minLength: 1, maxLength: 3 }).map((chars) => chars.join(''));
const edge = fc.array(fc.constantFrom(' ', '\t'), { maxLength: 2 }).map((chars) => chars.join(''));
/** A decimal value as clients write it: Number() reads it, and so must the parser. */
const valueText = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => String(v)),
  fc.integer().map((v) => String(v)),
  fc.stringMatching(/^[+-]?(\d{1,20}(\.\d{0,20})?|\.\d{1,20})([eE][+-]?\d{1,3})?$/),
);
/** Seconds since the epoch with 0 to 12 fraction digits. */
const secondsText = fc
  .tuple(fc.integer({ min: 0, max: 4_000_000_000 }), fc.stringMatching(/^\d{0,12}$/))
  .map(([whole, fraction]) => (fraction === '' ? String(whole) : `${whole}.${fraction}`));

/** The exact milliseconds of a seconds text, rounded half up, computed with big integers. */
function exactMs(text: string): number {
  const [whole, fraction = ''] = text.split('.');
  const scale = 10n ** BigInt(fraction.length);
  const scaled = BigInt(`${whole}${fraction}`) * 1000n;
  return Number((2n * scaled + scale) / (2n * scale));
}

function expectProblem(line: string): void {
  const result = parseGraphiteText(line, NOW_MS);
  expect('code' in result ? result.code : result, line).toBe('GRAPHITE_LINE_MALFORMED');
}

describe('parseGraphiteLine on valid lines', () => {
  it('reads path, value and fractional seconds exactly, whatever the spacing', () => {
    fc.assert(
      fc.property(edge, path, gap, valueText, gap, secondsText, edge, fc.boolean(), (lead, p, gap1, value, gap2, seconds, trail, cr) => {
        const line = `${lead}${p}${gap1}${value}${gap2}${seconds}${trail}${cr ? '\r' : ''}`;
        const expected = Number(value);
        const result = parseGraphiteText(line, NOW_MS);
        if (!Number.isFinite(expected)) {
          expect(result).toEqual({ kind: 'skipped', metric: p, timestampMs: exactMs(seconds) });
          return;
        }
        expect(result).toMatchObject({ kind: 'point', metric: p, timestampMs: exactMs(seconds) });
        expect(Object.is((result as { value: number }).value, expected), `${value}`).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('names tagged series by the series-name scheme, in any tag order, and reads them back', () => {
    fc.assert(
      fc.property(path, tags, fc.integer({ min: -1000, max: 1000 }), (p, t, value) => {
        const text = [p, ...t.map((tag) => `${tag.name}=${tag.value}`)].join(';');
        const result = parseGraphiteText(`${text} ${value} N`, NOW_MS);
        const metric = seriesMetricName(p, t);
        expect(result).toEqual({ kind: 'point', metric, timestampMs: NOW_MS, value });
        const shuffled = [p, ...[...t].reverse().map((tag) => `${tag.name}=${tag.value}`)].join(';');
        expect(parseGraphiteText(`${shuffled} ${value} -1`, NOW_MS)).toEqual(result);
        const back = parseSeriesMetricName(metric);
        expect(back.name).toBe(p);
        expect(back.labels).toEqual([...t].sort((a, b) => (a.name < b.name ? -1 : 1)));
      }),
      { numRuns: RUNS },
    );
  });

  it('rounds seconds to the millisecond from the digits, not through a double', () => {
    expect(parseGraphiteText('a 1 1764000000.123', NOW_MS)).toMatchObject({ timestampMs: 1_764_000_000_123 });
    // Math.round(Number(text) * 1000) gives ...124 here: the double nearest the text is ...123.5 ms.
    expect(Math.round(Number('1764000000.1234999999') * 1000)).toBe(1_764_000_000_124);
    expect(parseGraphiteText('a 1 1764000000.1234999999', NOW_MS)).toMatchObject({ timestampMs: 1_764_000_000_123 });
    expect(parseGraphiteText('a 1 1764000000.0005', NOW_MS)).toMatchObject({ timestampMs: 1_764_000_000_001 });
    expect(parseGraphiteText('a 1 1764000000.9995', NOW_MS)).toMatchObject({ timestampMs: 1_764_000_001_000 });
    expect(parseGraphiteText('a 1 1764000000', NOW_MS)).toMatchObject({ timestampMs: 1_764_000_000_000 });
    expect(parseGraphiteText('a 1 0', NOW_MS)).toMatchObject({ timestampMs: 0 });
  });

  it('takes -1 and N as now, skips nan and infinities, ignores blank lines', () => {
    expect(parseGraphiteText('a.b 2.5 -1', NOW_MS)).toEqual({ kind: 'point', metric: 'a.b', timestampMs: NOW_MS, value: 2.5 });
    expect(parseGraphiteText('a.b 2.5 N', NOW_MS + 7)).toEqual({ kind: 'point', metric: 'a.b', timestampMs: NOW_MS + 7, value: 2.5 });
    for (const word of ['nan', 'NaN', '-nan', 'inf', '+Inf', '-inf', 'Infinity', '-INFINITY', '1e999', '-1e400']) {
      expect(parseGraphiteText(`a ${word} 10`, NOW_MS), word).toEqual({ kind: 'skipped', metric: 'a', timestampMs: 10_000 });
    }
    for (const line of ['', ' ', '\t \t', '\r', '  \r']) expect(parseGraphiteText(line, NOW_MS)).toEqual({ kind: 'blank' });
  });

  it('reads values as Number() does for every decimal shape', () => {
    for (const text of ['+5', '007', '1.', '.5', '-.5', '-0', '1E3', '1e+3', '2.5e-3', '123456789012345678901234567890']) {
      const result = parseGraphiteText(`m ${text} 1`, NOW_MS);
      expect(Object.is((result as { value: number }).value, Number(text)), text).toBe(true);
    }
  });

  it('gives the same answers with one scratch reused over many lines in one buffer', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(path, tags, fc.integer(), fc.integer({ min: 0, max: 4e9 })), { minLength: 1, maxLength: 20 }), (rows) => {
        const lines = rows.map(([p, t, v, s]) => `${[p, ...t.map((tag) => `${tag.name}=${tag.value}`)].join(';')} ${v} ${s}`);
        const buf = Buffer.from(lines.join('\n'));
        const scratch = new GraphiteLineScratch();
        const out = new GraphitePoint();
        let start = 0;
        for (const line of lines) {
          const end = start + Buffer.byteLength(line);
          const outcome = parseGraphiteLine(buf, start, end, NOW_MS, scratch, out);
          const alone = parseGraphiteText(line, NOW_MS) as Extract<GraphiteParsed, { kind: 'point' }>;
          expect(outcome).toBe('point');
          expect({ kind: 'point', metric: out.metric, timestampMs: out.timestampMs, value: out.value }).toEqual(alone);
          start = end + 1;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseGraphiteLine on malformed lines', () => {
  it('refuses every malformed shape with GRAPHITE_LINE_MALFORMED', () => {
    const shapes = [
      'a',
      'a 1',
      'a 1 2 3',
      'a 0x10 1',
      'a 0b1 1',
      'a 1_000 1',
      'a 1e 1',
      'a 1e+ 1',
      'a -- 1',
      'a 1.2.3 1',
      'a . 1',
      'a + 1',
      'a Infinityx 1',
      'a nanx 1',
      'a 1 abc',
      'a 1 -2',
      'a 1 -1.0',
      'a 1 +1',
      'a 1 1.',
      'a 1 .5',
      'a 1 1e9',
      'a 1 0x10',
      'a 1 n',
      'a 1 1234567890123456',
      'a 1 9007199254741',
      'a;b 1 1',
      'a; 1 1',
      'a;b= 1 1',
      ';b=c 1 1',
      'a;=c 1 1',
      'a;b=1;b=2 1 1',
      'a;__name__=x 1 1',
      'a;b,c=1 1 1',
      'a;b"=1 1 1',
      'a{b} 1 1',
      'a} 1 1',
      'a{;b=c 1 1',
      `a;${Array.from({ length: SERIES_LABELS_MAX + 1 }, (_, i) => `t${i}=v`).join(';')} 1 1`,
    ];
    for (const line of shapes) expectProblem(line);
    expect(parseGraphiteText(`a;${Array.from({ length: SERIES_LABELS_MAX }, (_, i) => `t${i}=v`).join(';')} 1 1`, NOW_MS)).toMatchObject({ kind: 'point' });
  });

  it('refuses paths that are not UTF-8 and long tagged paths without caching them', () => {
    const bad = Buffer.concat([Buffer.from('a'), Buffer.from([0xff, 0xfe]), Buffer.from(' 1 1')]);
    const outcome = parseGraphiteLine(bad, 0, bad.length, NOW_MS, new GraphiteLineScratch(), new GraphitePoint());
    expect(outcome).toMatchObject({ code: 'GRAPHITE_LINE_MALFORMED' });
    expect(parseGraphiteText('é.ü 1 1', NOW_MS)).toMatchObject({ kind: 'point', metric: 'é.ü' });
    const long = `${'p'.repeat(METRIC_NAME_LENGTH_MAX)};k=v`;
    expect(parseGraphiteText(`${long} 1 1`, NOW_MS)).toMatchObject({ kind: 'point', metric: `${'p'.repeat(METRIC_NAME_LENGTH_MAX)}{k="v"}` });
    expectProblem(`${long};k=w 1 1`);
  });

  it('refuses any value token that is not a decimal literal or a non-finite word', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[^\s]{1,12}$/), (token) => {
        const result = parseGraphiteText(`m ${token} 1`, NOW_MS);
        const decimal = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(token);
        const word = /^[+-]?(nan|inf|infinity)$/i.test(token);
        if (decimal || word) expect('kind' in result, token).toBe(true);
        else expect(result, token).toMatchObject({ code: 'GRAPHITE_LINE_MALFORMED' });
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses any timestamp token that is not seconds, -1 or N', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[^\s]{1,18}$/), (token) => {
        const result = parseGraphiteText(`m 1 ${token}`, NOW_MS);
        const whole = /^(\d+)(\.\d+)?$/.exec(token)?.[1];
        const seconds = whole !== undefined && whole.length <= 15 && Number(whole) <= 9_007_199_254_739;
        if (seconds || token === '-1' || token === 'N') expect(result, token).toMatchObject({ kind: 'point' });
        else expect(result, token).toMatchObject({ code: 'GRAPHITE_LINE_MALFORMED' });
      }),
      { numRuns: RUNS },
    );
  });

  it('never throws, on any text or any bytes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (line) => {
        const result = parseGraphiteText(line, NOW_MS);
        expect(['point', 'skipped', 'blank', undefined]).toContain('kind' in result ? result.kind : undefined);
      }),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), fc.nat(), fc.nat(), (bytes, a, b) => {
        const buf = Buffer.from(bytes);
        const start = bytes.length === 0 ? 0 : a % bytes.length;
        const end = start + (bytes.length === 0 ? 0 : b % (bytes.length - start + 1));
        parseGraphiteLine(buf, start, end, NOW_MS, new GraphiteLineScratch(), new GraphitePoint());
      }),
      { numRuns: RUNS },
    );
  });
});
