// Owns `strata replay --convert`: streaming the stored ingest points of recordings out as VictoriaMetrics import lines or InfluxDB line protocol.
import { once } from 'node:events';
import { closeSync, constants, createWriteStream, fstatSync, openSync, type WriteStream } from 'node:fs';
import { StrataError } from '../core/errors.js';
import { openRecording } from '../recording/recording-reader.js';
import type { RecordedExchange } from '../recording/recording-types.js';
import { IngestDecoder } from '../wire/ingest-decoder.js';
import { ingestFormatOf } from '../wire/ingest-format.js';
import type { IngestMapping, IngestScope } from '../wire/ingest-mapping.js';
import { influxLines, influxRepresentable, vmImportLines, type PeerPoint } from './peer-formats.js';

/** The peer format a conversion writes. */
export type ConvertFormat = 'vm' | 'influx';

/** What a conversion read, wrote and left out. */
export interface ConvertSummary {
  /** Frames read after the headers (exchanges and gaps) across all files. */
  frames: number;
  /** Ingest exchanges whose recorded status says they stored points (200, or 207 for a partial write): the ones converted. */
  ingestRequests: number;
  /** Points written. */
  points: number;
  /** String-valued points of stored requests, left out: the peers' formats here carry numbers only. */
  skippedStrings: number;
  /** Points of stored requests that Strata refused (the decoder's errors, plus non-finite values and fractional times, which the store refuses). */
  rejected: number;
  /** Stored ingest requests whose body does not decode (the decoder threw). */
  skippedRequests: number;
  /** Bytes written to the output. */
  bytesWritten: number;
  /** Stored points the format cannot carry so that they read back the same (InfluxDB 1.x: see influxRepresentable); always 0 for vm. */
  unrepresentable: number;
  /** Requests the recorder dropped (the sum of its gap frames): traffic the recording, and so the output, lacks. */
  droppedRequests: number;
}

