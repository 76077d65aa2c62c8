// Properties of the two-sample disk figures: service time and queue are the interval's ratios, measured since boot when samples are not comparable.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { comparable, diskRates, type DiskSample } from '../../../src/agent/collectors/disk-rates.js';
import type { DiskStats } from '../../../src/agent/collectors/diskstats.js';

const count = fc.nat({ max: 2 ** 40 });
const stats = fc.record({ reads: count, readSectors: count, readMs: count, writes: count, writeSectors: count, writeMs: count, inFlight: fc.nat(100), ioMs: count, weightedIoMs: count }).map((s): DiskStats => ({ name: 'sda', ...s }));
const step = fc.record({ reads: count, writes: count, ioMs: count, weightedIoMs: count, wallMs: fc.integer({ min: 1, max: 10 ** 9 }) });

describe('diskRates', () => {
  it('divides busy time by completed I/Os and weighted time by wall time over the interval', () => {
    fc.assert(
      fc.property(stats, step, fc.nat({ max: 10 ** 12 }), (before, s, atMs) => {
        const previous: DiskSample = { stats: before, atMs };
        const after = { ...before, reads: before.reads + s.reads, writes: before.writes + s.writes, ioMs: before.ioMs + s.ioMs, weightedIoMs: before.weightedIoMs + s.weightedIoMs };
        const current: DiskSample = { stats: after, atMs: atMs + s.wallMs };
        expect(comparable(previous, current)).toBe(true);
        const rates = diskRates(previous, current, 1);
        const ios = s.reads + s.writes;
        expect(rates.serviceTimeMs).toBe(ios > 0 ? s.ioMs / ios : 0);
        expect(rates.queue).toBe(s.weightedIoMs / s.wallMs);
      }),
    );
  });

  it('measures since boot over the uptime on the first sample, after a counter went back, for another device or a clock that did not advance', () => {
    fc.assert(
      fc.property(stats, fc.integer({ min: 1, max: 10 ** 10 }), (s, uptimeMs) => {
        const current: DiskSample = { stats: s, atMs: 5000 };
        const sinceBoot = diskRates(undefined, current, uptimeMs);
        const ios = s.reads + s.writes;
        expect(sinceBoot).toEqual({ serviceTimeMs: ios > 0 ? s.ioMs / ios : 0, queue: s.weightedIoMs / uptimeMs });
        // The previous sample read one more than now: the counter went back.
        expect(diskRates({ stats: { ...s, reads: s.reads + 1 }, atMs: 1000 }, current, uptimeMs)).toEqual(sinceBoot);
        expect(diskRates({ stats: { ...s, name: 'sdb' }, atMs: 1000 }, current, uptimeMs)).toEqual(sinceBoot);
        expect(diskRates({ stats: s, atMs: 5000 }, current, uptimeMs)).toEqual(sinceBoot);
        expect(diskRates(undefined, current, 0).queue).toBe(0);
      }),
    );
  });
});
