// Owns what a remote.http check sends: its settings read from the details, each hop's headers, and how a redirect changes the next request.
import type { OutgoingHttpHeaders } from 'node:http';
import type { CheckDetails } from '../check-types.js';

/** User-Agent sent unless the check sets its own. */
export const HTTP_CHECK_USER_AGENT = 'Strata-Monitoring/1';

/** Statuses a followed redirect continues from. */
const REDIRECT_CODES = new Set([301, 302, 303, 307, 308]);

/** Headers that carry credentials: sent only to the origin of the check's URL, never after a redirect elsewhere. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** Headers the probe always sets itself. */
const PROBE_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection']);

/** The request settings of a remote.http check's details (their schema has checked the types). */
export interface HttpSettings {
  readonly url: URL;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly payload: string | null;
  readonly authUser: string | null;
  readonly authPassword: string | null;
  readonly followRedirects: boolean;
  readonly includeBody: boolean;
}

/** One request of a run: the first, or one a redirect leads to. */
export interface Hop {
  readonly url: URL;
  readonly method: string;
  readonly payload: string | null;
  /** True while the request stays on the origin (scheme, host, port) of the check's URL: only then are credentials sent. */
  readonly sameOrigin: boolean;
}

/** A string detail, or null. */
function text(details: CheckDetails, key: string): string | null {
  const value = details[key];
  return typeof value === 'string' ? value : null;
}

/** The settings, or why the details cannot make a request (a URL that is not absolute http or https). */
export function httpSettings(details: CheckDetails): HttpSettings | { readonly error: string } {
  const source = text(details, 'url');
  const url = source === null || !URL.canParse(source) ? null : new URL(source);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) return { error: 'details.url is not an absolute http or https URL' };
  const headers = details['headers'];
  return {
    url,
    method: text(details, 'method') ?? 'GET',
    headers: typeof headers === 'object' && headers !== null ? headers : {},
    payload: text(details, 'payload'),
    authUser: text(details, 'auth_user'),
    authPassword: text(details, 'auth_password'),
    followRedirects: details['follow_redirects'] !== false,
    includeBody: details['include_body'] === true,
  };
}

/** The first request of a run. */
export function firstHop(settings: HttpSettings): Hop {
  return { url: settings.url, method: settings.method, payload: settings.payload, sameOrigin: true };
}

/**
 * The headers of a hop: a User-Agent and Accept unless the check sets them, the check's headers
 * (credential headers only on the check's origin), basic authentication from auth_user and
 * auth_password (likewise), Host from the hop's URL (a check's own Host only on its origin), and
 * Content-Length of the payload. Header names are lower-cased so a check's own cannot double ours.
 */
export function hopHeaders(settings: HttpSettings, hop: Hop): OutgoingHttpHeaders {
  const headers: Record<string, string> = { 'user-agent': HTTP_CHECK_USER_AGENT, accept: '*/*' };
  for (const [name, value] of Object.entries(settings.headers)) {
    const lower = name.toLowerCase();
    if (PROBE_HEADERS.has(lower) || (!hop.sameOrigin && (CREDENTIAL_HEADERS.has(lower) || lower === 'host'))) continue;
    headers[lower] = value;
  }
  if (hop.sameOrigin && (settings.authUser !== null || settings.authPassword !== null)) {
    headers['authorization'] = `Basic ${Buffer.from(`${settings.authUser ?? ''}:${settings.authPassword ?? ''}`, 'utf8').toString('base64')}`;
  }
  headers['host'] ??= hop.url.host;
  if (hop.payload !== null) headers['content-length'] = String(Buffer.byteLength(hop.payload, 'utf8'));
  return headers;
}

/** True when a response with this status is a redirect the run follows (its body is then not read). */
export function followsRedirect(settings: HttpSettings, statusCode: number): boolean {
  return settings.followRedirects && REDIRECT_CODES.has(statusCode);
}

/**
 * The request a redirect leads to, or null when its Location is missing or not an http(s) URL.
 * Location may be relative to the hop's URL. 303 turns any method but HEAD into GET, and 301 or
 * 302 turn POST into GET (as browsers and curl do), dropping the payload; 307 and 308 keep both.
 */
export function redirectHop(settings: HttpSettings, hop: Hop, statusCode: number, location: string | null): Hop | null {
  if (location === null || !URL.canParse(location, hop.url.href)) return null;
  const url = new URL(location, hop.url.href);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const toGet = (statusCode === 303 && hop.method !== 'HEAD') || ((statusCode === 301 || statusCode === 302) && hop.method === 'POST');
  return {
    url,
    method: toGet ? 'GET' : hop.method,
    payload: toGet ? null : hop.payload,
    sameOrigin: hop.sameOrigin && url.origin === settings.url.origin,
  };
}
