// Properties of the /proc/meminfo and /proc/vmstat parsers: generated lines parse back to their values; junk never throws and is skipped.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMeminfo } from '../../../src/agent/collectors/meminfo.js';
import { parseVmstat } from '../../../src/agent/collectors/vmstat.js';
import { blank, counter, interleave, junkLine, junkText } from './proc-arbitraries.js';

const meminfoEntries = fc.uniqueArray(
  fc.record({ name: fc.stringMatching(/^[A-Za-z][A-Za-z0-9_()]{0,20}$/), value: fc.nat({ max: 2 ** 40 }), kb: fc.boolean(), pad: blank }),
  { selector: (entry) => entry.name, maxLength: 30 },
);

describe('parseMeminfo', () => {
  it('parses generated lines back: kB values in bytes, unitless ones as given', () => {
    fc.assert(
      fc.property(meminfoEntries, fc.array(junkLine, { maxLength: 8 }), (entries, junk) => {
        const records = entries.map((e) => `${e.name}:${e.pad}${e.value}${e.kb ? ' kB' : ''}`);
        const parsed = parseMeminfo(interleave(records, junk).join('\n'));
        expect([...parsed]).toEqual(entries.map((e) => [e.name, e.kb ? e.value * 1024 : e.value]));
      }),
    );
  });

  it('never throws on junk and keeps only non-negative finite values under names without blanks', () => {
    fc.assert(
      fc.property(junkText, (text) => {
        for (const [name, value] of parseMeminfo(text)) {
          expect(name).toMatch(/^[A-Za-z0-9_()]+$/);
          expect(Number.isFinite(value) && value >= 0).toBe(true);
        }
      }),
    );
  });

  it('skips lines with another unit, a sign, extra fields or no name', () => {
    const parsed = parseMeminfo('A: 1 MB\nB: -1 kB\nC: 1 kB x\n: 5 kB\nD E: 1 kB\nF:7\nF: 8 kB\n');
    expect([...parsed]).toEqual([['F', 7]]);
  });
});

describe('parseVmstat', () => {
  it('parses generated name value lines back', () => {
    const entries = fc.uniqueArray(fc.record({ name: fc.stringMatching(/^[a-z][a-z0-9_]{0,24}$/), value: counter, pad: blank }), { selector: (e) => e.name, maxLength: 40 });
    fc.assert(
      fc.property(entries, fc.array(junkLine, { maxLength: 8 }), (list, junk) => {
        const parsed = parseVmstat(interleave(list.map((e) => `${e.name}${e.pad}${e.value}`), junk).join('\n'));
        expect([...parsed]).toEqual(list.map((e) => [e.name, e.value]));
      }),
    );
  });

  it('never throws on junk', () => {
    fc.assert(
      fc.property(junkText, (text) => {
        for (const [, value] of parseVmstat(text)) expect(value >= 0).toBe(true);
      }),
    );
  });
});
