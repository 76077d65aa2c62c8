// Owns one HTTP(S) request and its response on a connection of its own to a given address, timed, with a bounded body read.
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { isIP } from 'node:net';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { failureReason } from './http-failure.js';

/** One request: where to connect, what to send, how much body to read. */
export interface ExchangeRequest {
  /** The URL asked for: scheme, port, path and query; its host names the Host header, SNI and the certificate check. */
  readonly url: URL;
  /** The IP address connected to (already resolved and guarded). */
  readonly address: string;
  readonly method: string;
  /** Every header sent, Host included. */
  readonly headers: OutgoingHttpHeaders;
  readonly payload: string | null;
  /** Most body bytes read; the rest is counted, not read. */
  readonly bodyBytesMax: number;
  /** Whether a response with this status has its body read (a redirect about to be followed has not). */
  readonly wantsBody: (statusCode: number) => boolean;
  /** Aborting destroys the connection; the exchange then settles at once. */
  readonly signal: AbortSignal;
  /** Milliseconds on the run's stopwatch (a monotonic clock: its origin is the run's start). */
  readonly elapsedMs: () => number;
}

/** A response was received. */
export interface ExchangeResponse {
  readonly ok: true;
  readonly statusCode: number;
  /** The Location header, when given. */
  readonly location: string | null;
  /** The body bytes read, at most bodyBytesMax. */
  readonly body: Buffer;
  /** Body bytes left unread because of the limit (from Content-Length when known, else those seen beyond it). */
  readonly truncatedBytes: number;
  /** Stopwatch time when the TCP connection was established. */
  readonly connectMs: number;
  /** Stopwatch time when the response head arrived. */
  readonly firstByteMs: number;
  /** Why the body could not be read to its end, or null when it was (or was cut at the limit). */
  readonly bodyFailure: string | null;
  /** True when the body read stopped because the run was aborted. */
  readonly aborted: boolean;
}

/** No response was received. */
export interface ExchangeFailure {
  readonly ok: false;
  /** Why, in words: `connection refused`, `certificate has expired`... */
  readonly reason: string;
  /** True when the run was aborted (its timeout); reason is then meaningless. */
  readonly aborted: boolean;
  /** Stopwatch time of the TCP connection, or null when none was made. */
  readonly connectMs: number | null;
}

/** What one exchange gives. */
export type ExchangeResult = ExchangeResponse | ExchangeFailure;

/** The URL's hostname without IPv6 brackets. */
export function bareHostname(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** The port the URL names, or its scheme's default. */
function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** The Content-Length a response declares, or null when absent or malformed. */
function declaredLength(response: IncomingMessage): number | null {
  const text = response.headers['content-length'];
  return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : null;
}

/**
 * Options of the request: it connects to the address itself (no lookup), on a connection of its
 * own (agent false: nothing pooled outlives the run); TLS sends the URL's host name as SNI and
 * verifies the certificate against it, with the system's trusted authorities.
 */
function requestOptions(req: ExchangeRequest): RequestOptions {
  const name = bareHostname(req.url);
  const base: RequestOptions = {
    host: req.address,
    family: isIP(req.address),
    port: portOf(req.url),
    path: `${req.url.pathname}${req.url.search}`,
    method: req.method,
    headers: req.headers,
    agent: false,
    signal: req.signal,
  };
  if (req.url.protocol !== 'https:') return base;
  return {
    ...base,
    rejectUnauthorized: true,
    servername: isIP(name) === 0 ? name : '',
    checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(name, cert),
  };
}

/**
 * Sends the request and reads the response head and at most bodyBytesMax body bytes, then closes
 * the connection. Never throws and never rejects: a failure before the response is an
 * ExchangeFailure; one while reading the body is a response with bodyFailure set.
 */
export function httpExchange(req: ExchangeRequest): Promise<ExchangeResult> {
  return new Promise<ExchangeResult>((resolve) => {
    let connectMs: number | null = null;
    let request: ClientRequest | null = null;
    let settled = false;
    const finish = (result: ExchangeResult): void => {
      if (settled) return;
      settled = true;
      // Errors after the outcome (the abort signal, a late reset) have nothing left to report.
      request?.on('error', () => undefined);
      request?.destroy();
      resolve(result);
    };
    const fail = (error: unknown): void => finish({ ok: false, reason: failureReason(error), aborted: req.signal.aborted, connectMs });
    try {
      request = (req.url.protocol === 'https:' ? httpsRequest : httpRequest)(requestOptions(req));
    } catch (error) {
      fail(error);
      return;
    }
    request.on('socket', (socket) => socket.once('connect', () => (connectMs = req.elapsedMs())));
    request.on('error', fail);
    request.on('response', (response) => {
      const head = { statusCode: response.statusCode ?? 0, location: response.headers.location ?? null, connectMs: connectMs ?? req.elapsedMs(), firstByteMs: req.elapsedMs() };
      request?.removeListener('error', fail);
      if (!req.wantsBody(head.statusCode)) {
        finish({ ok: true, ...head, body: Buffer.alloc(0), truncatedBytes: 0, bodyFailure: null, aborted: false });
        return;
      }
      readBody(response, request as ClientRequest, req, (body, truncatedBytes, failure) =>
        finish({ ok: true, ...head, body, truncatedBytes, bodyFailure: failure === null ? null : failureReason(failure), aborted: failure !== null && req.signal.aborted }),
      );
    });
    request.end(req.payload ?? undefined);
  });
}

/**
 * Reads the body until its end, a failure, or the limit: past the limit it stops reading (the
 * caller destroys the connection) and reports how many bytes were left unread.
 */
function readBody(
  response: IncomingMessage,
  request: ClientRequest,
  req: ExchangeRequest,
  done: (body: Buffer, truncatedBytes: number, failure: unknown) => void,
): void {
  const chunks: Buffer[] = [];
  let kept = 0;
  let over = false;
  const declared = declaredLength(response);
  const onError = (error: unknown): void => done(Buffer.concat(chunks, kept), 0, error ?? new Error('aborted'));
  response.on('data', (chunk: Buffer) => {
    if (over) return;
    const room = req.bodyBytesMax - kept;
    if (chunk.length <= room) {
      chunks.push(chunk);
      kept += chunk.length;
      return;
    }
    over = true;
    chunks.push(chunk.subarray(0, room));
    kept += room;
    const truncatedBytes = declared !== null && declared > kept ? declared - kept : chunk.length - room;
    response.pause();
    done(Buffer.concat(chunks, kept), truncatedBytes, null);
  });
  response.on('end', () => done(Buffer.concat(chunks, kept), 0, null));
  response.on('error', onError);
  // A connection destroyed mid-body is reported on the request in some Node versions.
  request.on('error', onError);
}
