// Owns the check types Strata accepts and the details each needs: remote.http and the agent checks.
import { fieldError } from './monitoring-errors.js';
import {
  CHECK_DETAIL_TEXT_LENGTH_MAX,
  CHECK_DETAILS_KEYS_MAX,
  HTTP_CHECK_BODY_MATCHES_MAX,
  HTTP_CHECK_HEADERS_MAX,
  HTTP_CHECK_PAYLOAD_LENGTH_MAX,
} from './monitoring-limits.js';
import { bool, isObject, text, type JsonObject } from './field-rules.js';
import { isHttpUrl } from './url-rules.js';

/** The remote check type this build runs from monitoring zones. */
export const REMOTE_HTTP = 'remote.http';

/** Agent check types and the details keys each requires (the agent gathers these on the host). */
export const AGENT_CHECK_TYPES: Readonly<Record<string, readonly string[]>> = {
  'agent.cpu': [],
  'agent.memory': [],
  'agent.load_average': [],
  'agent.disk': ['target'],
  'agent.filesystem': ['target'],
  'agent.network': ['target'],
  'agent.plugin': ['file'],
  'agent.apache': ['url'],
  'agent.mysql': ['username'],
  'agent.redis': ['host'],
};

/** HTTP methods a remote.http check may use. */
const HTTP_METHODS = ['HEAD', 'GET', 'POST', 'PUT', 'DELETE', 'INFO'];

/** True for a remote check type (run from monitoring zones, targets an address). */
export function isRemoteType(type: string): boolean {
  return type.startsWith('remote.');
}

/** True for a check type Strata knows. */
export function isKnownType(type: string): boolean {
  return type === REMOTE_HTTP || Object.hasOwn(AGENT_CHECK_TYPES, type);
}

function stringMap(key: string, value: unknown, max: number): Record<string, string> {
  if (!isObject(value)) throw fieldError(key, 'must be an object of strings');
  const entries = Object.entries(value);
  if (entries.length > max) throw fieldError(key, `must have at most ${max} entries`);
  for (const [, entry] of entries) text(key, entry, 0, CHECK_DETAIL_TEXT_LENGTH_MAX);
  return value as Record<string, string>;
}

const HTTP_KEYS = ['url', 'method', 'follow_redirects', 'include_body', 'body', 'body_matches', 'headers', 'auth_user', 'auth_password', 'payload'];

/** remote.http details with their defaults (method GET, follow_redirects true, include_body false). */
function httpDetails(details: JsonObject): JsonObject {
  for (const key of Object.keys(details)) if (!HTTP_KEYS.includes(key)) throw fieldError(`details.${key}`, 'unknown key');
  const url = text('details.url', details['url'], 1, CHECK_DETAIL_TEXT_LENGTH_MAX);
  if (!isHttpUrl(url)) throw fieldError('details.url', 'must be an http or https URL');
  const method = details['method'] ?? 'GET';
  if (typeof method !== 'string' || !HTTP_METHODS.includes(method)) throw fieldError('details.method', `must be one of ${HTTP_METHODS.join(', ')}`);
  const out: Record<string, unknown> = {
    url,
    method,
    follow_redirects: details['follow_redirects'] === undefined ? true : bool('details.follow_redirects', details['follow_redirects']),
    include_body: details['include_body'] === undefined ? false : bool('details.include_body', details['include_body']),
  };
  if (details['body'] !== undefined) out['body'] = text('details.body', details['body'], 1, CHECK_DETAIL_TEXT_LENGTH_MAX);
  if (details['body_matches'] !== undefined) out['body_matches'] = stringMap('details.body_matches', details['body_matches'], HTTP_CHECK_BODY_MATCHES_MAX);
  if (details['headers'] !== undefined) out['headers'] = stringMap('details.headers', details['headers'], HTTP_CHECK_HEADERS_MAX);
  for (const key of ['auth_user', 'auth_password']) {
    if (details[key] !== undefined) out[key] = text(`details.${key}`, details[key], 1, CHECK_DETAIL_TEXT_LENGTH_MAX);
  }
  if (details['payload'] !== undefined) out['payload'] = text('details.payload', details['payload'], 0, HTTP_CHECK_PAYLOAD_LENGTH_MAX);
  return out;
}

/** Agent check details: the required keys present, every value a string, number or boolean. */
function agentDetails(type: string, details: JsonObject): JsonObject {
  const entries = Object.entries(details);
  if (entries.length > CHECK_DETAILS_KEYS_MAX) throw fieldError('details', `must have at most ${CHECK_DETAILS_KEYS_MAX} keys`);
  for (const key of AGENT_CHECK_TYPES[type] ?? []) if (details[key] === undefined) throw fieldError(`details.${key}`, 'is required');
  for (const [key, value] of entries) {
    if (typeof value === 'string') text(`details.${key}`, value, 0, CHECK_DETAIL_TEXT_LENGTH_MAX);
    else if (typeof value !== 'number' && typeof value !== 'boolean') throw fieldError(`details.${key}`, 'must be a string, number or boolean');
  }
  return details;
}

/** Validates the details of a check of `type` and fills their defaults. */
export function checkDetails(type: string, value: unknown): JsonObject {
  const details = value === undefined || value === null ? {} : value;
  if (!isObject(details)) throw fieldError('details', 'must be an object');
  return type === REMOTE_HTTP ? httpDetails(details) : agentDetails(type, details);
}
