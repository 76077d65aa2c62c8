// Properties of the /proc/<pid>/stat parser: generated lines (names with blanks and parentheses, negative priorities) parse back; junk never throws.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePidStat } from '../../../src/agent/host-info/proc-pid.js';
import { junkText } from '../collectors/proc-arbitraries.js';
import { pidStatLine } from './host-fixtures.js';

/** A process name as the kernel shows it: up to 15 bytes, any printable text including blanks and parentheses. */
const comm = fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', '(', ')', '-', '/', ':', '.'), maxLength: 15 });
const count = fc.nat({ max: 2 ** 40 });

describe('parsePidStat', () => {
  it('parses generated stat lines back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4_194_304 }), comm, fc.record({ minflt: count, majflt: count, utime: count, stime: count, priority: fc.integer({ min: -100, max: 39 }), threads: fc.integer({ min: 1, max: 100_000 }), start: count, vsize: count, rss: count }), (pid, name, values) => {
        expect(parsePidStat(pidStatLine(pid, name, values))).toEqual({
          pid,
          comm: name,
          minorFaults: values.minflt,
          majorFaults: values.majflt,
          utime: values.utime,
          stime: values.stime,
          priority: values.priority,
          threads: values.threads,
          startTicks: values.start,
          vsizeBytes: values.vsize,
          rssPages: values.rss,
        });
      }),
    );
  });

  it('never throws on junk; what it returns has safe integers', () => {
    fc.assert(
      fc.property(junkText, (text) => {
        const stat = parsePidStat(text);
        if (stat !== undefined) for (const value of Object.values(stat)) if (typeof value === 'number') expect(Number.isSafeInteger(value)).toBe(true);
      }),
    );
  });
});
