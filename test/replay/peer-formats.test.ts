// Owns the example tests of the peer encoders: exact VictoriaMetrics import lines and InfluxDB 1.x line protocol text.
import { describe, expect, it } from 'vitest';
import { INFLUX_TIMESTAMP_MS_MAX, influxLines, influxRepresentable, roundTripNumber, vmImportLines, type PeerPoint } from '../../src/replay/peer-formats.js';

const T0 = 1_700_000_000_000;

function point(metric: string, value: number, timestampMs = T0, tenant = '100000'): PeerPoint {
  return { tenant, metric, timestampMs, value };
}

describe('roundTripNumber', () => {
  it('writes the shortest text that reads back to the same double, keeping the sign of zero', () => {
    expect(roundTripNumber(-0)).toBe('-0');
    expect(roundTripNumber(0)).toBe('0');
    expect(roundTripNumber(1)).toBe('1');
    expect(roundTripNumber(0.1 + 0.2)).toBe('0.30000000000000004');
    expect(roundTripNumber(5e-324)).toBe('5e-324');
    expect(roundTripNumber(1e21)).toBe('1e+21');
    expect(roundTripNumber(2 ** 53 + 2)).toBe('9007199254740994');
  });

  it('refuses values no peer format can carry', () => {
    expect(() => roundTripNumber(Number.NaN)).toThrow(/finite/);
    expect(() => roundTripNumber(Number.POSITIVE_INFINITY)).toThrow(/finite/);
  });
});

describe('vmImportLines', () => {
  it('is empty for no points', () => {
    expect(vmImportLines([])).toBe('');
  });

  it('writes one line per series in first-seen order, points in input order', () => {
    const text = vmImportLines([point('a.b', 1, T0), point('c', 2.5, T0, '7'), point('a.b', -0, T0 + 10), point('c', 1e21, T0 + 5, '7'), point('a.b', 3, T0 + 20, '7')]);
    expect(text).toBe(
      '{"metric":{"__name__":"a.b","tenant":"100000"},"values":[1,-0],"timestamps":[1700000000000,1700000000010]}\n' +
        '{"metric":{"__name__":"c","tenant":"7"},"values":[2.5,1e+21],"timestamps":[1700000000000,1700000000005]}\n' +
        '{"metric":{"__name__":"a.b","tenant":"7"},"values":[3],"timestamps":[1700000000020]}\n',
    );
    const parsed = text.trimEnd().split('\n').map((line) => JSON.parse(line) as { values: number[] });
    expect(Object.is(parsed[0]?.values[1], -0)).toBe(true);
  });

  it('quotes names the JSON way, so quotes, backslashes and control characters survive', () => {
    const name = 'say "hi"\\there\tnow 🍭';
    const line = vmImportLines([point(name, 1)]);
    expect((JSON.parse(line) as { metric: { __name__: string } }).metric.__name__).toBe(name);
  });

  it('refuses a fractional timestamp (the import format takes integer milliseconds)', () => {
    expect(() => vmImportLines([point('m', 1, T0 + 0.5)])).toThrow(/integer/);
  });
});

describe('influxLines', () => {
  it('writes measurement, tenant tag, float field and millisecond time, one line per point', () => {
    expect(influxLines([point('a.b', 1), point('a.b', -0, T0 + 1), point('c', 1.5e-7, -5, '7')])).toBe(
      'a.b,tenant=100000 value=1 1700000000000\n' + 'a.b,tenant=100000 value=-0 1700000000001\n' + 'c,tenant=7 value=1.5e-7 -5\n',
    );
  });

  it('is empty for no points', () => {
    expect(influxLines([])).toBe('');
  });

  it('escapes commas and spaces in the measurement, and commas, equals signs and spaces in the tag', () => {
    expect(influxLines([point('a b,c=d', 2, T0, 'x y,z=w')])).toBe('a\\ b\\,c=d,tenant=x\\ y\\,z\\=w value=2 1700000000000\n');
  });

  it('leaves backslashes and quotes as they are, since InfluxDB 1.x keeps them literally', () => {
    expect(influxLines([point('c:\\temp"x', 3, T0, 'a\\b')])).toBe('c:\\temp"x,tenant=a\\b value=3 1700000000000\n');
  });

  it('refuses points that fail influxRepresentable', () => {
    expect(() => influxLines([point('#comment', 1)])).toThrow(/influxRepresentable/);
  });
});

describe('influxRepresentable', () => {
  // Each case was checked against InfluxDB 1.6.7: the ones marked false do not read back as written.
  const cases: readonly [string, PeerPoint, boolean][] = [
    ['a plain point', point('cpu.user', 1), true],
    ['spaces, commas, equals signs, quotes and unicode', point(' a b,c=d"é🍭 ', 1, T0, 'x y,z=w'), true],
    ['a backslash before an ordinary character', point('a\\b\\\\c', 1, T0, 'x\\y'), true],
    ['a backslash before a comma', point('a\\,b', 1), false],
    ['a backslash before a space', point('a\\ b', 1), false],
    ['a backslash before an equals sign', point('a\\=b', 1), false],
    ['a backslash before a double quote', point('a\\"b', 1), false],
    ['a trailing backslash', point('a\\', 1), false],
    ['a trailing backslash in the tenant', point('a', 1, T0, 't\\'), false],
    ['a measurement starting with #', point('#a', 1), false],
    ['a tenant starting with #', point('a', 1, T0, '#t'), true],
    ['a line break', point('a\nb', 1), false],
    ['a carriage return in the tenant', point('a', 1, T0, 't\r'), false],
    ['an empty metric', point('', 1), false],
    ['an empty tenant', point('a', 1, T0, ''), false],
    ['a non-finite value', point('a', Number.NaN), false],
    ['a fractional time', point('a', 1, T0 + 0.5), false],
    ['the latest time InfluxDB holds', point('a', 1, INFLUX_TIMESTAMP_MS_MAX), true],
    ['the earliest time InfluxDB holds', point('a', 1, -INFLUX_TIMESTAMP_MS_MAX), true],
    ['a time past int64 nanoseconds', point('a', 1, INFLUX_TIMESTAMP_MS_MAX + 1), false],
  ];
  it.each(cases)('%s', (_name, p, expected) => {
    expect(influxRepresentable(p)).toBe(expected);
  });
});
