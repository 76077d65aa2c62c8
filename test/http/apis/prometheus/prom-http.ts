// Owns the Prometheus API tests' client: remote write and read requests over real HTTP with each credential form, and reading their answers.
import { KEYS, type Harness } from '../../harness.js';
import { decodeRemoteReadResponse, encodeRemoteRead, type LabelMatcher, type ReadSeries } from '../../../../src/wire/prom-read-codec.js';
import { encodeRemoteWrite, type RemoteWriteSeries } from '../../../../src/wire/prom-write-decoder.js';

/** How a request authenticates: a token in X-Auth-Token or as a bearer token, basic credentials of a harness user, or nothing. */
export type Credentials = { readonly token: string } | { readonly bearer: string } | { readonly basic: keyof typeof KEYS } | { readonly authorization: string } | null;

/** The headers of `credentials`. */
export function authHeaders(credentials: Credentials): Record<string, string> {
  if (credentials === null) return {};
  if ('token' in credentials) return { 'x-auth-token': credentials.token };
  if ('bearer' in credentials) return { authorization: `Bearer ${credentials.bearer}` };
  if ('authorization' in credentials) return { authorization: credentials.authorization };
  return { authorization: `Basic ${Buffer.from(`${credentials.basic}:${KEYS[credentials.basic]}`).toString('base64')}` };
}

/** The content headers Prometheus sends. */
export const PROM_HEADERS = { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' } as const;

/** An answer: status, headers and body as text and bytes. */
export interface PromAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly bytes: Uint8Array;
}

/** POSTs raw bytes to a Prometheus route of the harness. */
export async function post(h: Harness, path: string, body: Uint8Array | undefined, credentials: Credentials, headers: Record<string, string> = PROM_HEADERS): Promise<PromAnswer> {
  const response = await fetch(`${h.url}/prometheus${path}`, { method: 'POST', headers: { ...headers, ...authHeaders(credentials) }, ...(body === undefined ? {} : { body }) });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, text: Buffer.from(bytes).toString('utf8'), bytes };
}

/** Remote-writes `series` to `tenant`. */
export function promWrite(h: Harness, tenant: string, series: readonly RemoteWriteSeries[], credentials: Credentials): Promise<PromAnswer> {
  return post(h, `/${tenant}/api/v1/write`, encodeRemoteWrite(series), credentials);
}

/** One query of a read: [startMs, endMs] and matchers. */
export interface ReadQuery {
  readonly startMs: number;
  readonly endMs: number;
  readonly matchers: readonly LabelMatcher[];
}

/** Remote-reads `queries` from `tenant`; `results` is the decoded answer when the status is 200. */
export async function promRead(h: Harness, tenant: string, queries: readonly ReadQuery[], credentials: Credentials): Promise<PromAnswer & { results: ReadSeries[][] }> {
  const answer = await post(
    h,
    `/${tenant}/api/v1/read`,
    encodeRemoteRead(queries.map((q) => ({ ...q, hints: null }))),
    credentials,
    { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-read-version': '0.1.0', 'accept-encoding': 'snappy' },
  );
  return { ...answer, results: answer.status === 200 ? decodeRemoteReadResponse(answer.bytes) : [] };
}

/** The matcher `__name__ = name`. */
export function nameIs(name: string): LabelMatcher {
  return { type: 'EQ', name: '__name__', value: name };
}

/** A read series as `{labels: {name: value}, samples: [[t, v]]}`, for comparing. */
export function plain(series: ReadSeries): { labels: Record<string, string>; samples: [number, number][] } {
  return {
    labels: Object.fromEntries(series.labels.map((l) => [l.name, l.value])),
    samples: Array.from({ length: series.values.length }, (_, i) => [series.timestampsMs[i] as number, series.values[i] as number]),
  };
}
