// Owns the remote.ping probe: ICMP through the ping program where it works, else TCP pings, and the metrics of either.
import type { ResultMetric, ResultMetrics } from '../check-result.js';
import { PING_CHECK_COUNT_DEFAULT } from '../monitoring-limits.js';
import { PING_PROGRAM_DEFAULT, pingByIcmp } from './ping-icmp.js';
import type { PingTally } from './ping-output.js';
import { PING_TCP_PORTS, pingByTcp } from './ping-tcp.js';
import type { Probe, ProbeOutcome } from './probe-types.js';
import { deadlineOf } from './tcp-socket.js';

/** How a run pinged: ICMP echo through the ping program, or TCP connects. */
export type PingMethod = 'icmp' | 'tcp';

/** Where a ping probe pings from; tests point it at a missing program to force the TCP method. */
export interface PingProbeOptions {
  /** The ping program (iputils), looked up on PATH when it has no slash; PING_PROGRAM_DEFAULT when left out. */
  readonly program?: string;
  /** Ports TCP pings knock on, in order; PING_TCP_PORTS when left out. */
  readonly tcpPorts?: readonly number[];
}

function seconds(valueMs: number): ResultMetric {
  return { type: 'n', data: valueMs / 1000, unit: 'seconds' };
}

/**
 * The metrics of a tally, as the reference names them: `available` (percent of the count that
 * answered), `average`, `maximum`, `minimum` (round trips in seconds; left out when none
 * answered), `count` (pings sent) and `method`.
 */
export function pingMetrics(tally: PingTally, count: number, method: PingMethod): ResultMetrics {
  const trips = tally.roundTripsMs;
  const metrics: Record<string, ResultMetric> = {
    available: { type: 'n', data: (100 * trips.length) / count, unit: 'percent' },
    count: { type: 'i', data: tally.sent, unit: 'unknown' },
    method: { type: 's', data: method, unit: 'unknown' },
  };
  if (trips.length > 0) {
    metrics['average'] = seconds(trips.reduce((sum, trip) => sum + trip, 0) / trips.length);
    metrics['maximum'] = seconds(Math.max(...trips));
    metrics['minimum'] = seconds(Math.min(...trips));
  }
  return metrics;
}

/** The outcome of a tally: available when at least one ping was answered; the status names the method. */
function outcomeOf(tally: PingTally, count: number, method: PingMethod, port: number | null): ProbeOutcome {
  const metrics = pingMetrics(tally, count, method);
  const received = tally.roundTripsMs.length;
  const average = metrics['average'] === undefined ? '' : `,avg=${(Number(metrics['average'].data) * 1000).toFixed(3)}ms`;
  const via = method === 'tcp' && port !== null ? `,port=${port}` : '';
  return { available: received > 0, status: `method=${method}${via},sent=${tally.sent},received=${received}${average}`, metrics };
}

/**
 * A remote.ping probe: pings the target details.count times by ICMP through the ping program;
 * where that program is missing or may not open ICMP sockets, by TCP connects (a reset from a
 * closed port proves the host answered). The status and the `method` metric say which was used.
 */
export function createPingProbe(options: PingProbeOptions = {}): Probe {
  const program = options.program ?? PING_PROGRAM_DEFAULT;
  const ports = options.tcpPorts ?? PING_TCP_PORTS;
  return async (context) => {
    const address = context.target.address;
    const given = context.check.details['count'];
    const count = typeof given === 'number' ? given : PING_CHECK_COUNT_DEFAULT;
    const none: PingTally = { sent: 0, roundTripsMs: [] };
    if (!context.guard.allows(address)) return { ...outcomeOf(none, count, 'icmp', null), available: false, status: `address ${address} is denied by the operator (--check-deny)` };
    const deadline = deadlineOf(context.signal, context.timeoutMs);
    try {
      const icmp = await pingByIcmp(program, address, count, context.timeoutMs, deadline.signal);
      if (icmp.kind === 'tally') return outcomeOf(icmp.tally, count, 'icmp', null);
      if (icmp.kind === 'timeout') return { ...outcomeOf(none, count, 'icmp', null), status: 'method=icmp,timed out before ping finished' };
      const tcp = await pingByTcp(address, count, context.timeoutMs, deadline.signal, ports);
      return outcomeOf(tcp, count, 'tcp', tcp.port);
    } finally {
      deadline.dispose();
    }
  };
}

/** The remote.ping probe of a running server: the system's `ping` program, else TCP pings. */
export const pingProbe: Probe = createPingProbe();
