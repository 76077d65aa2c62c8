// Owns parsing the authentication request body: {"auth": {"<VENDOR>-KSKEY:apiKeyCredentials": {username, apiKey}}}.
import { identityError } from '../../../identity/identity-errors.js';

/** API key credentials and the optional tenant the client names. */
export interface ApiKeyCredentials {
  readonly username: string;
  readonly apiKey: string;
  /** tenantId or tenantName from `auth`, when given (they name the same account here). */
  readonly tenant?: string;
}

/** The message of every unparsable or wrong-shaped authentication body (spec section 7, rule 1). */
export const AUTH_BODY_INVALID_MESSAGE = 'Invalid request body: unable to parse Auth data. Please review XML or JSON formatting.';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(reason: string): Error {
  return identityError('IDENTITY_BODY_INVALID', AUTH_BODY_INVALID_MESSAGE, { reason });
}

/** Parses a raw JSON body into API key credentials; throws IDENTITY_BODY_INVALID (400) otherwise. */
export function parseAuthRequest(raw: unknown, vendorPrefix: string): ApiKeyCredentials {
  let body: unknown;
  try {
    body = Buffer.isBuffer(raw) ? JSON.parse(raw.toString('utf8')) : undefined;
  } catch {
    throw invalid('not JSON');
  }
  const auth = isObject(body) ? body['auth'] : undefined;
  if (!isObject(auth)) throw invalid('no auth object');
  const credentials = auth[`${vendorPrefix}-KSKEY:apiKeyCredentials`];
  if (!isObject(credentials)) throw invalid(`no ${vendorPrefix}-KSKEY:apiKeyCredentials object`);
  const { username, apiKey } = credentials;
  if (typeof username !== 'string' || username === '' || typeof apiKey !== 'string' || apiKey === '') {
    throw invalid('username and apiKey must be non-empty strings');
  }
  const { tenantId, tenantName } = auth;
  // The reference answers 400 when both are given.
  if (tenantId !== undefined && tenantName !== undefined) throw invalid('give tenantId or tenantName, not both');
  const tenant = tenantId ?? tenantName;
  if (tenant !== undefined && typeof tenant !== 'string') throw invalid('tenantId and tenantName must be strings');
  return tenant === undefined ? { username, apiKey } : { username, apiKey, tenant };
}
