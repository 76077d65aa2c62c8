// Owns where ingest bodies are decoded: on decode threads (piscina) for large bodies, else inline; the full decoder on the main thread for the rest.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { packageRoot } from '../../../storage/package-root.js';
import { MSGPACK_TYPE } from '../../route-rules.js';
import type { DecodeOutcome, DecodeTask } from './decode-worker.js';
import { fastJsonIngest } from './fast-json.js';
import { fastMsgpackIngest } from './fast-msgpack.js';
import { decodeIngestBody, mapIngestItems, type IngestMapping, type IngestScope } from './ingest-body.js';
import { NameCache } from './name-cache.js';
import { pointsOf } from './point-columns.js';

/** Bodies smaller than this are decoded inline: a thread hop costs more than it saves. */
export const THREAD_DECODE_BYTES_MIN = 64 * 1024;
/** Most decode tasks waiting for a thread (piscina maxQueue); the ingest admission queue bounds it first. */
export const DECODE_QUEUE_MAX = 256;
/** Most decode threads. */
export const DECODE_THREADS_MAX = 16;

function workerFilename(): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.js')) return join(here, '..', 'decode-worker.js');
  // Running from TypeScript sources (tests): worker threads need the compiled JavaScript.
  const compiled = join(packageRoot(), 'dist', 'src', 'http', 'routes', 'ingest', 'decode-worker.js');
  if (!existsSync(compiled)) throw new Error(`${compiled} is missing: run "npm run build" first`);
  return compiled;
}

/**
 * Decodes ingest bodies. With threads, a large body moves to a decode thread, which turns a clean
 * body into columns; the main thread then only builds the points and writes them, so decoding one
 * request overlaps writing another on a second core.
 */
export class IngestDecoder {
  private readonly pool: Piscina | undefined;
  private readonly names = new NameCache();

  constructor(threads: number) {
    if (!Number.isSafeInteger(threads) || threads < 0 || threads > DECODE_THREADS_MAX) {
      throw new RangeError(`decode threads must be an integer between 0 and ${DECODE_THREADS_MAX}`);
    }
    this.pool = threads > 0 ? new Piscina({ filename: workerFilename(), minThreads: threads, maxThreads: threads, maxQueue: DECODE_QUEUE_MAX }) : undefined;
  }

  /** The points of a raw body and the error entries of its bad metrics (full decoder) when not clean. */
  async decode(raw: unknown, mediaType: string, scope: IngestScope): Promise<IngestMapping> {
    const msgpack = mediaType === MSGPACK_TYPE;
    if (!Buffer.isBuffer(raw)) return mapIngestItems(decodeIngestBody(raw, mediaType), scope);
    let body: Buffer = raw;
    if (this.pool !== undefined && raw.length >= THREAD_DECODE_BYTES_MIN) {
      // Transfer the bytes when the body owns its whole buffer, else hand over a copy.
      const owned = raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength ? raw : Buffer.from(raw);
      const task: DecodeTask = { body: owned, msgpack, scope };
      const outcome = (await this.pool.run(task, { transferList: [owned.buffer as ArrayBuffer] })) as DecodeOutcome;
      if (outcome.ok) return { points: pointsOf(outcome.columns), positions: null, errors: [], skipped: 0 };
      body = Buffer.from(outcome.body.buffer, outcome.body.byteOffset, outcome.body.byteLength);
    } else {
      const fast = msgpack ? fastMsgpackIngest(raw, scope, this.names) : fastJsonIngest(raw, scope, this.names);
      if (fast !== undefined) return fast;
    }
    return mapIngestItems(decodeIngestBody(body, mediaType), scope);
  }

  /** Stops the decode threads. */
  async close(): Promise<void> {
    if (this.pool !== undefined) await this.pool.destroy();
  }
}
