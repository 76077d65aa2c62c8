// Owns the agent.network collector: one interface's counters from /proc/net/dev and its link state from /sys.
import { join } from 'node:path';
import type { WireMetric } from '../protocol/messages.js';
import { wireMetric } from '../protocol/wire-metrics.js';
import { available, notFound, PROC_ROOT_DEFAULT, safely, SYS_ROOT_DEFAULT, targetOf, unavailable, type Collected, type Collector, type CollectorOptions } from './collector.js';
import { parseNetDev, type InterfaceStats } from './net-dev.js';
import { readProcFile } from './proc-file.js';

/** What /sys/class/net/<interface>/carrier says: `1` up, `0` down; unreadable (an interface that is administratively down) or anything else: unknown. */
export type LinkState = 'up' | 'down' | 'unknown';

function networkMetrics(s: InterfaceStats, linkState: LinkState): Record<string, WireMetric> {
  const counter = (value: number, unit: string): WireMetric => wireMetric('uint64', value, unit);
  return {
    rx_bytes: counter(s.rxBytes, 'bytes'),
    rx_packets: counter(s.rxPackets, 'packets'),
    rx_errors: counter(s.rxErrors, 'errors'),
    rx_dropped: counter(s.rxDropped, 'packets'),
    rx_overruns: counter(s.rxFifo, 'overruns'),
    rx_frame: counter(s.rxFrame, 'frames'),
    tx_bytes: counter(s.txBytes, 'bytes'),
    tx_packets: counter(s.txPackets, 'packets'),
    tx_errors: counter(s.txErrors, 'errors'),
    tx_dropped: counter(s.txDropped, 'packets'),
    tx_overruns: counter(s.txFifo, 'overruns'),
    tx_collisions: counter(s.txCollisions, 'collisions'),
    tx_carrier: counter(s.txCarrier, 'errors'),
    link_state: wireMetric('string', linkState, 'link_state'),
  };
}

/** agent.network: details.target is an interface as /proc/net/dev lists it (`eth0`, `lo`); counters are cumulative (alarms take rate()). */
export class NetworkCollector implements Collector {
  readonly #netDevPath: string;
  readonly #sysRoot: string;

  constructor(options: CollectorOptions = {}) {
    this.#netDevPath = join(options.procRoot ?? PROC_ROOT_DEFAULT, 'net', 'dev');
    this.#sysRoot = options.sysRoot ?? SYS_ROOT_DEFAULT;
  }

  /** Reads /proc/net/dev and the interface's carrier file. */
  collect(details: Readonly<Record<string, unknown>>, _nowMs: number): Promise<Collected> {
    return safely(async () => {
      const target = targetOf(details);
      if (target === undefined) return unavailable('details.target is required: a network interface such as eth0');
      const { text, truncated } = await readProcFile(this.#netDevPath);
      const stats = parseNetDev(text).find((candidate) => candidate.name === target);
      if (stats === undefined) return notFound(`no such interface: ${target}`, this.#netDevPath, truncated);
      return available(networkMetrics(stats, await this.#linkState(stats.name)));
    });
  }

  /** The name comes from /proc/net/dev, which never lists one holding '/', so it cannot leave the class/net directory. */
  async #linkState(name: string): Promise<LinkState> {
    try {
      const { text } = await readProcFile(join(this.#sysRoot, 'class', 'net', name, 'carrier'));
      const carrier = text.trim();
      return carrier === '1' ? 'up' : carrier === '0' ? 'down' : 'unknown';
    } catch {
      return 'unknown';
    }
  }
}
