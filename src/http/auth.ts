// Owns the auth rules of every protected route: X-Auth-Token (or a bearer token or basic credentials where allowed) → principal, then tenant and role checks.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityService } from '../identity/identity-service.js';
import { mayWrite } from '../identity/user-rules.js';
import type { BasicAuthenticator } from './basic-auth.js';
import { httpError } from './http-errors.js';
import { rulesOf, setPrincipal, tokenOf } from './route-rules.js';

/** True when a request sends `Authorization: Basic ...`. */
function sendsBasic(request: FastifyRequest): boolean {
  const header = request.headers.authorization;
  return header !== undefined && /^\s*basic\s/i.test(header);
}

/**
 * Checks the request against its route's access rule and attaches the principal. Throws
 * AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID or AUTH_BASIC_INVALID (401), AUTH_TENANT_FORBIDDEN or
 * AUTH_ROLE_FORBIDDEN (403). Who may write is the identity room's rule (mayWrite).
 * X-Auth-Project-Id is accepted and ignored: the spec lets it be the account number or any value.
 */
export async function authenticateRequest(request: FastifyRequest, reply: FastifyReply, identity: IdentityService, basic: BasicAuthenticator): Promise<void> {
  const { access, basicAuth, bearerAuth } = rulesOf(request);
  if (access === 'public') return;
  const tenant = (request.params as { tenant?: unknown }).tenant;
  // `/feeds/` or `/dns/v1.0//domains`: an empty tenant segment names no resource, whoever asks.
  if (tenant === '') throw httpError('HTTP_ROUTE_NOT_FOUND', `No resource at ${request.method} ${request.url.split('?')[0] ?? ''}.`);
  const token = tokenOf(request);
  let principal;
  if (token !== undefined) {
    principal = identity.validate(token);
    if (principal === undefined) throw httpError('AUTH_TOKEN_INVALID', `The ${bearerAuth === true ? 'token' : 'X-Auth-Token'} is unknown, expired or revoked; authenticate again.`);
  } else if (basicAuth === true && sendsBasic(request)) {
    // Routes that accept HTTP basic credentials (the event feeds, spec 5.2; Prometheus, OTLP) use them when no token is sent.
    principal = await basic(request, reply);
  } else {
    const accepted = bearerAuth === true ? 'X-Auth-Token or Authorization: Bearer' : 'X-Auth-Token header';
    throw httpError('AUTH_TOKEN_MISSING', `No ${accepted} was sent; authenticate at /v2.0/tokens first.`);
  }
  setPrincipal(request, principal);
  if (access === 'token') return;
  if (tenant !== principal.user.tenant) {
    throw httpError('AUTH_TENANT_FORBIDDEN', 'The token does not grant access to this tenant.', { tenant: typeof tenant === 'string' ? tenant : null });
  }
  if (access === 'write' && !mayWrite(principal.user.role)) {
    throw httpError('AUTH_ROLE_FORBIDDEN', `The role ${principal.user.role} may not write.`, { role: principal.user.role });
  }
  // Admin-only resources (the account settings, which show the webhook token) refuse even reads to other roles.
  if (access === 'admin' && principal.user.role !== 'admin') {
    throw httpError('AUTH_ROLE_FORBIDDEN', `The role ${principal.user.role} may not use this resource; it is for admins.`, { role: principal.user.role });
  }
}
