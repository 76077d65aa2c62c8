// Owns the HTTP side of the agent endpoint's TLS ports: GET/HEAD /upgrades/<channel>/<version>/<bundle|bundle.sig>, served from the update store.
import { open, type FileHandle } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assert } from '../../core/assert.js';
import { StrataError } from '../../core/errors.js';
import { statusOfKind } from '../../core/error-status.js';
import { AGENT_UPDATE_BUNDLE_BYTES_MAX, AGENT_UPDATE_DOWNLOAD_TIMEOUT_MS, UPDATE_HTTP_HEADERS_TIMEOUT_MS, UPDATE_HTTP_IDLE_TIMEOUT_MS, UPDATE_SIGNATURE_BYTES_MAX } from '../agent-limits.js';
import type { UpdateStore } from './update-store.js';

/** Largest request head the update server reads (a GET line and a few headers). */
const HEADER_BYTES_MAX = 8 * 1024;
const ROUTE = /^\/upgrades\/([^/?#]+)\/([^/?#]+)\/(bundle|bundle\.sig)(?:\?.*)?$/;

/** The least a logger must do for the update server (pino-like). */
export interface UpdateHttpLogger {
  warn(obj: object, msg: string): void;
}

/** Optional settings of createUpdateHttpServer (tests lower the limits). */
export interface UpdateHttpOptions {
  readonly logger?: UpdateHttpLogger;
  /** Largest bundle served (AGENT_UPDATE_BUNDLE_BYTES_MAX). */
  readonly bundleBytesMax?: number;
  /** How long a connection may last from its handover, however slowly it reads (AGENT_UPDATE_DOWNLOAD_TIMEOUT_MS). */
  readonly downloadTimeoutMs?: number;
}

/** True when the first bytes of a connection start an HTTP request (`GET ` or `HEAD `) rather than a JSON line. */
export function looksLikeHttp(firstBytes: Buffer): boolean {
  const head = firstBytes.subarray(0, 5).toString('latin1');
  return head.startsWith('GET ') || head === 'HEAD ';
}

/**
 * Hands a connection whose first chunk `looksLikeHttp` to the update server: puts the chunk back,
 * emits 'connection' and resumes the socket (paused while sniffing; the HTTP parser does not
 * resume it, and a paused socket would sit until the head timeout).
 */
export function handOverToHttp(server: Server, socket: Duplex, firstChunk: Buffer): void {
  socket.pause();
  socket.unshift(firstChunk);
  server.emit('connection', socket);
  socket.resume();
}

function sendError(response: ServerResponse, error: StrataError, headers: Record<string, string> = {}): void {
  const status = statusOfKind(error.kind);
  const body = JSON.stringify({ code: status, message: error.message, type: error.code });
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Connection: 'close', ...headers });
  response.end(body);
}

