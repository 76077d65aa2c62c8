// Owns reading request bodies into reused buffers: no fresh megabyte (page faults, external memory for the GC) per batch.
import type { Readable } from 'node:stream';
import { errorCodes, type FastifyRequest } from 'fastify';
import { HTTP_BODY_BYTES_MAX, SPARE_BODIES_MAX, SPARE_BODY_BYTES_MAX } from './http-limits.js';

/** Room allocated for a body without a Content-Length, doubled as it grows. */
const CHUNKED_BODY_BYTES_INITIAL = 64 * 1024;
/** Buffers are allocated in multiples of this, so bodies of similar size share them. */
const BODY_BYTES_GRAIN = 64 * 1024;

/**
 * Buffers lent to request bodies and given back when the response is done. Only buffers it lent
 * are taken back, each once; a buffer never given back (an aborted request) is just collected.
 */
export class BodyPool {
  private readonly spare: ArrayBuffer[] = [];
  private spareBytes = 0;
  private readonly lent = new WeakSet<ArrayBuffer>();

  /** A buffer of at least `bytes`. */
  take(bytes: number): Buffer {
    let best = -1;
    for (let k = 0; k < this.spare.length; k++) {
      const length = (this.spare[k] as ArrayBuffer).byteLength;
      if (length >= bytes && (best < 0 || length < (this.spare[best] as ArrayBuffer).byteLength)) best = k;
    }
    let memory: ArrayBuffer;
    if (best >= 0) {
      memory = this.spare.splice(best, 1)[0] as ArrayBuffer;
      this.spareBytes -= memory.byteLength;
    } else {
      memory = new ArrayBuffer(Math.max(BODY_BYTES_GRAIN, Math.ceil(bytes / BODY_BYTES_GRAIN) * BODY_BYTES_GRAIN));
    }
    this.lent.add(memory);
    return Buffer.from(memory);
  }

  /** Takes back the buffer under `body` (a view of one this pool lent); anything else is ignored. */
  give(body: unknown): void {
    if (!Buffer.isBuffer(body) || !(body.buffer instanceof ArrayBuffer) || !this.lent.has(body.buffer)) return;
    const memory = body.buffer;
    this.lent.delete(memory);
    if (this.spare.length >= SPARE_BODIES_MAX || this.spareBytes + memory.byteLength > SPARE_BODY_BYTES_MAX) return;
    this.spare.push(memory);
    this.spareBytes += memory.byteLength;
  }

  /** Spare buffers held (for tests). */
  get spares(): number {
    return this.spare.length;
  }
}

/**
 * A fastify content-type parser (the raw-stream form) that reads the body into a buffer from
 * `pool`, with the checks fastify's own buffer parser makes: the route's body limit (413, also
 * for a too-large Content-Length before reading) and a body shorter or longer than its
 * Content-Length (400). The body handed on is a view of the pooled buffer: give it back with
 * `pool.give(request.body)` once the response is sent, and keep no part of it past that.
 */
export function pooledBodyParser(pool: BodyPool) {
  return (request: FastifyRequest, payload: Readable, done: (error: Error | null, body?: Buffer) => void): void => {
    const limit = request.routeOptions.bodyLimit ?? HTTP_BODY_BYTES_MAX;
    const declared = Number(request.headers['content-length']);
    if (declared > limit) {
      done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      return;
    }
    let buffer = pool.take(Number.isSafeInteger(declared) && declared >= 0 ? declared : CHUNKED_BODY_BYTES_INITIAL);
    let length = 0;
    const finish = (error: Error | null, body?: Buffer): void => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      if (error !== null) pool.give(buffer);
      done(error, body);
    };
    const onData = (chunk: Buffer | string): void => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (length + bytes.length > limit) {
        finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
        return;
      }
      if (length + bytes.length > buffer.length) {
        const grown = pool.take(Math.max(buffer.length * 2, length + bytes.length));
        buffer.copy(grown, 0, 0, length);
        pool.give(buffer);
        buffer = grown;
      }
      bytes.copy(buffer, length);
      length += bytes.length;
    };
    const onEnd = (): void => {
      if (!Number.isNaN(declared) && length !== declared) finish(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      else finish(null, buffer.subarray(0, length));
    };
    const onError = (error: Error & { statusCode?: number }): void => {
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
      finish(error);
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.resume();
  };
}