/** Mode of a file `--out` creates: the points of a recording are the recorded server's data, for its owner only. */
export const CONVERT_OUT_FILE_MODE = 0o600;
/** The two ingest routes; their URLs may carry a query string, which the route ignores. */
const INGEST_PATH = /^\/ingest\/v2\.0\/[^/?#]+\/ingest(\/multi)?(?:\?|$)/;
/** Recorded statuses of ingest requests that stored points: all of them, or (207) the valid ones. */
const STORED_STATUSES: ReadonlySet<number> = new Set([200, 207]);

/** The decoding scope of a stored ingest exchange, or null when the exchange is not one. */
function storedIngestScope(exchange: RecordedExchange): IngestScope | null {
  const route = INGEST_PATH.exec(exchange.url);
  if (exchange.method !== 'POST' || route === null || !STORED_STATUSES.has(exchange.status)) return null;
  // The server stored these, so any tenant a multi body names was allowed: read them all.
  return route[1] === undefined ? { multi: false, tenant: exchange.tenant } : { multi: true, ownTenant: exchange.tenant, anyTenant: true };
}

/** Decodes a recorded body with the server's decoder; null when it throws a coded error (a body the server could not have stored). */
function decodeBody(decoder: IngestDecoder, exchange: RecordedExchange, scope: IngestScope): IngestMapping | null {
  const { body } = exchange;
  const raw = body === null || Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  try {
    return decoder.decode(raw, ingestFormatOf(exchange.contentType), scope);
  } catch (error) {
    if (error instanceof StrataError) return null;
    throw error;
  }
}

/** The numeric points of a mapping the format can carry, counting the others into `summary`. */
function peerPointsOf(mapping: IngestMapping, format: ConvertFormat, summary: ConvertSummary): PeerPoint[] {
  const { columns } = mapping;
  const points: PeerPoint[] = [];
  summary.rejected += mapping.errors.length;
  for (let i = 0; i < columns.length; i++) {
    if (columns.strings?.has(i) === true) {
      summary.skippedStrings += 1;
      continue;
    }
    const point: PeerPoint = { tenant: columns.tenants[i] as string, metric: columns.metrics[i] as string, timestampMs: columns.timestampsMs[i] as number, value: columns.values[i] as number };
    // The decoder leaves value and time rules to the store, which refuses these; a 207 may hold them.
    if (!Number.isFinite(point.value) || !Number.isSafeInteger(point.timestampMs)) summary.rejected += 1;
    else if (format === 'influx' && !influxRepresentable(point)) summary.unrepresentable += 1;
    else points.push(point);
  }
  return points;
}

/** Writes `text`, waiting for 'drain' when the stream's buffer is full; the bytes written. */
async function writeText(out: NodeJS.WritableStream, text: string): Promise<number> {
  if (text === '') return 0;
  const bytes = Buffer.from(text, 'utf8');
  if (!out.write(bytes)) await once(out, 'drain');
  return bytes.length;
}

/** Converts one recording file into `out`, adding to `summary`. */
async function convertFile(path: string, format: ConvertFormat, out: NodeJS.WritableStream, decoder: IngestDecoder, summary: ConvertSummary): Promise<void> {
  const reader = await openRecording(path);
  try {
    for await (const frame of reader.frames()) {
      summary.frames += 1;
      if (frame.kind === 'gap') {
        summary.droppedRequests += frame.dropped;
        continue;
      }
      const scope = storedIngestScope(frame);
      if (scope === null) continue;
      summary.ingestRequests += 1;
      const mapping = decodeBody(decoder, frame, scope);
      if (mapping === null) {
        summary.skippedRequests += 1;
        continue;
      }
      let points: PeerPoint[];
      try {
        points = peerPointsOf(mapping, format, summary);
      } finally {
        decoder.release(mapping);
      }
      summary.points += points.length;
      summary.bytesWritten += await writeText(out, format === 'vm' ? vmImportLines(points) : influxLines(points));
    }
  } finally {
    await reader.close();
  }
}

/**
 * Streams the ingest requests of recordings that stored points (status 200 or 207) into `out`
 * as VictoriaMetrics `/api/v1/import` lines or InfluxDB 1.x line protocol (precision ms), file
 * after file, one request at a time. Bodies are decoded by the server's own decoder, so the
 * output holds the points Strata stored; points of a 207 that the store refused for reasons a
 * body cannot show (time outside retention, an invalid name) cannot be told apart and are
 * written. Other requests (queries, failed writes) are ignored. Honours backpressure.
 */
export async function convertRecordings(paths: readonly string[], format: ConvertFormat, out: NodeJS.WritableStream): Promise<ConvertSummary> {
  const summary: ConvertSummary = { frames: 0, ingestRequests: 0, points: 0, skippedStrings: 0, rejected: 0, skippedRequests: 0, bytesWritten: 0, unrepresentable: 0, droppedRequests: 0 };
  const decoder = new IngestDecoder();
  for (const path of paths) await convertFile(path, format, out, decoder, summary);
  return summary;
}

function outRefused(path: string, message: string): StrataError {
  return new StrataError('CONFIG_INVALID', `--out ${path} ${message}`, { option: 'out', path });
}

/**
 * Opens `--out` for writing: created with mode 0600 (CONVERT_OUT_FILE_MODE), or an existing regular
 * file truncated (it keeps its mode). A symbolic link is refused rather than followed (O_NOFOLLOW),
 * and so is anything but a regular file (a FIFO is opened without blocking, then refused).
 */
export function openConvertOutput(path: string): WriteStream {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK, CONVERT_OUT_FILE_MODE);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ELOOP') throw outRefused(path, 'is a symbolic link; give the path of a regular file (links are not followed).');
    if (code === 'ENXIO') throw outRefused(path, 'is not a regular file.');
    throw outRefused(path, `cannot be written: ${String(code ?? (error as Error).message)}.`);
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw outRefused(path, 'is not a regular file.');
  }
  return createWriteStream(path, { fd });
}
