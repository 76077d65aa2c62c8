// Owns turning a recorded exchange into the request replay sends: its route name, tenant mapping, time shift and points count.
import { Packr, Unpackr } from 'msgpackr';
import type { RecordedExchange } from '../recording/recording-types.js';

/** One day in ms: the only shift `--time-shift auto` applies, so 5/20/60/240/1440-minute buckets stay aligned. */
export const REPLAY_DAY_MS = 86_400_000;

/** Route names in reports (docs/recording.md); anything else the recording holds is "other". */
export const REPLAY_ROUTES = ['ingest', 'ingest/multi', 'views (GET)', 'views (POST)', 'search', 'other'] as const;

/** A route name of a report. */
export type ReplayRoute = (typeof REPLAY_ROUTES)[number];

/** How recorded tenants become the target's: explicit pairs first, every other tenant becomes `fallback`. */
export interface TenantMap {
  readonly pairs: ReadonlyMap<string, string>;
  /** The authenticated user's tenant on the target. */
  readonly fallback: string;
}

/** What a transformer needs besides the exchange. */
export interface TransformOptions {
  readonly tenants: TenantMap;
  /** Added to every `from`/`to` query parameter and ingest `collectionTime`; 0 leaves them alone. */
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
  transform(exchange: RecordedExchange): ReplayRequest;
}

const INGEST_PREFIX = '/ingest/v2.0/';
const METRICS_PREFIX = '/metrics/v2.0/';

/** The report route of a request, from its method and URL (the path segments after the tenant). */
export function routeOf(method: string, url: string): ReplayRoute {
  const path = url.split('?', 1)[0] ?? '';
  const segments = path.split('/');
  // ['', 'ingest' | 'metrics', 'v2.0', tenant, ...rest]
  if (segments.length < 5 || segments[0] !== '' || segments[2] !== 'v2.0' || segments[3] === '') return 'other';
  const rest = segments.slice(4);
  if (segments[1] === 'ingest' && method === 'POST') {
    if (rest.length === 1 && rest[0] === 'ingest') return 'ingest';
    if (rest.length === 2 && rest[0] === 'ingest' && rest[1] === 'multi') return 'ingest/multi';
    return 'other';
  }
  if (segments[1] !== 'metrics') return 'other';
  if (rest[0] === 'views') {
    if (method === 'GET' && rest.length === 2 && rest[1] !== '') return 'views (GET)';
    if (method === 'POST' && rest.length === 1) return 'views (POST)';
    return 'other';
  }
  if (method === 'GET' && rest.length === 2 && rest[0] === 'metrics' && rest[1] === 'search') return 'search';
  return 'other';
}

/** The target tenant of a recorded one. */
export function mapTenant(tenants: TenantMap, recorded: string): string {
  return tenants.pairs.get(recorded) ?? tenants.fallback;
}

/** `--time-shift auto`: whole days that bring the recording's start into the last day before `nowMs` (never negative). */
export function autoShiftMs(startedAtMs: number, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - startedAtMs) / REPLAY_DAY_MS)) * REPLAY_DAY_MS;
}

/** Rewrites the tenant segment of a metrics or ingest URL (the segment after `v2.0`) when it is the recorded tenant. */
export function rewriteTenant(url: string, recordedTenant: string, targetTenant: string): string {
  if (recordedTenant === targetTenant) return url;
  for (const prefix of [INGEST_PREFIX, METRICS_PREFIX]) {
    if (!url.startsWith(prefix)) continue;
    const end = url.indexOf('/', prefix.length);
    const stop = end === -1 ? url.length : end;
    const segment = url.slice(prefix.length, stop);
    if (safeDecode(segment) !== recordedTenant) return url;
    return `${prefix}${encodeURIComponent(targetTenant)}${url.slice(stop)}`;
  }
  return url;
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
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

/** Which body encoding a Content-Type names, or null when replay leaves the body alone. */
export function bodyFormat(contentType: string | null): 'json' | 'msgpack' | null {
  if (contentType === null) return null;
  const type = (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
  if (type === 'application/x-msgpack' || type === 'application/msgpack') return 'msgpack';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  return null;
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
  decode(body: Uint8Array, format: 'json' | 'msgpack'): unknown;
  encode(value: unknown, format: 'json' | 'msgpack'): Uint8Array;
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

function transformIngestBody(codec: Codec, body: Uint8Array, format: 'json' | 'msgpack', options: TransformOptions, multi: boolean): IngestBody {
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

/** A transformer with its own msgpack encoder and decoder. */
export function createTransformer(options: TransformOptions): ReplayTransformer {
  const codec = makeCodec();
  return {
    transform(exchange) {
      const route = routeOf(exchange.method, exchange.url);
      const path = shiftQuery(rewriteTenant(exchange.url, exchange.tenant, mapTenant(options.tenants, exchange.tenant)), route === 'views (GET)' || route === 'views (POST)' ? options.shiftMs : 0);
      const base = { route, method: exchange.method, path, contentType: exchange.contentType, recordedStatus: exchange.status };
      const format = bodyFormat(exchange.contentType);
      if ((route !== 'ingest' && route !== 'ingest/multi') || exchange.body === null || format === null) {
        return { ...base, body: exchange.body, points: 0 };
      }
      const ingest = transformIngestBody(codec, exchange.body, format, options, route === 'ingest/multi');
      return { ...base, body: ingest.body, points: ingest.points };
    },
  };
}
