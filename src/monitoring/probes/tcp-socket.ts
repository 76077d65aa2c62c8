// Owns opening one TCP or TLS connection for a probe within a deadline, and naming why one failed.
import { connect as netConnect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';

/**
 * A stopwatch reading in ms. Probes measure elapsed time with the monotonic timer: the rule that
 * time comes from an injected Clock is about timestamps, and a duration must not jump with the wall clock.
 */
export function elapsedSince(startMs: number): number {
  return performance.now() - startMs;
}

/** The monotonic timer's reading now, for elapsedSince. */
export function stopwatchStart(): number {
  return performance.now();
}

/** A signal that fires when `parent` does or after `waitMs`, and how to let go of its timer and listener. */
export interface Deadline {
  readonly signal: AbortSignal;
  dispose(): void;
}

/** A deadline `waitMs` from now, never later than `parent`. */
export function deadlineOf(parent: AbortSignal, waitMs: number): Deadline {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  const timer = setTimeout(abort, Math.max(0, waitMs));
  if (parent.aborted) controller.abort();
  else parent.addEventListener('abort', abort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      parent.removeEventListener('abort', abort);
    },
  };
}

/** Why a connection was not made. `refused` means the host answered with a reset: it is up, the port is closed. */
export type ConnectFailure = 'refused' | 'timeout' | 'unreachable' | 'reset' | 'tls' | 'error';

/** A connection, or why there is none. */
export type ConnectOutcome =
  | { readonly ok: true; readonly socket: Socket; readonly connectMs: number; readonly tls: TLSSocket | null }
  | { readonly ok: false; readonly failure: ConnectFailure; readonly code: string };

/** What to connect to. */
export interface ConnectRequest {
  readonly address: string;
  readonly port: number;
  /** Fires when the connection must be given up (the run's deadline). */
  readonly signal: AbortSignal;
  /** TLS after connecting, with the server name for SNI (null: none, as for an address). The certificate is reported, not enforced. */
  readonly tls?: { readonly servername: string | null };
}

const FAILURES: Readonly<Record<string, ConnectFailure>> = {
  ECONNREFUSED: 'refused',
  ETIMEDOUT: 'timeout',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  EADDRNOTAVAIL: 'unreachable',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
};

/** The failure a socket error stands for. */
function failureOf(error: unknown, tls: boolean): { failure: ConnectFailure; code: string } {
  const code = typeof (error as { code?: unknown } | null)?.code === 'string' ? (error as { code: string }).code : 'EUNKNOWN';
  const failure = FAILURES[code] ?? (tls ? 'tls' : 'error');
  return { failure, code };
}

/**
 * Connects to `address:port` (then speaks TLS when asked) and resolves once connected, or with
 * the failure: never rejects. `connectMs` is the TCP connect time from the call; a TLS handshake
 * is waited for but not counted in it.
 */
export function connectSocket(request: ConnectRequest): Promise<ConnectOutcome> {
  const started = stopwatchStart();
  return new Promise((resolve) => {
    if (request.signal.aborted) {
      resolve({ ok: false, failure: 'timeout', code: 'ETIMEDOUT' });
      return;
    }
    const secure = request.tls !== undefined;
    const socket: Socket = secure
      ? tlsConnect({ host: request.address, port: request.port, rejectUnauthorized: false, ...(request.tls?.servername ? { servername: request.tls.servername } : {}) })
      : netConnect({ host: request.address, port: request.port });
    let connectMs: number | null = null;
    const settle = (outcome: ConnectOutcome): void => {
      request.signal.removeEventListener('abort', onAbort);
      socket.removeListener('error', onError);
      if (!outcome.ok) socket.destroy();
      else socket.on('error', () => undefined); // later errors surface through the reader's close
      resolve(outcome);
    };
    const onAbort = (): void => settle({ ok: false, failure: 'timeout', code: 'ETIMEDOUT' });
    const onError = (error: unknown): void => settle({ ok: false, ...failureOf(error, secure && connectMs !== null) });
    request.signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', onError);
    socket.once('connect', () => {
      connectMs = elapsedSince(started);
      if (!secure) settle({ ok: true, socket, connectMs, tls: null });
    });
    if (secure) {
      socket.once('secureConnect', () => settle({ ok: true, socket, connectMs: connectMs ?? elapsedSince(started), tls: socket as TLSSocket }));
    }
  });
}

/** Words for a connection failure in a check's status. */
export function connectFailureText(failure: ConnectFailure, code: string, port: number): string {
  switch (failure) {
    case 'refused':
      return `connection refused on port ${port}`;
    case 'timeout':
      return `timed out connecting to port ${port}`;
    case 'unreachable':
      return `host unreachable (${code})`;
    case 'reset':
      return `connection reset on port ${port}`;
    case 'tls':
      return `TLS handshake failed on port ${port} (${code})`;
    case 'error':
      return `connection to port ${port} failed (${code})`;
  }
}
