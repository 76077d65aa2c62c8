// Owns turning a recorded exchange into the request replay sends: its route, tenant mapping, time shift and points count.
import { Packr, Unpackr } from 'msgpackr';
import type { RecordedExchange } from '../recording/recording-types.js';
import { ingestFormatOf } from '../wire/ingest-format.js';
import type { IngestFormat } from '../wire/ingest-mapping.js';
import { matchRoute, type ReplayRoute } from './replay-routes.js';

/** One day in ms: the only shift `--time-shift auto` applies, so 5/20/60/240/1440-minute buckets stay aligned. */
export const REPLAY_DAY_MS = 86_400_000;

/** How recorded tenants become the target's: explicit pairs first, every other tenant becomes `fallback`. */
export interface TenantMap {
  readonly pairs: ReadonlyMap<string, string>;
  /** The authenticated user's tenant on the target. */
  readonly fallback: string;
}

/** What a transformer needs besides the exchange. */
export interface TransformOptions {
  readonly tenants: TenantMap;
  /** Added to every `from`/`to` query parameter of views requests and ingest `collectionTime`; 0 leaves them alone. */
  readonly shiftMs: number;
}

/** The request replay sends for one exchange. */
export interface ReplayRequest {
  readonly route: ReplayRoute;
  readonly method: string;
  /** Path and query on the target (relative to its base URL). */
  readonly path: string;
  readonly contentType: string | null;
  /** The recorded bytes untouched unless the shift or the tenant map had to change them. */
  readonly body: Uint8Array | null;
  /** Points in an ingest body (its array's length), 0 for other routes or bodies that are not arrays. */
  readonly points: number;
  /** Status the recording server answered. */
  readonly recordedStatus: number;
}

/** Turns exchanges into requests; owns one msgpack encoder and decoder (so it holds no shared state). */
export interface ReplayTransformer {
  /** The request to send, or null when the exchange is not one of the recorded routes (or its URL is unsafe): never sent. */
  transform(exchange: RecordedExchange): ReplayRequest | null;
}

/** The target tenant of a recorded one. */
export function mapTenant(tenants: TenantMap, recorded: string): string {
  return tenants.pairs.get(recorded) ?? tenants.fallback;
}

/**
 * `--time-shift auto`: the whole days that bring a recording's last request (its arrival time)
 * into the last day before `nowMs`; never negative, so nothing it sends lies after `nowMs`.
 */
export function autoShiftMs(lastArrivalMs: number, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - lastArrivalMs) / REPLAY_DAY_MS)) * REPLAY_DAY_MS;
}

/** Adds `shiftMs` to the integer `from` and `to` query parameters; every other byte of the URL stays as recorded. */
export function shiftQuery(url: string, shiftMs: number): string {
  const question = url.indexOf('?');
  if (shiftMs === 0 || question === -1) return url;
  const params = url
    .slice(question + 1)
    .split('&')
    .map((param) => {
      const equals = param.indexOf('=');
      const name = equals === -1 ? param : param.slice(0, equals);
      if (name !== 'from' && name !== 'to') return param;
      const text = param.slice(equals + 1);
      // Only plain integers are shifted: anything else was refused when recorded and must stay refused.
      if (!/^-?\d+$/.test(text)) return param;
      const value = Number(text);
      return Number.isSafeInteger(value) && Number.isSafeInteger(value + shiftMs) ? `${name}=${value + shiftMs}` : param;
    });
  return `${url.slice(0, question)}?${params.join('&')}`;
}

/** Elements of a msgpack body's top-level array, read from its header alone; null when the body is not an array. */
export function msgpackArrayLength(body: Uint8Array): number | null {
  const first = body[0];
  if (first === undefined) return null;
  if (first >= 0x90 && first <= 0x9f) return first - 0x90;
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  if (first === 0xdc && body.length >= 3) return view.getUint16(1);
  if (first === 0xdd && body.length >= 5) return view.getUint32(1);
  return null;
}

/** Options of the msgpack encoder and decoder: plain maps and numbers, as the server's own decoder reads them. */
const UNPACK_OPTIONS = { int64AsType: 'number', mapsAsObjects: true } as const;
const PACK_OPTIONS = { useRecords: false } as const;

