// Owns the auth rules of every protected route: X-Auth-Token → principal, then tenant and role checks.
import type { FastifyRequest } from 'fastify';
import type { IdentityService, Principal } from '../identity/identity-service.js';
import { basicPrincipal } from './basic-auth.js';
import { httpError } from './http-errors.js';
import { rulesOf, setPrincipal, tokenOf } from './route-rules.js';

/** True when the principal's role may change data. */
export function mayWrite(principal: Principal): boolean {
  return principal.user.role === 'admin';
}

/**
 * Checks the request against its route's access rule and attaches the principal. Throws
 * AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID or AUTH_BASIC_INVALID (401), AUTH_TENANT_FORBIDDEN or
 * AUTH_ROLE_FORBIDDEN (403).
 * X-Auth-Project-Id is accepted and ignored: the spec lets it be the account number or any value.
 */
export function authenticateRequest(request: FastifyRequest, identity: IdentityService): void {
  const { access, basicAuth } = rulesOf(request);
  if (access === 'public') return;
  const token = tokenOf(request);
  // Routes that accept HTTP basic credentials (the event feeds, spec 5.2) use them when no token is sent.
  const basic = basicAuth === true && token === undefined ? basicPrincipal(request, identity) : undefined;
  if (token === undefined && basic === undefined) throw httpError('AUTH_TOKEN_MISSING', 'No X-Auth-Token header was sent; authenticate at /v2.0/tokens first.');
  const principal = basic ?? identity.validate(token as string);
  if (principal === undefined) throw httpError('AUTH_TOKEN_INVALID', 'The X-Auth-Token is unknown, expired or revoked; authenticate again.');
  setPrincipal(request, principal);
  if (access === 'token') return;
  const tenant = (request.params as { tenant?: unknown }).tenant;
  if (tenant !== principal.user.tenant) {
    throw httpError('AUTH_TENANT_FORBIDDEN', 'The token does not grant access to this tenant.', { tenant: typeof tenant === 'string' ? tenant : null });
  }
  if (access === 'write' && !mayWrite(principal)) {
    throw httpError('AUTH_ROLE_FORBIDDEN', `The role ${principal.user.role} may not write.`, { role: principal.user.role });
  }
}