async function openPublished(store: UpdateStore, url: string, bundleBytesMax: number): Promise<{ handle: FileHandle; size: number }> {
  const match = ROUTE.exec(url);
  if (match === null) throw new StrataError('HTTP_ROUTE_NOT_FOUND', 'only /upgrades/<channel>/<version>/bundle and bundle.sig are served here');
  const [, channel = '', version = '', file = ''] = match;
  const path = store.filePath(channel, version, file);
  const missing = new StrataError('AGENT_UPDATE_UNAVAILABLE', `no ${file} is published for version ${version} of channel ${channel}`, { channel, version });
  if (path === undefined) throw missing;
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch {
    throw missing;
  }
  const max = file === 'bundle' ? bundleBytesMax : UPDATE_SIGNATURE_BYTES_MAX;
  try {
    const { size } = await handle.stat();
    if (size > max) throw new StrataError('AGENT_UPDATE_UNAVAILABLE', `the published ${file} is ${size} bytes, more than the ${max} agents take`, { channel, version });
    return { handle, size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function serve(store: UpdateStore, request: IncomingMessage, response: ServerResponse, options: UpdateHttpOptions): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    sendError(response, new StrataError('HTTP_METHOD_NOT_ALLOWED', `${request.method ?? ''} is not allowed; use GET or HEAD`), { Allow: 'GET, HEAD' });
    return;
  }
  let opened: { handle: FileHandle; size: number };
  try {
    opened = await openPublished(store, request.url ?? '', options.bundleBytesMax ?? AGENT_UPDATE_BUNDLE_BYTES_MAX);
  } catch (error) {
    sendError(response, error instanceof StrataError ? error : new StrataError('INTERNAL', 'the update could not be read'));
    return;
  }
  const { handle, size } = opened;
  response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': size, 'Cache-Control': 'no-store', Connection: 'close' });
  if (request.method === 'HEAD' || size === 0) {
    await handle.close();
    response.end();
    return;
  }
  // The read stream owns the handle from here and closes it when done or destroyed. Reading stops at the size
  // fstat gave, so the body always matches Content-Length even if the file grows.
  await pipeline(handle.createReadStream({ start: 0, end: size - 1, autoClose: true, emitClose: true }), response);
}

/**
 * Closes connections that never send a request head, and every connection at the download
 * deadline: a reader slow enough to pass the idle timeout (a byte now and then) still holds its
 * connection no longer than downloadTimeoutMs.
 */
function boundConnections(server: Server, downloadTimeoutMs: number): void {
  const headTimers = new WeakMap<Socket, NodeJS.Timeout>();
  server.on('connection', (socket: Socket) => {
    const head = setTimeout(() => socket.destroy(), UPDATE_HTTP_HEADERS_TIMEOUT_MS);
    const deadline = setTimeout(() => socket.destroy(), downloadTimeoutMs);
    head.unref();
    deadline.unref();
    headTimers.set(socket, head);
    socket.once('close', () => {
      clearTimeout(head);
      clearTimeout(deadline);
    });
  });
  server.on('request', (request: IncomingMessage) => clearTimeout(headTimers.get(request.socket)));
}

/**
 * An http.Server (not listening) answering GET/HEAD /upgrades/<channel>/<version>/<bundle|bundle.sig>
 * from the store (streamed, Content-Length, 404 JSON {code,message,type} otherwise, 405 for other
 * methods); request timeout bounded; keep-alive off. The endpoint hands it TLS sockets with
 * `server.emit('connection', socket)`; Node enforces its own request timeouts only on listening
 * servers, so the head and download deadlines here are timers of our own. The endpoint bounds
 * the number of connections (its download pool, apart from the handshakes).
 */
export function createUpdateHttpServer(store: UpdateStore, options: UpdateHttpOptions = {}): Server {
  const downloadTimeoutMs = options.downloadTimeoutMs ?? AGENT_UPDATE_DOWNLOAD_TIMEOUT_MS;
  assert(Number.isSafeInteger(downloadTimeoutMs) && downloadTimeoutMs > 0 && downloadTimeoutMs <= AGENT_UPDATE_DOWNLOAD_TIMEOUT_MS, 'the download timeout is a positive integer up to AGENT_UPDATE_DOWNLOAD_TIMEOUT_MS');
  const server = createServer({ maxHeaderSize: HEADER_BYTES_MAX, requestTimeout: downloadTimeoutMs, headersTimeout: Math.min(UPDATE_HTTP_HEADERS_TIMEOUT_MS, downloadTimeoutMs) }, (request, response) => {
    serve(store, request, response, options).catch((error: unknown) => {
      options.logger?.warn({ url: request.url, code: (error as { code?: unknown }).code }, 'update download ended early');
      response.destroy();
    });
  });
  server.keepAliveTimeout = 0;
  server.maxRequestsPerSocket = 1;
  server.timeout = UPDATE_HTTP_IDLE_TIMEOUT_MS;
  boundConnections(server, downloadTimeoutMs);
  return server;
}