interface Codec {
  decode(body: Uint8Array, format: IngestFormat): unknown;
  encode(value: unknown, format: IngestFormat): Uint8Array;
}

function makeCodec(): Codec {
  const unpackr = new Unpackr(UNPACK_OPTIONS);
  const packr = new Packr(PACK_OPTIONS);
  return {
    decode: (body, format) => (format === 'msgpack' ? unpackr.unpack(body) : JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'))),
    encode: (value, format) => (format === 'msgpack' ? packr.pack(value) : Buffer.from(JSON.stringify(value), 'utf8')),
  };
}

/**
 * Applies the shift and the tenant map to the metrics of an ingest body, in place; returns whether
 * anything changed. Non-objects and non-numeric times are left as recorded: the target refuses them
 * as the recording server did.
 */
function rewriteMetrics(metrics: readonly unknown[], options: TransformOptions, multi: boolean): boolean {
  let changed = false;
  for (const metric of metrics) {
    if (typeof metric !== 'object' || metric === null) continue;
    const fields = metric as Record<string, unknown>;
    const time = fields['collectionTime'];
    if (options.shiftMs !== 0 && typeof time === 'number' && Number.isSafeInteger(time)) {
      fields['collectionTime'] = time + options.shiftMs;
      changed = true;
    }
    const tenant = fields['tenantId'];
    if (multi && typeof tenant === 'string') {
      const mapped = mapTenant(options.tenants, tenant);
      if (mapped !== tenant) {
        fields['tenantId'] = mapped;
        changed = true;
      }
    }
  }
  return changed;
}

interface IngestBody {
  readonly body: Uint8Array;
  readonly points: number;
}

function transformIngestBody(codec: Codec, body: Uint8Array, format: IngestFormat, options: TransformOptions, multi: boolean): IngestBody {
  const cheapCount = format === 'msgpack' ? msgpackArrayLength(body) : null;
  // A single-tenant body without a shift is sent as recorded; a msgpack one is not even decoded.
  if (options.shiftMs === 0 && !multi && cheapCount !== null) return { body, points: cheapCount };
  let decoded: unknown;
  try {
    decoded = codec.decode(body, format);
  } catch {
    return { body, points: 0 };
  }
  if (!Array.isArray(decoded)) return { body, points: 0 };
  const changed = rewriteMetrics(decoded, options, multi);
  return { body: changed ? codec.encode(decoded, format) : body, points: decoded.length };
}

/** A tenant as a URL segment; a tenant named `.` or `..` is percent-encoded whole, so no proxy can read it as a dot segment. */
function tenantSegment(tenant: string): string {
  return tenant === '.' || tenant === '..' ? tenant.replaceAll('.', '%2E') : encodeURIComponent(tenant);
}

/**
 * A transformer with its own msgpack encoder and decoder. The tenant segment of the URL is always
 * replaced by its mapped tenant: the URL's own segment is what is mapped (the recorded `tenant`
 * field is not trusted), so no request reaches a tenant the map does not name.
 */
export function createTransformer(options: TransformOptions): ReplayTransformer {
  const codec = makeCodec();
  return {
    transform(exchange) {
      const match = matchRoute(exchange.method, exchange.url);
      if (match === null) return null;
      const { route } = match;
      const rewritten = `${match.beforeTenant}${tenantSegment(mapTenant(options.tenants, match.tenant))}${match.afterTenant}`;
      const path = shiftQuery(rewritten, route === 'views (GET)' || route === 'views (POST)' ? options.shiftMs : 0);
      const base = { route, method: exchange.method, path, contentType: exchange.contentType, recordedStatus: exchange.status };
      if ((route !== 'ingest' && route !== 'ingest/multi') || exchange.body === null) return { ...base, body: exchange.body, points: 0 };
      // The format the target will decode the body in: the server's own rule, so a body is re-encoded as the target reads it.
      const ingest = transformIngestBody(codec, exchange.body, ingestFormatOf(exchange.contentType), options, route === 'ingest/multi');
      return { ...base, body: ingest.body, points: ingest.points };
    },
  };
}
