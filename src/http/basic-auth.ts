// Owns HTTP basic authentication (spec 5.2): reading the Authorization header and checking it like a token.
import type { FastifyRequest } from 'fastify';
import type { IdentityService, Principal } from '../identity/identity-service.js';
import { API_KEY_LENGTH_MAX, USERNAME_LENGTH_MAX } from '../identity/user-rules.js';
import { httpError } from './http-errors.js';

/** The realm named in WWW-Authenticate on a 401 from a route that accepts basic credentials. */
export const BASIC_REALM = 'Strata event feeds';
/** Longest Authorization header value read: "Basic " and the Base64 of the longest username:key. */
const BASIC_HEADER_LENGTH_MAX = 6 + Math.ceil(((USERNAME_LENGTH_MAX + 1 + API_KEY_LENGTH_MAX) * 4) / 3) + 4;

/** The WWW-Authenticate challenge of routes that accept basic credentials. */
export function basicChallenge(): string {
  return `Basic realm="${BASIC_REALM}", charset="UTF-8"`;
}

/**
 * The principal of a request's `Authorization: Basic` credentials (account username and API key),
 * or undefined when it sends none. The key is verified by the identity service exactly as a
 * token request's key is (hashed, constant-time, unknown users cost the same). Throws
 * AUTH_BASIC_INVALID when the header is malformed or the credentials do not authenticate.
 */
export function basicPrincipal(request: FastifyRequest, identity: IdentityService): Principal | undefined {
  const header = request.headers.authorization;
  if (header === undefined || !/^basic\s/i.test(header)) return undefined;
  const invalid = () => httpError('AUTH_BASIC_INVALID', 'The basic credentials were not accepted; send the account username and API key.');
  if (header.length > BASIC_HEADER_LENGTH_MAX) throw invalid();
  const encoded = header.slice(6).trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw invalid();
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw invalid();
  const principal = identity.verifyApiKey(decoded.slice(0, colon), decoded.slice(colon + 1));
  if (principal === undefined) throw invalid();
  return principal;
}
