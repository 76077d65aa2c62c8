// Owns reading points from files: JSON lines, a JSON array (points or Blueflood metrics), msgpack.
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { unpackMultiple } from 'msgpackr';
import type { Point } from '../model/sample.js';
import { bluefloodPoint, isBluefloodMetric } from '../wire/blueflood-metric.js';

/** Largest JSON-array or msgpack file read whole (JSON lines stream and have no limit). */
export const WHOLE_FILE_BYTES_MAX = 512 * 1024 * 1024;

/** A point as the file had it, or a note that an entry was unreadable. */
export type SourceItem = { readonly point: Point } | { readonly unreadable: string };

/** Turns one decoded entry into a point: a Strata point, or a Blueflood metric given a tenant. */
export function toPoint(entry: unknown, tenant: string | undefined): SourceItem {
  if (typeof entry !== 'object' || entry === null) return { unreadable: 'entry is not an object' };
  if (isBluefloodMetric(entry)) {
    const point = bluefloodPoint(entry, tenant);
    return point === undefined ? { unreadable: 'a Blueflood metric needs --tenant (or a tenantId field)' } : { point };
  }
  const e = entry as Record<string, unknown>;
  return { point: (tenant !== undefined && e.tenant === undefined ? { ...e, tenant } : e) as unknown as Point };
}

async function* jsonLines(path: string, tenant: string | undefined, onBytes: (n: number) => void): AsyncGenerator<SourceItem> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of lines) {
    onBytes(Buffer.byteLength(line) + 1);
    if (line.trim() === '') continue;
    try {
      yield toPoint(JSON.parse(line), tenant);
    } catch {
      yield { unreadable: `not JSON: ${line.slice(0, 60)}` };
    }
  }
}

function readWhole(path: string): Buffer {
  const size = statSync(path).size;
  if (size > WHOLE_FILE_BYTES_MAX) throw new Error(`${path} is ${size} bytes; JSON arrays and msgpack files are read whole, up to ${WHOLE_FILE_BYTES_MAX}; use JSON lines for bigger files`);
  return readFileSync(path);
}

function* entries(decoded: unknown[], tenant: string | undefined): Generator<SourceItem> {
  for (const value of decoded) {
    if (Array.isArray(value)) for (const entry of value) yield toPoint(entry, tenant);
    else yield toPoint(value, tenant);
  }
}

/** The format of a file: by extension, else by its first non-blank byte. */
export function formatOf(path: string, head: Buffer): 'jsonl' | 'json' | 'msgpack' {
  if (/\.(msgpack|mpk)$/i.test(path)) return 'msgpack';
  if (/\.(jsonl|ndjson)$/i.test(path)) return 'jsonl';
  const first = head.toString('utf8').trimStart()[0];
  if (first === '[') return 'json';
  if (first === '{') return 'jsonl';
  return 'msgpack';
}

/** Every entry of a file, in order, as points or notes of unreadable entries. */
export async function* readPoints(path: string, tenant: string | undefined, onBytes: (n: number) => void): AsyncGenerator<SourceItem> {
  const head = Buffer.alloc(64);
  const fd = await import('node:fs/promises').then((fs) => fs.open(path, 'r'));
  try {
    await fd.read(head, 0, 64, 0);
  } finally {
    await fd.close();
  }
  const format = formatOf(path, head);
  if (format === 'jsonl') {
    yield* jsonLines(path, tenant, onBytes);
    return;
  }
  // A whole file is not an ingest body: it may exceed one batch, hold several msgpack values, a
  // lone object or Strata points, and leaves every check to the store; so it is parsed here, and
  // only its Blueflood metrics' shape comes from wire (blueflood-metric.ts), not wire's IngestDecoder.
  const buf = readWhole(path);
  onBytes(buf.length);
  if (format === 'json') {
    const parsed: unknown = JSON.parse(buf.toString('utf8'));
    yield* entries(Array.isArray(parsed) ? [parsed] : [parsed], tenant);
    return;
  }
  yield* entries(unpackMultiple(buf) as unknown[], tenant);
}
