// Owns one side of an agent protocol connection: newline-delimited JSON, our requests matched to their responses, their requests to our handler, and every bound of a connection.
import type { Duplex } from 'node:stream';
import { assert } from '../../core/assert.js';
import { isStrataError, StrataError } from '../../core/errors.js';
import { statusOfKind } from '../../core/error-status.js';
import {
  AGENT_CLOSE_LINGER_MS,
  AGENT_INVALID_MESSAGES_MAX,
  AGENT_LINE_BYTES_MAX,
  AGENT_PENDING_REQUESTS_MAX,
  AGENT_REQUEST_TIMEOUT_MS,
  AGENT_WRITE_BUFFER_BYTES_MAX,
} from '../agent-limits.js';
import { LineSplitter } from './line-splitter.js';
import { PROTOCOL_VERSION, type MessageId, type RequestMessage, type ResponseMessage } from './messages.js';
import { readEnvelope } from './envelope.js';

/** What an RpcPeer needs: the socket, the names of both sides, the request handler and the limits (each defaulting to its constant). */
export interface RpcPeerOptions {
  /** A tls.TLSSocket in practice. */
  readonly socket: Duplex;
  /** Our name: 'endpoint' (ENDPOINT_NAME) or the agent's guid. */
  readonly self: string;
  /** Initial peer name; setPeer() changes it (the endpoint learns the agent's after hello). */
  readonly peer: string;
  /** Handles one incoming request; its value is the result; a thrown StrataError becomes the error object; any other throw an INTERNAL 500. Never called after close. */
  readonly onRequest: (method: string, params: unknown, request: RequestMessage) => unknown | Promise<unknown>;
  /** Called once when the connection closes, with the error that closed it (undefined for a clean end). */
  readonly onClose?: (error: StrataError | undefined) => void;
  /** Default wait for a response (AGENT_REQUEST_TIMEOUT_MS). */
  readonly requestTimeoutMs?: number;
  /** Longest line read or sent (AGENT_LINE_BYTES_MAX). */
  readonly lineBytesMax?: number;
  /** Most bytes left unsent after a write (AGENT_WRITE_BUFFER_BYTES_MAX); keep it above lineBytesMax, or a long line alone is too much. */
  readonly writeBufferBytesMax?: number;
  /** Ours waiting for answers (beyond it a request is AGENT_PEER_TOO_SLOW), and theirs in our handlers (beyond it they wait, and reading pauses once as many wait) (AGENT_PENDING_REQUESTS_MAX). */
  readonly pendingRequestsMax?: number;
  /** Invalid messages in a row that close the connection (AGENT_INVALID_MESSAGES_MAX). */
  readonly invalidMessagesMax?: number;
}

interface Pending {
  readonly method: string;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: StrataError) => void;
  readonly timer: NodeJS.Timeout;
}

/** One side of an agent protocol connection: newline-delimited JSON, requests matched to responses by id. */
export class RpcPeer {
  private readonly socket: Duplex;
  private readonly self: string;
  private peer: string;
  private readonly splitter: LineSplitter;
  private readonly limits: { requestTimeoutMs: number; lineBytesMax: number; writeBufferBytesMax: number; pendingRequestsMax: number; invalidMessagesMax: number };
  /** Our requests waiting for responses, by String(id): a peer that echoes a numeric id as a string is still matched. */
  private readonly pending = new Map<string, Pending>();
  /**
   * Their requests read but not yet handed to our handler because pendingRequestsMax are in it.
   * Reading goes on (responses to our requests still arrive) until pendingRequestsMax wait here
   * too, then pauses: the backlog never holds more than that plus one chunk's lines.
   */
  private backlog: RequestMessage[] = [];
  private nextId = 0;
  private handling = 0;
  private invalidInRow = 0;
  private isClosed = false;
  private linesIn = 0;

