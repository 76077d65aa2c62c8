// Owns HTTP basic authentication (spec 5.2, and the Prometheus and OTLP routes): @fastify/basic-auth reads the header; the identity service checks the key.
import fastifyBasicAuth from '@fastify/basic-auth';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityService, Principal } from '../identity/identity-service.js';
import { httpError } from './http-errors.js';

/** The realm named in WWW-Authenticate on a 401 from a route that accepts basic credentials (the event feeds, Prometheus, OTLP). */
const BASIC_REALM = 'Strata';

/** The WWW-Authenticate challenge of routes that accept basic credentials. */
export function basicChallenge(): string {
  return `Basic realm="${BASIC_REALM}", charset="UTF-8"`;
}

/** Checks a request's basic credentials and resolves to their principal; rejects with AUTH_BASIC_INVALID. */
export type BasicAuthenticator = (request: FastifyRequest, reply: FastifyReply) => Promise<Principal>;

function invalid(): Error {
  return httpError('AUTH_BASIC_INVALID', 'The basic credentials were not accepted; send the account username and API key.');
}

/**
 * Registers @fastify/basic-auth on `app` and returns the authenticator the auth hook calls. The
 * plugin parses `Authorization: Basic` (RFC 7617, control characters refused); the key is verified
 * by the identity service exactly as a token request's key is (hashed, compared in constant time,
 * unknown usernames cost the same). A malformed header is AUTH_BASIC_INVALID too (error-view.ts).
 */
export async function useBasicAuth(app: FastifyInstance, identity: IdentityService): Promise<BasicAuthenticator> {
  const principals = new WeakMap<FastifyRequest, Principal>();
  await app.register(fastifyBasicAuth, {
    authenticate: false,
    // Lax: whitespace around the scheme and the credentials is tolerated, as clients send it.
    strictCredentials: false,
    validate: async (username, apiKey, request) => {
      const principal = identity.verifyApiKey(username, apiKey);
      if (principal === undefined) throw invalid();
      principals.set(request, principal);
    },
  });
  return (request, reply) =>
    new Promise((resolve, reject) => {
      app.basicAuth(request, reply, (error) => {
        const principal = principals.get(request);
        if (error !== undefined || principal === undefined) reject(error ?? invalid());
        else resolve(principal);
      });
    });
}
