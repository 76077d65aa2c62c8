// Owns the remote.tcp probe: connect (TLS when asked), optionally read a banner, send a body and match the reply.
import { isIP, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { ResultMetric } from '../check-result.js';
import type { CheckDetails } from '../check-types.js';
import { TCP_CHECK_READ_BYTES_MAX } from '../monitoring-limits.js';
import { execSafe } from '../safe-pattern.js';
import { tcpPatternsOf, type TcpPatterns } from './tcp-patterns.js';
import { SocketReader, type ReadResult } from './tcp-reader.js';
import { connectFailureText, connectSocket, deadlineOf, elapsedSince, stopwatchStart } from './tcp-socket.js';
import type { Probe, ProbeOutcome } from './probe-types.js';

/** The metrics of a run as they are measured. */
type Metrics = Record<string, ResultMetric>;

/** A whole-millisecond uint32 metric. */
function ms(value: number): ResultMetric {
  return { type: 'I', data: Math.max(0, Math.round(value)), unit: 'milliseconds' };
}

/** A string metric. */
function text(value: string): ResultMetric {
  return { type: 's', data: value, unit: 'unknown' };
}

/** What `pattern` matched in `subject`, or '' for no match. */
function matched(pattern: RegExp, subject: string): string {
  return execSafe(pattern, subject)?.[0] ?? '';
}

/** An unavailable outcome with the metrics gathered so far and the run's duration. */
function unavailable(status: string, metrics: Metrics, startedAt: number): ProbeOutcome {
  return { available: false, status, metrics: { ...metrics, duration: ms(elapsedSince(startedAt)) } };
}

/** Why a read phase ended without its answer, in words; null when it completed (matched, filled, or the server closed). */
function incomplete(result: ReadResult, waitingFor: string, aborted: boolean): string | null {
  if (result.end !== 'failed') return null;
  return aborted ? `timed out waiting for ${waitingFor}` : `connection lost waiting for ${waitingFor}`;
}

/** Writes `body` and resolves once it is handed to the kernel; false when the connection failed first. */
function send(socket: Socket, body: string): Promise<boolean> {
  return new Promise((resolve) => {
    socket.write(body, 'utf8', (error) => resolve(error === undefined || error === null));
  });
}

/** The TLS certificate verdict as a metric: '' when the chain and name verify, else OpenSSL's or Node's reason. */
function certError(tls: TLSSocket): ResultMetric {
  const reason = tls.authorized ? '' : String(tls.authorizationError ?? 'certificate not verified');
  return text(reason);
}

/** The exchange after connecting: banner, send_body, reply. Metrics are added to `metrics` as measured; returns why it failed, or null. */
async function exchange(socket: Socket, signal: AbortSignal, details: CheckDetails, patterns: TcpPatterns, metrics: Metrics, startedAt: number): Promise<string | null> {
  const reader = new SocketReader(socket, TCP_CHECK_READ_BYTES_MAX);
  const sendBody = details['send_body'];
  try {
    if (patterns.banner !== null) {
      const banner = await reader.line();
      metrics['banner'] = text(banner.text);
      metrics['banner_match'] = text(matched(patterns.banner, banner.text));
      const failed = incomplete(banner, 'the banner', signal.aborted);
      if (failed !== null) return failed;
      // The body is sent only after the banner is verified (the reference's rule); a mismatch ends the exchange.
      if (metrics['banner_match'].data === '') return null;
    }
    if (typeof sendBody === 'string' && !(await send(socket, sendBody))) return signal.aborted ? 'timed out sending send_body' : 'connection lost sending send_body';
    if (patterns.body !== null) {
      const body = patterns.body;
      const reply = await reader.reply((received) => matched(body, received) !== '');
      metrics['body_match'] = text(matched(body, reply.text));
      return incomplete(reply, 'a reply', signal.aborted);
    }
    return null;
  } finally {
    if (reader.firstByteAt !== null) metrics['tt_firstbyte'] = ms(reader.firstByteAt - startedAt);
  }
}

/**
 * remote.tcp: connects to details.port on the target (TLS when details.ssl, the certificate
 * reported as `cert_error`, not enforced), reads the first line when banner_match is given, sends
 * send_body (after a matching banner), and reads the reply up to a body_match match, the end of
 * the stream or TCP_CHECK_READ_BYTES_MAX bytes. Available when it connected and the exchange
 * completed; a mismatch is reported by the `banner_match` / `body_match` metrics ('' for none).
 */
export const tcpProbe: Probe = async (context) => {
  const startedAt = stopwatchStart();
  const { details } = context.check;
  const port = Number(details['port']);
  const address = context.target.address;
  if (!context.guard.allows(address)) return unavailable(`address ${address} is denied by the operator (--check-deny)`, {}, startedAt);
  let patterns: TcpPatterns;
  try {
    patterns = tcpPatternsOf(details);
  } catch {
    return unavailable('banner_match or body_match is not a safe regular expression', {}, startedAt);
  }
  const deadline = deadlineOf(context.signal, context.timeoutMs);
  // SNI carries a host name only: a target given as an IP literal sends none (RFC 6066).
  const hostname = context.target.hostname;
  const tls = details['ssl'] === true ? { servername: hostname !== null && isIP(hostname) === 0 ? hostname : null } : undefined;
  const connection = await connectSocket({ address, port, signal: deadline.signal, ...(tls ? { tls } : {}) });
  if (!connection.ok) {
    deadline.dispose();
    return unavailable(connectFailureText(connection.failure, connection.code, port), {}, startedAt);
  }
  const { socket } = connection;
  // At the deadline the socket is destroyed, which ends any read or write the exchange waits on.
  const onAbort = (): void => void socket.destroy();
  deadline.signal.addEventListener('abort', onAbort, { once: true });
  if (deadline.signal.aborted) onAbort();
  const metrics: Metrics = { tt_connect: ms(connection.connectMs) };
  if (connection.tls !== null) metrics['cert_error'] = certError(connection.tls);
  try {
    const failed = await exchange(socket, deadline.signal, details, patterns, metrics, startedAt);
    if (failed !== null) return unavailable(failed, metrics, startedAt);
    const duration = ms(elapsedSince(startedAt));
    return { available: true, status: `port=${port},rt=${(Number(duration.data) / 1000).toFixed(3)}s`, metrics: { ...metrics, duration } };
  } finally {
    deadline.signal.removeEventListener('abort', onAbort);
    deadline.dispose();
    socket.destroy();
  }
};
