// Properties of the /proc/loadavg and /proc/uptime parsers: generated files parse back to their numbers; junk gives an error, never a throw.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLoadavg } from '../../../src/agent/collectors/loadavg.js';
import { parseUptime } from '../../../src/agent/collectors/uptime.js';
import { junkText } from './proc-arbitraries.js';

const hundredths = fc.nat({ max: 100_000_00 });
const decimal = (value: number): string => (value / 100).toFixed(2);

describe('parseLoadavg', () => {
  it('parses generated files back to the three averages', () => {
    fc.assert(
      fc.property(hundredths, hundredths, hundredths, fc.nat(), fc.nat(), (a, b, c, running, last) => {
        const parsed = parseLoadavg(`${decimal(a)} ${decimal(b)} ${decimal(c)} ${running}/${running + 100} ${last}\n`);
        expect(parsed).toEqual({ ok: true, value: { load1m: a / 100, load5m: b / 100, load15m: c / 100 } });
      }),
    );
  });

  it('gives an error, never a throw, for junk; a success holds finite non-negative numbers', () => {
    fc.assert(
      fc.property(junkText, (text) => {
        const parsed = parseLoadavg(text);
        if (parsed.ok) for (const value of Object.values(parsed.value)) expect(Number.isFinite(value) && value >= 0).toBe(true);
        else expect(parsed.error).toMatch(/loadavg/);
      }),
    );
    expect(parseLoadavg('0.1 0.2\n').ok).toBe(false);
    expect(parseLoadavg('0.1 -0.2 0.3\n').ok).toBe(false);
    expect(parseLoadavg('').ok).toBe(false);
  });
});

describe('parseUptime', () => {
  it('parses generated files back to integer milliseconds', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10 ** 11 }), hundredths, (centiseconds, idle) => {
        expect(parseUptime(`${decimal(centiseconds)} ${decimal(idle)}\n`)).toEqual({ ok: true, value: centiseconds * 10 });
      }),
    );
  });

  it('gives an error, never a throw, for junk', () => {
    fc.assert(
      fc.property(junkText, (text) => {
        const parsed = parseUptime(text);
        if (parsed.ok) expect(Number.isSafeInteger(parsed.value) && parsed.value >= 0).toBe(true);
      }),
    );
    expect(parseUptime('up 5 days').ok).toBe(false);
  });
});
