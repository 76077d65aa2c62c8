// Owns the agent.disk figures that need two samples: average service time per I/O and average queue length.
import type { DiskStats } from './diskstats.js';

/** One reading of a device's counters and when it was taken (the collection's nowMs). */
export interface DiskSample {
  readonly stats: DiskStats;
  readonly atMs: number;
}

/** What the two-sample disk metrics are. */
export interface DiskRates {
  /** Busy time per completed I/O over the interval, ms (0 when no I/O completed). */
  readonly serviceTimeMs: number;
  /** Average number of I/Os in flight over the interval (weighted I/O time / wall time). */
  readonly queue: number;
}

const COUNTERS = ['reads', 'readSectors', 'readMs', 'writes', 'writeSectors', 'writeMs', 'ioMs', 'weightedIoMs'] as const;

/** True when `current` can be measured against `previous`: same device, later time, and no counter went back (a reset or a wrap). */
export function comparable(previous: DiskSample | undefined, current: DiskSample): previous is DiskSample {
  if (previous === undefined || previous.stats.name !== current.stats.name || current.atMs <= previous.atMs) return false;
  return COUNTERS.every((counter) => current.stats[counter] >= previous.stats[counter]);
}

/**
 * The rates of `current` since `previous` when comparable, else since boot over `uptimeMs` (the first collection,
 * or after a counter reset). An interval of 0 gives a queue of 0.
 */
export function diskRates(previous: DiskSample | undefined, current: DiskSample, uptimeMs: number): DiskRates {
  const base = comparable(previous, current) ? previous : undefined;
  const delta = (counter: (typeof COUNTERS)[number]): number => current.stats[counter] - (base?.stats[counter] ?? 0);
  const ios = delta('reads') + delta('writes');
  const intervalMs = base === undefined ? uptimeMs : current.atMs - base.atMs;
  return {
    serviceTimeMs: ios > 0 ? delta('ioMs') / ios : 0,
    queue: intervalMs > 0 ? delta('weightedIoMs') / intervalMs : 0,
  };
}
