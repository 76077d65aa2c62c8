// Owns the agent.memory collector: /proc/meminfo (and /proc/vmstat for swap paging) as the reference agent's memory metrics.
import { join } from 'node:path';
import type { WireMetric } from '../protocol/messages.js';
import { wireMetric } from '../protocol/wire-metrics.js';
import { available, PROC_ROOT_DEFAULT, safely, unavailable, type Collected, type Collector, type CollectorOptions } from './collector.js';
import { parseMeminfo } from './meminfo.js';
import { memoryFigures, type MemoryFigures } from './memory-figures.js';
import { readProcFile } from './proc-file.js';
import { parseVmstat } from './vmstat.js';

function memoryMetrics(m: MemoryFigures): Record<string, WireMetric> {
  const bytes = (value: number): WireMetric => wireMetric('int64', value, 'bytes');
  const metrics: Record<string, WireMetric> = {
    total: bytes(m.total),
    free: bytes(m.free),
    used: bytes(m.used),
    actual_free: bytes(m.actualFree),
    actual_used: bytes(m.actualUsed),
    ram: wireMetric('int64', m.ramMb, 'megabytes'),
    swap_total: bytes(m.swapTotal),
    swap_free: bytes(m.swapFree),
    swap_used: bytes(m.swapUsed),
  };
  if (m.swapPagesIn !== undefined) metrics.swap_page_in = wireMetric('int64', m.swapPagesIn, 'pages');
  if (m.swapPagesOut !== undefined) metrics.swap_page_out = wireMetric('int64', m.swapPagesOut, 'pages');
  return metrics;
}

/** agent.memory: memory and swap in bytes, RAM in MiB, swap paging counters in pages. */
export class MemoryCollector implements Collector {
  readonly #meminfoPath: string;
  readonly #vmstatPath: string;

  constructor(options: CollectorOptions = {}) {
    const procRoot = options.procRoot ?? PROC_ROOT_DEFAULT;
    this.#meminfoPath = join(procRoot, 'meminfo');
    this.#vmstatPath = join(procRoot, 'vmstat');
  }

  /** Reads /proc/meminfo (required) and /proc/vmstat (optional: without it the two paging counters are left out); details are not used. */
  collect(_details: Readonly<Record<string, unknown>>, _nowMs: number): Promise<Collected> {
    return safely(async () => {
      const meminfo = parseMeminfo((await readProcFile(this.#meminfoPath)).text);
      const vmstat = await readProcFile(this.#vmstatPath).then(
        ({ text }) => parseVmstat(text),
        () => undefined,
      );
      const figures = memoryFigures(meminfo, vmstat);
      if (!figures.ok) return unavailable(`${this.#meminfoPath}: ${figures.error}`);
      return available(memoryMetrics(figures.value));
    });
  }
}
