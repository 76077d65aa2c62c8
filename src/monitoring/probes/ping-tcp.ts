// Owns pinging by TCP where ICMP is not available: a connect answered by the host, even with a reset, is a reply.
import { PING_EXIT_MARGIN_MS, PING_TCP_ATTEMPT_WAIT_MS_MAX } from '../monitoring-limits.js';
import type { PingTally } from './ping-output.js';
import { connectSocket, deadlineOf, elapsedSince, stopwatchStart } from './tcp-socket.js';

/**
 * Ports a TCP ping knocks on, in order: echo (7), which hosts rarely serve, so a reset usually
 * answers at once, then http (80) for hosts whose firewall drops what they do not serve.
 */
export const PING_TCP_PORTS: readonly number[] = [7, 80];

/** One knock: the round trip in ms when the host answered (connected or reset), null when nothing came back in time. */
async function knock(address: string, port: number, waitMs: number, signal: AbortSignal): Promise<number | null> {
  const deadline = deadlineOf(signal, waitMs);
  const started = stopwatchStart();
  try {
    const outcome = await connectSocket({ address, port, signal: deadline.signal });
    if (outcome.ok) {
      // A ping only needs the handshake: reset at once rather than leave a connection to close.
      outcome.socket.resetAndDestroy();
      return outcome.connectMs;
    }
    return outcome.failure === 'refused' ? elapsedSince(started) : null;
  } finally {
    deadline.dispose();
  }
}

/**
 * `count` TCP pings of `address`, one after the other, within `timeoutMs`. Each may wait at most
 * PING_TCP_ATTEMPT_WAIT_MS_MAX (and its share of the timeout), split over PING_TCP_PORTS tried in
 * order from the port that last answered; the first answer is the reply. A ping the deadline
 * stops before it is sent is not counted as sent.
 */
export async function pingByTcp(address: string, count: number, timeoutMs: number, signal: AbortSignal, ports: readonly number[] = PING_TCP_PORTS): Promise<PingTally & { readonly port: number | null }> {
  const budgetMs = Math.max(1, timeoutMs - PING_EXIT_MARGIN_MS);
  const attemptMs = Math.min(PING_TCP_ATTEMPT_WAIT_MS_MAX, Math.floor(budgetMs / count));
  const roundTripsMs: number[] = [];
  let sent = 0;
  let first = 0;
  let answeredPort: number | null = null;
  for (let attempt = 0; attempt < count && !signal.aborted; attempt += 1) {
    sent += 1;
    for (let tried = 0; tried < ports.length && !signal.aborted; tried += 1) {
      const index = (first + tried) % ports.length;
      const port = ports[index] as number;
      const roundTripMs = await knock(address, port, Math.max(1, Math.floor(attemptMs / ports.length)), signal);
      if (roundTripMs !== null) {
        roundTripsMs.push(roundTripMs);
        first = index;
        answeredPort = port;
        break;
      }
    }
  }
  return { sent, roundTripsMs, port: answeredPort };
}