  constructor(private readonly options: RpcPeerOptions) {
    this.socket = options.socket;
    this.self = options.self;
    this.peer = options.peer;
    this.limits = {
      requestTimeoutMs: options.requestTimeoutMs ?? AGENT_REQUEST_TIMEOUT_MS,
      lineBytesMax: options.lineBytesMax ?? AGENT_LINE_BYTES_MAX,
      writeBufferBytesMax: options.writeBufferBytesMax ?? AGENT_WRITE_BUFFER_BYTES_MAX,
      pendingRequestsMax: options.pendingRequestsMax ?? AGENT_PENDING_REQUESTS_MAX,
      invalidMessagesMax: options.invalidMessagesMax ?? AGENT_INVALID_MESSAGES_MAX,
    };
    assert(this.limits.pendingRequestsMax > 0 && this.limits.invalidMessagesMax > 0, 'peer limits are positive');
    this.splitter = new LineSplitter(this.limits.lineBytesMax);
    this.socket.on('data', (chunk: Buffer | string) => this.onData(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    this.socket.on('error', (error: Error) => this.close(new StrataError('AGENT_CONNECTION_CLOSED', `connection error: ${error.message}`, { reason: (error as NodeJS.ErrnoException).code ?? error.name })));
    this.socket.on('end', () => this.close());
    this.socket.on('close', () => this.close());
    // A socket paused by its owner (to look at its first bytes, then unshift them) starts flowing here.
    this.socket.resume();
  }

  /** True once closed. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Messages read so far (for idle detection by the owner); invalid lines count too. */
  get messagesIn(): number {
    return this.linesIn;
  }

  /** Changes the name used as `target` of what we send. */
  setPeer(name: string): void {
    this.peer = name;
  }

  /** Changes the longest line read or sent from now on (the endpoint raises it once a handshake succeeded). */
  setLineBytesMax(lineBytesMax: number): void {
    this.splitter.setLineBytesMax(lineBytesMax);
    this.limits.lineBytesMax = lineBytesMax;
  }

  /**
   * Sends a request; resolves with its result; rejects with StrataError AGENT_REQUEST_TIMEOUT, AGENT_CONNECTION_CLOSED, AGENT_PEER_TOO_SLOW, or AGENT_REQUEST_REFUSED (details {code, message, type}) when the peer answers with an error. Ids are numbers counting up from 0.
   * A request whose line would exceed lineBytesMax is refused with AGENT_LINE_TOO_LONG and the connection kept.
   */
  request(method: string, params: unknown, timeoutMs: number = this.limits.requestTimeoutMs): Promise<unknown> {
    if (this.isClosed) return Promise.reject(new StrataError('AGENT_CONNECTION_CLOSED', `cannot send ${method}: the connection is closed`, { method }));
    if (this.pending.size >= this.limits.pendingRequestsMax) {
      const error = new StrataError('AGENT_PEER_TOO_SLOW', `${this.limits.pendingRequestsMax} requests wait for responses`, { pendingRequestsMax: this.limits.pendingRequestsMax });
      this.close(error);
      return Promise.reject(error);
    }
    const id = this.nextId++;
    const message: RequestMessage = { v: PROTOCOL_VERSION, id, source: this.self, target: this.peer, method, params };
    const line = this.lineOf(message);
    if (line === undefined) return Promise.reject(this.lineTooLong());
    const refused = this.write(line);
    if (refused !== undefined) return Promise.reject(refused);
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(String(id));
        reject(new StrataError('AGENT_REQUEST_TIMEOUT', `${method} got no response within ${timeoutMs} ms`, { method, timeoutMs }));
      }, timeoutMs);
      timer.unref();
      this.pending.set(String(id), { method, resolve, reject, timer });
    });
  }

  /** Sends an error object (statusOfKind of its kind) for request id `id` (null when unknown); closes the connection after it when the status is not 400. */
  fail(id: MessageId | null, error: StrataError): void {
    const status = statusOfKind(error.kind);
    this.respond(id, null, { code: status, message: error.message, type: error.code });
    if (status !== 400) this.close(error);
  }

  /** Ends the connection (after flushing what was written, for at most AGENT_CLOSE_LINGER_MS), rejecting pending requests with AGENT_CONNECTION_CLOSED. Idempotent. */
  close(error?: StrataError): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.backlog = [];
    for (const [key, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(key);
      const reason = error === undefined ? 'the connection closed' : `the connection closed: ${error.message}`;
      pending.reject(new StrataError('AGENT_CONNECTION_CLOSED', `${pending.method}: ${reason}`, { method: pending.method, reason: error?.code ?? null }));
    }
    if (error?.code === 'AGENT_PEER_TOO_SLOW' || this.socket.destroyed) {
      // A peer that does not read would never let the buffered bytes go.
      this.socket.destroy();
    } else {
      this.socket.end();
      const linger = setTimeout(() => this.socket.destroy(), AGENT_CLOSE_LINGER_MS).unref();
      this.socket.once('close', () => clearTimeout(linger));
    }
    this.options.onClose?.(error);
  }

  private onData(chunk: Buffer): void {
    if (this.isClosed) return;
    let lines: string[];
    try {
      lines = this.splitter.push(chunk);
    } catch (error) {
      this.fail(null, isStrataError(error) ? error : new StrataError('INTERNAL', 'reading a protocol line failed'));
      return;
    }
    for (const line of lines) {
      if (this.isClosed) return;
      this.handleLine(line);
    }
    this.drain();
  }

  /** Hands backlogged requests to our handler while fewer than pendingRequestsMax are in it; pauses reading while pendingRequestsMax more wait. */
  private drain(): void {
    while (!this.isClosed && this.backlog.length > 0 && this.handling < this.limits.pendingRequestsMax) {
      this.handleRequest(this.backlog.shift() as RequestMessage);
    }
    if (this.isClosed) return;
    if (this.backlog.length >= this.limits.pendingRequestsMax) this.socket.pause();
    else if (this.socket.isPaused()) this.socket.resume();
  }

  /** Reads one line: responses and invalid lines are dealt with at once, requests wait in the backlog for drain(). */
  private handleLine(line: string): void {
    this.linesIn++;
    const read = readEnvelope(line);
    if (read.kind === 'invalid') {
      this.invalidInRow++;
      this.fail(read.id, read.error);
      if (this.invalidInRow >= this.limits.invalidMessagesMax) {
        this.close(new StrataError('AGENT_MESSAGE_INVALID', `${this.invalidInRow} invalid messages in a row`, { invalidMessagesMax: this.limits.invalidMessagesMax }));
      }
      return;
    }
    this.invalidInRow = 0;
    if (read.kind === 'request') this.backlog.push(read.message);
    else this.handleResponse(read.message);
  }

  private handleResponse(message: ResponseMessage): void {
    // A response to an unknown id (timed out, or never asked) is dropped.
    if (message.id === null) return;
    const pending = this.pending.get(String(message.id));
    if (pending === undefined) return;
    this.pending.delete(String(message.id));
    clearTimeout(pending.timer);
    if (message.error === null) {
      pending.resolve(message.result);
      return;
    }
    const { code, message: text, type } = message.error;
    pending.reject(new StrataError('AGENT_REQUEST_REFUSED', `${pending.method} refused (${code}): ${text}`, { code, message: text, type: type ?? null }));
  }

  private handleRequest(message: RequestMessage): void {
    this.handling++;
    const settle = (): void => {
      this.handling--;
      this.drain();
    };
    new Promise<unknown>((resolve) => resolve(this.options.onRequest(message.method, message.params, message)))
      .then(
        (result) => {
          if (this.isClosed) return;
          // An undefined result answers `{}`, as the reference's endpoints do; JSON has no undefined.
          const line = this.lineOf(this.responseOf(message.id, result === undefined ? {} : result, null));
          if (line === undefined) this.fail(message.id, this.lineTooLong());
          else this.write(line);
        },
        (error: unknown) => {
          if (!this.isClosed) this.fail(message.id, isStrataError(error) ? error : new StrataError('INTERNAL', `${message.method} failed`));
        },
      )
      // Answering threw (a result JSON cannot hold, such as a BigInt or a cycle): a 500, never an unhandled rejection.
      .catch(() => {
        const error = new StrataError('INTERNAL', `answering ${message.method} failed`, { method: message.method });
        try {
          this.fail(message.id, error);
        } catch {
          // The close below ends the connection all the same.
        }
        this.close(error);
      })
      .finally(settle);
  }

  private respond(id: MessageId | null, result: unknown, error: ResponseMessage['error']): void {
    if (this.isClosed) return;
    const line = this.lineOf(this.responseOf(id, result, error));
    // An error object is short; only a result can make a line too long.
    if (line !== undefined) this.write(line);
  }

  private responseOf(id: MessageId | null, result: unknown, error: ResponseMessage['error']): ResponseMessage {
    return { v: PROTOCOL_VERSION, id, source: this.self, target: this.peer, result, error };
  }

  /** The line of a message, or undefined when it is longer than lineBytesMax (the peer would refuse it). */
  private lineOf(message: RequestMessage | ResponseMessage): string | undefined {
    const line = `${JSON.stringify(message)}\n`;
    return Buffer.byteLength(line) - 1 > this.limits.lineBytesMax ? undefined : line;
  }

  private lineTooLong(): StrataError {
    return new StrataError('AGENT_LINE_TOO_LONG', `an outgoing protocol message is longer than ${this.limits.lineBytesMax} bytes`, { lineBytesMax: this.limits.lineBytesMax });
  }

  /** Writes a line; a line that would leave more than writeBufferBytesMax bytes unsent closes the connection with AGENT_PEER_TOO_SLOW (returned). */
  private write(line: string): StrataError | undefined {
    if (this.isClosed || !this.socket.writable) return new StrataError('AGENT_CONNECTION_CLOSED', 'the connection is closed');
    if (this.socket.writableLength + Buffer.byteLength(line) > this.limits.writeBufferBytesMax) {
      const error = new StrataError('AGENT_PEER_TOO_SLOW', `the peer leaves more than ${this.limits.writeBufferBytesMax} bytes unread`, { writeBufferBytesMax: this.limits.writeBufferBytesMax });
      this.close(error);
      return error;
    }
    this.socket.write(line);
    return undefined;
  }
}
