// Owns turning one answered request into an audit row: its time-ordered id, path and query (with _who and _why apart), the headers kept, and the redacted body.
import { randomBytes } from 'node:crypto';
import { REDACTED_SECRET } from '../detail-secrets.js';
import { AUDIT_QUERY_KEYS_MAX, AUDIT_TEXT_LENGTH_MAX } from '../monitoring-limits.js';
import { auditBodyText, isAuditSecretKey, redactUrls } from './audit-redaction.js';

/** The request headers an audit record keeps: none of them carries a credential (never X-Auth-Token, Authorization or Cookie). */
export const AUDIT_HEADERS = ['user-agent', 'content-type', 'content-length', 'accept'] as const;

/** The query parameters that say who made a change and why; kept in their own fields, not in the query. */
const WHO_KEY = '_who';
const WHY_KEY = '_why';

/** What the HTTP layer knows of an answered request. */
export interface AuditInput {
  readonly method: string;
  /** The request URL as sent: path and query string. */
  readonly url: string;
  /** The first path segment after the tenant (`entities`): notification bodies are redacted by their types' secret details. */
  readonly app: string;
  readonly status: number;
  /** The username of the principal that made the request. */
  readonly user: string | null;
  /** The id of the token it used (a fingerprint, never the token), or null. */
  readonly tokenId: string | null;
  /** The request's transaction id (X-Response-Id, the txnId of error bodies). */
  readonly requestId: string;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The parsed body, or undefined without one. */
  readonly body: unknown;
}

/** One stored audit record (mon_audit's columns). */
export interface AuditRow {
  readonly id: string;
  readonly timestampMs: number;
  readonly method: string;
  readonly path: string;
  /** JSON object of the query parameters (without _who and _why), or null without any. */
  readonly query: string | null;
  readonly status: number;
  readonly user: string | null;
  readonly tokenId: string | null;
  readonly requestId: string;
  /** JSON object of the headers kept. */
  readonly headers: string;
  readonly who: string | null;
  readonly why: string | null;
  /** The redacted body as JSON text (cut when long), or null without a body. */
  readonly body: string | null;
}

/** Hex digits of the time part of an audit id: 48 bits of milliseconds, as UUIDv7. */
const ID_TIME_HEX = 12;

/**
 * A new audit id, shaped as a UUIDv7 (RFC 9562): 48 bits of `timeMs`, then random bits. Ids of
 * records sort by time (and, within a millisecond, randomly: the list orders by (timestamp, id)).
 */
export function newAuditId(timeMs: number): string {
  const time = Math.max(0, Math.trunc(timeMs)).toString(16).padStart(ID_TIME_HEX, '0').slice(-ID_TIME_HEX);
  const random = randomBytes(10);
  random[0] = ((random[0] as number) & 0x0f) | 0x70; // version 7
  random[2] = ((random[2] as number) & 0x3f) | 0x80; // variant 10
  const hex = random.toString('hex');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-${hex.slice(0, 4)}-${hex.slice(4, 8)}-${hex.slice(8, 20)}`;
}

/** Text cut to AUDIT_TEXT_LENGTH_MAX characters. */
function bounded(text: string): string {
  return text.length > AUDIT_TEXT_LENGTH_MAX ? text.slice(0, AUDIT_TEXT_LENGTH_MAX) : text;
}

/** The query parameters of `url`, secrets replaced, at most AUDIT_QUERY_KEYS_MAX keys; who and why apart. */
export function auditQuery(url: string): { query: Record<string, string | string[]> | null; who: string | null; why: string | null } {
  const at = url.indexOf('?');
  const params = new URLSearchParams(at === -1 ? '' : url.slice(at + 1));
  const query = new Map<string, string | string[]>();
  let who: string | null = null;
  let why: string | null = null;
  for (const [raw, text] of params) {
    const key = bounded(raw);
    const value = isAuditSecretKey(key) ? REDACTED_SECRET : bounded(redactUrls(text));
    if (key === WHO_KEY) who ??= value;
    else if (key === WHY_KEY) why ??= value;
    else if (query.has(key)) {
      const held = query.get(key) as string | string[];
      if (!Array.isArray(held) || held.length < AUDIT_QUERY_KEYS_MAX) query.set(key, [...(Array.isArray(held) ? held : [held]), value]);
    } else if (query.size < AUDIT_QUERY_KEYS_MAX) query.set(key, value);
  }
  return { query: query.size === 0 ? null : Object.fromEntries(query), who, why };
}

/** The kept headers: AUDIT_HEADERS only, content-length as a number (as the reference shows it). */
export function auditHeaders(headers: AuditInput['headers']): Record<string, string | number> {
  const kept: [string, string | number][] = [];
  for (const name of AUDIT_HEADERS) {
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw.join(', ') : (raw as string | undefined);
    if (value === undefined) continue;
    kept.push([name, name === 'content-length' && /^\d{1,15}$/.test(value) ? Number(value) : bounded(value)]);
  }
  return Object.fromEntries(kept);
}

/** Apps whose bodies are notifications (their details hold secrets by type, such as a webhook's whole url). */
const NOTIFICATION_APPS: ReadonlySet<string> = new Set(['notifications', 'test-notification', 'test-notifications']);

/** The audit row of an answered request at `timeMs`. */
export function auditRow(input: AuditInput, timeMs: number): AuditRow {
  const { query, who, why } = auditQuery(input.url);
  const at = input.url.indexOf('?');
  return {
    id: newAuditId(timeMs),
    timestampMs: timeMs,
    method: input.method,
    path: at === -1 ? input.url : input.url.slice(0, at),
    query: query === null ? null : JSON.stringify(query),
    status: input.status,
    user: input.user,
    tokenId: input.tokenId,
    requestId: input.requestId,
    headers: JSON.stringify(auditHeaders(input.headers)),
    who,
    why,
    body: auditBodyText(input.body, { notification: NOTIFICATION_APPS.has(input.app) }),
  };
}
