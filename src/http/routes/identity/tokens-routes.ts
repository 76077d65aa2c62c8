// Owns the identity API: POST /v2.0/tokens (authenticate), GET and DELETE /v2.0/tokens/{id} (validate, revoke).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { identityError } from '../../../identity/identity-errors.js';
import type { Principal } from '../../../identity/identity-service.js';
import { hashesEqual, sha256 } from '../../../identity/secrets.js';
import { httpError } from '../../http-errors.js';
import { IDENTITY_BODY_BYTES_MAX } from '../../http-limits.js';
import { defineResource } from '../../route-table.js';
import { JSON_TYPE, principalOf, tokenOf, type RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { accessBody, validationBody, type AccessContext } from './access-body.js';
import { parseAuthRequest } from './auth-request.js';

const AUTHENTICATE_RULES: RouteRules = { access: 'public', bodyTypes: [JSON_TYPE] };
const TOKEN_RULES: RouteRules = { access: 'token' };

function accessContext(context: ServerContext): AccessContext {
  return { vendorPrefix: context.config.vendorPrefix, region: context.config.region, publicUrl: context.publicUrl() };
}

function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

async function authenticate(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const credentials = parseAuthRequest(request.body, context.config.vendorPrefix);
  const issued = context.identity.authenticate(credentials.username, credentials.apiKey, credentials.tenant);
  return sendJson(reply, accessBody(issued.token, issued, accessContext(context)));
}

/**
 * The principal of the token named in the URL, as the caller may see it: a caller sees its own
 * token; an admin also sees its tenant's tokens; anything else is "not found" (404) so tokens of
 * other tenants are not revealed, and a non-admin asking about another token is refused (403).
 */
function targetOf(context: ServerContext, request: FastifyRequest, tokenId: string): Principal {
  const caller = principalOf(request) as Principal;
  const own = hashesEqual(sha256(tokenId), sha256(tokenOf(request) ?? ''));
  if (!own && caller.user.role !== 'admin') {
    throw httpError('AUTH_ROLE_FORBIDDEN', 'Only an admin may validate or revoke a token other than its own.', { role: caller.user.role });
  }
  const target = own ? caller : context.identity.validate(tokenId);
  const belongsTo = (request.query as { belongsTo?: unknown }).belongsTo;
  if (target === undefined || target.user.tenant !== caller.user.tenant || (typeof belongsTo === 'string' && belongsTo !== target.user.tenant)) {
    throw identityError('IDENTITY_TOKEN_NOT_FOUND', 'Could not find a valid token with this id.');
  }
  return target;
}

async function validate(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { tokenId } = request.params as { tokenId: string };
  return sendJson(reply, validationBody(tokenId, targetOf(context, request, tokenId), accessContext(context)));
}

async function revoke(context: ServerContext, request: FastifyRequest, reply: FastifyReply, tokenId: string): Promise<FastifyReply> {
  targetOf(context, request, tokenId);
  context.identity.revoke(tokenId);
  return reply.code(204).send();
}

/** Registers the identity routes under /v2.0. */
export function registerTokenRoutes(app: FastifyInstance, context: ServerContext): void {
  defineResource(app, '/v2.0/tokens', {
    POST: { rules: AUTHENTICATE_RULES, bodyLimit: IDENTITY_BODY_BYTES_MAX, handler: (request, reply) => authenticate(context, request, reply) },
    DELETE: { rules: TOKEN_RULES, handler: (request, reply) => revoke(context, request, reply, tokenOf(request) ?? '') },
  });
  defineResource(app, '/v2.0/tokens/:tokenId', {
    GET: { rules: TOKEN_RULES, handler: (request, reply) => validate(context, request, reply) },
    DELETE: { rules: TOKEN_RULES, handler: (request, reply) => revoke(context, request, reply, (request.params as { tokenId: string }).tokenId) },
  });
}
