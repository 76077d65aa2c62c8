// Owns the agent.cpu collector: /proc/stat sampled at each collection, percentages over the time since the previous one.
import { join } from 'node:path';
import type { WireMetric } from '../protocol/messages.js';
import { wireMetric } from '../protocol/wire-metrics.js';
import { available, PROC_ROOT_DEFAULT, safely, unavailable, type Collected, type Collector, type CollectorOptions } from './collector.js';
import { cpuUsage, type CpuUsage } from './cpu-usage.js';
import { readProcFile } from './proc-file.js';
import { parseProcStat, type CpuTimes } from './proc-stat.js';

const PERCENT = 'percent';

function cpuMetrics(usage: CpuUsage): Record<string, WireMetric> {
  const percent = (value: number): WireMetric => wireMetric('double', value, PERCENT);
  const { averages } = usage;
  return {
    cpu_count: wireMetric('uint64', usage.cpuCount, 'count'),
    usage_average: percent(usage.usageAverage),
    min_cpu_usage: percent(usage.minUsage),
    max_cpu_usage: percent(usage.maxUsage),
    user_percent_average: percent(averages.user),
    sys_percent_average: percent(averages.sys),
    idle_percent_average: percent(averages.idle),
    wait_percent_average: percent(averages.wait),
    irq_percent_average: percent(averages.irq),
    stolen_percent_average: percent(averages.stolen),
  };
}

/**
 * agent.cpu: the first collection measures since boot (the reference agent instead waits 5 s for a second
 * sample); each later one measures since the previous collection of this instance.
 */
export class CpuCollector implements Collector {
  readonly #statPath: string;
  #previous: readonly CpuTimes[] | undefined;

  constructor(options: CollectorOptions = {}) {
    this.#statPath = join(options.procRoot ?? PROC_ROOT_DEFAULT, 'stat');
  }

  /** Samples /proc/stat; details are not used. */
  collect(_details: Readonly<Record<string, unknown>>, _nowMs: number): Promise<Collected> {
    return safely(async () => {
      const { text } = await readProcFile(this.#statPath);
      const stat = parseProcStat(text);
      // A kernel without per-CPU lines still has the all-CPU line: it then counts as one CPU.
      const cpus = stat.cpus.length > 0 ? stat.cpus : stat.all === undefined ? [] : [stat.all];
      if (cpus.length === 0) return unavailable(`no cpu lines in ${this.#statPath}`);
      const usage = cpuUsage(this.#previous, cpus);
      this.#previous = cpus;
      return available(cpuMetrics(usage));
    });
  }
}
