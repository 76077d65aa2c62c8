// Owns the identity API under /v2.0: POST /tokens (authenticate), GET and DELETE /tokens/{id} (validate, revoke), in the identity fault shape.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { StrataError } from '../../../core/errors.js';
import { identityError } from '../../../identity/identity-errors.js';
import type { Principal } from '../../../identity/identity-service.js';
import type { ApiErrorShaper } from '../../api-errors.js';
import type { ApiPlugin } from '../../api-plugin.js';
import { IDENTITY_ERROR_SCHEMA } from '../../error-schemas.js';
import { IDENTITY_BODY_BYTES_MAX } from '../../http-limits.js';
import { jsonError, sendJson } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import { principalOf, tokenOf, type RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { parameterError } from '../../validation-failure.js';
import { accessBody, validationBody, type AccessContext } from './access-body.js';
import { authRequestSchema, TOKEN_PARAMS_SCHEMA, VALIDATE_QUERY_SCHEMA, type AuthRequest } from './identity-schemas.js';
import { identityFaultBody } from './identity-fault.js';

const AUTHENTICATE_RULES: RouteRules = { access: 'public' };
const TOKEN_RULES: RouteRules = { access: 'token' };

/** The message of every unparsable or wrong-shaped authentication body (spec section 7, rule 1). */
const AUTH_BODY_INVALID_MESSAGE = 'Invalid request body: unable to parse Auth data. Please review XML or JSON formatting.';

function authBodyInvalid(reason: string): StrataError {
  return identityError('IDENTITY_BODY_INVALID', AUTH_BODY_INVALID_MESSAGE, { reason });
}

/** Identity errors: the fault wrapped under its name; any bad authentication body is the one badRequest of spec 7 rule 1. */
const identityErrors: ApiErrorShaper = {
  body: (view) => jsonError(identityFaultBody(view)),
  fromValidation: (failure) => (failure.part === 'body' ? authBodyInvalid(`${failure.field || 'body'} ${failure.problem}`) : parameterError(failure)),
  fromUnparsableBody: () => authBodyInvalid('not JSON'),
};

function accessContext(context: ServerContext): AccessContext {
  return { vendorPrefix: context.config.vendorPrefix, region: context.config.region, publicUrl: context.publicUrl() };
}

async function authenticate(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { auth } = request.body as AuthRequest;
  const credentials = auth[`${context.config.vendorPrefix}-KSKEY:apiKeyCredentials`] as { username: string; apiKey: string };
  const issued = context.identity.authenticate(credentials.username, credentials.apiKey, auth.tenantId ?? auth.tenantName);
  return sendJson(reply, accessBody(issued.token, issued, accessContext(context)));
}

function callerOf(request: FastifyRequest): { caller: Principal; token: string } {
  return { caller: principalOf(request) as Principal, token: tokenOf(request) ?? '' };
}

async function validate(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { tokenId } = request.params as { tokenId: string };
  const { belongsTo } = request.query as { belongsTo?: string };
  const { caller, token } = callerOf(request);
  const target = context.identity.visibleToken(caller, token, tokenId, belongsTo);
  return sendJson(reply, validationBody(tokenId, target, accessContext(context)));
}

async function revoke(context: ServerContext, request: FastifyRequest, reply: FastifyReply, tokenId: string | undefined): Promise<FastifyReply> {
  const { caller, token } = callerOf(request);
  context.identity.revokeVisible(caller, token, tokenId ?? token);
  return reply.code(204).send();
}

/** The identity API (OpenStack identity v2.0 with the vendor's API key credentials). */
export const identityApi: ApiPlugin = {
  name: 'identity',
  prefix: '/v2.0',
  errorSchema: IDENTITY_ERROR_SCHEMA,
  errors: identityErrors,
  register(scope: FastifyInstance, context: ServerContext): void {
    defineResource(scope, '/tokens', {
      POST: {
        rules: AUTHENTICATE_RULES,
        bodyLimit: IDENTITY_BODY_BYTES_MAX,
        schema: { summary: 'Authenticate with a username and API key', body: authRequestSchema(context.config.vendorPrefix) },
        handler: (request, reply) => authenticate(context, request, reply),
      },
      DELETE: { rules: TOKEN_RULES, schema: { summary: 'Revoke the token sent in X-Auth-Token' }, handler: (request, reply) => revoke(context, request, reply, undefined) },
    });
    defineResource(scope, '/tokens/:tokenId', {
      GET: {
        rules: TOKEN_RULES,
        schema: { summary: 'Validate a token', params: TOKEN_PARAMS_SCHEMA, querystring: VALIDATE_QUERY_SCHEMA },
        handler: (request, reply) => validate(context, request, reply),
      },
      DELETE: {
        rules: TOKEN_RULES,
        schema: { summary: 'Revoke a token', params: TOKEN_PARAMS_SCHEMA },
        handler: (request, reply) => revoke(context, request, reply, (request.params as { tokenId: string }).tokenId),
      },
    });
  },
};
