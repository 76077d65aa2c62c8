// Owns the agent.load_average collector: the 1, 5 and 15 minute load averages of /proc/loadavg.
import { join } from 'node:path';
import { wireMetric } from '../protocol/wire-metrics.js';
import { available, PROC_ROOT_DEFAULT, safely, unavailable, type Collected, type Collector, type CollectorOptions } from './collector.js';
import { parseLoadavg } from './loadavg.js';
import { readProcFile } from './proc-file.js';

/** The unit of a load average: the reference agent sends none, which the API shows as `unknown`. */
const LOAD_UNIT = 'unknown';

/** agent.load_average: metrics `1m`, `5m`, `15m` (doubles). */
export class LoadAverageCollector implements Collector {
  readonly #loadavgPath: string;

  constructor(options: CollectorOptions = {}) {
    this.#loadavgPath = join(options.procRoot ?? PROC_ROOT_DEFAULT, 'loadavg');
  }

  /** Reads /proc/loadavg; details are not used. */
  collect(_details: Readonly<Record<string, unknown>>, _nowMs: number): Promise<Collected> {
    return safely(async () => {
      const parsed = parseLoadavg((await readProcFile(this.#loadavgPath)).text);
      if (!parsed.ok) return unavailable(`${this.#loadavgPath}: ${parsed.error}`);
      const { load1m, load5m, load15m } = parsed.value;
      return available({
        '1m': wireMetric('double', load1m, LOAD_UNIT),
        '5m': wireMetric('double', load5m, LOAD_UNIT),
        '15m': wireMetric('double', load15m, LOAD_UNIT),
      });
    });
  }
}
