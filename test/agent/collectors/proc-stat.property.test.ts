// Properties of the /proc/stat parser: generated cpu lines parse back to their numbers; junk never throws and is skipped.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseProcStat, type CpuTimes } from '../../../src/agent/collectors/proc-stat.js';
import { blank, counter, interleave, joinWith, junkLine, junkText } from './proc-arbitraries.js';

const FIELDS = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal'] as const;

const cpuValues = fc.record({
  values: fc.array(counter, { minLength: 10, maxLength: 10 }),
  width: fc.constantFrom(4, 7, 8, 10),
  blanks: fc.array(blank, { minLength: 1, maxLength: 4 }),
});

function line(id: string, cpu: { values: number[]; width: number; blanks: string[] }): string {
  return joinWith([id, ...cpu.values.slice(0, cpu.width).map(String)], cpu.blanks);
}

function expected(id: string, cpu: { values: number[]; width: number }): CpuTimes {
  const times: Record<string, number | string> = { id };
  FIELDS.forEach((field, i) => (times[field] = i < cpu.width ? (cpu.values[i] ?? 0) : 0));
  return times as unknown as CpuTimes;
}

describe('parseProcStat', () => {
  it('parses generated cpu lines back to their numbers, whatever junk lines surround them', () => {
    fc.assert(
      fc.property(cpuValues, fc.array(cpuValues, { maxLength: 8 }), fc.array(junkLine, { maxLength: 10 }), (all, cpus, junk) => {
        const records = [line('cpu', all), ...cpus.map((cpu, i) => line(`cpu${i}`, cpu))];
        const stat = parseProcStat(`${interleave(records, junk).join('\n')}\n`);
        expect(stat.all).toEqual(expected('cpu', all));
        expect(stat.cpus).toEqual(cpus.map((cpu, i) => expected(`cpu${i}`, cpu)));
      }),
    );
  });

  it('never throws on junk, and whatever it returns is well-formed', () => {
    fc.assert(
      fc.property(junkText, fc.array(fc.oneof(junkText, fc.constant('cpu'), fc.constant('cpu0 1 2 3')), { maxLength: 4 }), (text, parts) => {
        const stat = parseProcStat(`${text}\n${parts.join(' ')}`);
        for (const times of [...stat.cpus, ...(stat.all === undefined ? [] : [stat.all])]) {
          expect(times.id).toMatch(/^cpu\d*$/);
          for (const field of FIELDS) expect(Number.isFinite(times[field]) && times[field] >= 0).toBe(true);
        }
        expect(new Set(stat.cpus.map((times) => times.id)).size).toBe(stat.cpus.length);
      }),
    );
  });

  it('skips cpu lines with a non-number, too few fields or a bad id, and keeps the first of a repeated id', () => {
    const stat = parseProcStat('cpu0 1 2 x 4\ncpu1 1 2 3\ncpux 1 2 3 4\ncpu2 1 2 3 4\ncpu2 9 9 9 9\ncpu3 -1 2 3 4\ncpu4 1e3 2 3 4\n');
    expect(stat.cpus.map((times) => [times.id, times.user])).toEqual([['cpu2', 1]]);
    expect(stat.all).toBeUndefined();
  });
});
