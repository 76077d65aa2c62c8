// Owns the per-route rules the request hooks enforce: who may call, which bodies and answers, which queue.
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../identity/identity-service.js';

/**
 * Who may call a route: `public` needs no token; `token` needs a valid token (the handler checks
 * more); `read`, `write` and `admin` also need the token's tenant to be the URL's `:tenant`;
 * `write` needs a role that may write, and `admin` the admin role even to read (account settings).
 */
export type Access = 'public' | 'token' | 'read' | 'write' | 'admin';

/** A kind of work with its own admission queue. */
export type WorkKind = 'ingest' | 'query';

/** Media types Strata reads and writes. */
export const JSON_TYPE = 'application/json';
/** XML, as the feeds and domain-listing APIs also answer. */
export const XML_TYPE = 'application/xml';
/** msgpack, for fast ingest clients (msgpackr). */
export const MSGPACK_TYPE = 'application/x-msgpack';

/** Rules of one route, carried in fastify's route `config`. */
export interface RouteRules {
  readonly access: Access;
  /** Media types the route answers with; the Accept header must allow one (default JSON). */
  readonly produces?: readonly string[];
  /** Admission queue the handler runs in; absent for cheap routes. */
  readonly work?: WorkKind;
  /** Also accept HTTP basic credentials (username and API key) when no token is sent: the event feeds (spec 5.2), Prometheus and OTLP. */
  readonly basicAuth?: boolean;
  /** Also accept the token as `Authorization: Bearer <token>` (what Prometheus and OpenTelemetry exporters send) when no X-Auth-Token is. */
  readonly bearerAuth?: boolean;
}

declare module 'fastify' {
  // A route's `config` carries its rules (route-table.ts puts them there; the hooks read them).
  interface FastifyContextConfig extends Partial<RouteRules> {}
}

/** Rules of requests that matched no route: they get their 404 whatever they accept. */
const UNMATCHED_RULES: RouteRules = { access: 'public', produces: ['*/*'] };

/** The rules of the route a request matched. */
export function rulesOf(request: FastifyRequest): RouteRules {
  const config = request.routeOptions.config as Partial<RouteRules> | undefined;
  return config?.access !== undefined ? (config as RouteRules) : UNMATCHED_RULES;
}

/** The principal the auth hook attached (undefined on public routes). */
export function principalOf(request: FastifyRequest): Principal | undefined {
  return (request as FastifyRequest & { principal?: Principal }).principal;
}

/** Attaches the principal of a request. */
export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  (request as FastifyRequest & { principal?: Principal }).principal = principal;
}

/** `Authorization: Bearer <token>` (scheme in any case, RFC 6750's token68 form). */
const BEARER = /^\s*bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i;

/**
 * The token a request carries: in X-Auth-Token, or, on routes whose rules allow it (bearerAuth),
 * in `Authorization: Bearer`; undefined when none. X-Auth-Token wins when both are sent.
 */
export function tokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-auth-token'];
  const token = Array.isArray(header) ? header[0] : header;
  if (token !== undefined && token !== '') return token;
  if (rulesOf(request).bearerAuth !== true) return undefined;
  const authorization = request.headers.authorization;
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
}
