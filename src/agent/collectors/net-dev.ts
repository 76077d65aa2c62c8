// Owns parsing /proc/net/dev: each network interface's cumulative receive and transmit counters.
import { fieldsOf, linesOf, parseCounts } from './proc-fields.js';

/** One interface's counters since it came up (the 16 columns of /proc/net/dev but the compressed and multicast ones). */
export interface InterfaceStats {
  readonly name: string;
  readonly rxBytes: number;
  readonly rxPackets: number;
  readonly rxErrors: number;
  readonly rxDropped: number;
  /** Receive FIFO overruns. */
  readonly rxFifo: number;
  readonly rxFrame: number;
  readonly txBytes: number;
  readonly txPackets: number;
  readonly txErrors: number;
  readonly txDropped: number;
  /** Transmit FIFO overruns. */
  readonly txFifo: number;
  readonly txCollisions: number;
  readonly txCarrier: number;
}

/** Counter columns after `name:` (8 receive, 8 transmit). */
const NET_DEV_COLUMNS = 16;

function interfaceStatsOf(line: string): InterfaceStats | undefined {
  // Interface names cannot hold ':' or blanks, so the first ':' ends the name (old kernels wrote `eth0:123` with no blank).
  const colon = line.indexOf(':');
  if (colon < 0) return undefined;
  const name = line.slice(0, colon).trim();
  if (name === '' || /[\s/]/.test(name)) return undefined;
  const fields = fieldsOf(line.slice(colon + 1));
  if (fields.length !== NET_DEV_COLUMNS) return undefined;
  const c = parseCounts(fields);
  if (c === undefined) return undefined;
  const at = (index: number): number => c[index] ?? 0;
  return {
    name,
    rxBytes: at(0),
    rxPackets: at(1),
    rxErrors: at(2),
    rxDropped: at(3),
    rxFifo: at(4),
    rxFrame: at(5),
    txBytes: at(8),
    txPackets: at(9),
    txErrors: at(10),
    txDropped: at(11),
    txFifo: at(12),
    txCollisions: at(13),
    txCarrier: at(14),
  };
}

/** Parses /proc/net/dev; the two header lines and any line of another shape are skipped, and so is a repeated name. */
export function parseNetDev(text: string): InterfaceStats[] {
  const interfaces: InterfaceStats[] = [];
  const seen = new Set<string>();
  for (const line of linesOf(text)) {
    const stats = interfaceStatsOf(line);
    if (stats === undefined || seen.has(stats.name)) continue;
    seen.add(stats.name);
    interfaces.push(stats);
  }
  return interfaces;
}
