// Owns the agent.disk collector: one block device's I/O counters from /proc/diskstats, and its service time and queue between collections.
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { WireMetric } from '../protocol/messages.js';
import { wireMetric } from '../protocol/wire-metrics.js';
import { available, notFound, PROC_ROOT_DEFAULT, safely, targetOf, unavailable, type Collected, type Collector, type CollectorOptions } from './collector.js';
import { comparable, diskRates, type DiskRates, type DiskSample } from './disk-rates.js';
import { findDisk, parseDiskstats, type DiskStats } from './diskstats.js';
import { readProcFile } from './proc-file.js';
import { parseUptime } from './uptime.js';

/** /proc/diskstats counts sectors of 512 bytes whatever the device's own sector size. */
const SECTOR_BYTES = 512;
const MS = 'milliseconds';

function diskMetrics(d: DiskStats, rates: DiskRates): Record<string, WireMetric> {
  return {
    reads: wireMetric('uint64', d.reads, 'reads'),
    writes: wireMetric('uint64', d.writes, 'writes'),
    read_bytes: wireMetric('uint64', d.readSectors * SECTOR_BYTES, 'bytes'),
    write_bytes: wireMetric('uint64', d.writeSectors * SECTOR_BYTES, 'bytes'),
    rtime: wireMetric('uint64', d.readMs, MS),
    wtime: wireMetric('uint64', d.writeMs, MS),
    qtime: wireMetric('uint64', d.weightedIoMs, MS),
    time: wireMetric('uint64', d.ioMs, MS),
    service_time: wireMetric('double', rates.serviceTimeMs, MS),
    queue: wireMetric('double', rates.queue, 'requests'),
  };
}

/**
 * agent.disk: details.target is a device as /proc/diskstats names it (`sda1`) or its /dev path (`/dev/sda1`);
 * another absolute path is followed through symbolic links (`/dev/mapper/vg-root` is `dm-0`).
 * Counters are cumulative (alarms take rate()); service_time and queue cover the time since this instance's previous collection.
 */
export class DiskCollector implements Collector {
  readonly #diskstatsPath: string;
  readonly #uptimePath: string;
  #previous: DiskSample | undefined;

  constructor(options: CollectorOptions = {}) {
    const procRoot = options.procRoot ?? PROC_ROOT_DEFAULT;
    this.#diskstatsPath = join(procRoot, 'diskstats');
    this.#uptimePath = join(procRoot, 'uptime');
  }

  /** Reads /proc/diskstats (and /proc/uptime when measuring since boot). */
  collect(details: Readonly<Record<string, unknown>>, nowMs: number): Promise<Collected> {
    return safely(async () => {
      const target = targetOf(details);
      if (target === undefined) return unavailable('details.target is required: a disk device such as sda or /dev/sda');
      const { text, truncated } = await readProcFile(this.#diskstatsPath);
      const disks = parseDiskstats(text);
      const stats = findDisk(disks, target) ?? (await this.#throughLinks(disks, target));
      if (stats === undefined) return notFound(`no such disk: ${target}`, this.#diskstatsPath, truncated);
      const current: DiskSample = { stats, atMs: nowMs };
      const uptimeMs = comparable(this.#previous, current) ? 0 : await this.#uptimeMs();
      if (uptimeMs === undefined) return unavailable(`${this.#uptimePath} does not hold an uptime`);
      const rates = diskRates(this.#previous, current, uptimeMs);
      this.#previous = current;
      return available(diskMetrics(stats, rates));
    });
  }

  async #throughLinks(disks: readonly DiskStats[], target: string): Promise<DiskStats | undefined> {
    if (!target.startsWith('/')) return undefined;
    const resolved = await realpath(target).catch(() => undefined);
    return resolved !== undefined && resolved.startsWith('/dev/') && resolved !== target ? findDisk(disks, resolved) : undefined;
  }

  async #uptimeMs(): Promise<number | undefined> {
    const parsed = parseUptime((await readProcFile(this.#uptimePath)).text);
    return parsed.ok ? parsed.value : undefined;
  }
}
