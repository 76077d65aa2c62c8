// Owns the monitoring API's request and reply helpers: JSON bodies, paging parameters, list envelopes, 201/204.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { StrataError } from '../../../core/errors.js';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '../../../monitoring/monitoring-limits.js';
import type { Page, PageRequest } from '../../../monitoring/paging.js';
import { httpError } from '../../http-errors.js';
import type { ServerContext } from '../../server-context.js';

/** Path prefix of the monitoring API; `:tenant` is the account. */
export const MONITORING_BASE = '/monitoring/v1.0/:tenant';

/** A parsed query string as fastify gives it: repeated keys become arrays. */
export type Query = Readonly<Record<string, string | string[] | undefined>>;

/** The tenant of the URL (the auth hook has checked the token may use it). */
export function tenantOf(request: FastifyRequest): string {
  return (request.params as { tenant: string }).tenant;
}

/** A path parameter. */
export function param(request: FastifyRequest, name: string): string {
  return (request.params as Record<string, string>)[name] ?? '';
}

/** The JSON body of a write (the server keeps bodies as raw bytes); undefined when none was sent. */
export function jsonBody(request: FastifyRequest): unknown {
  const raw = request.body;
  if (raw === undefined || raw === null || (Buffer.isBuffer(raw) && raw.length === 0)) return undefined;
  try {
    return JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : String(raw));
  } catch {
    throw httpError('HTTP_BODY_INVALID', 'The request body is not valid JSON.');
  }
}

/** One query parameter given at most once; undefined when absent or empty. */
export function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) {
    if (value.length > 1) throw new StrataError('QUERY_INVALID', `parameter '${name}' may be given once`, { parameter: name });
    return value[0] === '' ? undefined : value[0];
  }
  return value === '' ? undefined : value;
}

/** The page a list request asks for: limit 1..LIST_LIMIT_MAX (default LIST_LIMIT_DEFAULT) and an optional marker. */
export function pageRequest(request: FastifyRequest): PageRequest {
  const query = request.query as Query;
  const text = single(query, 'limit');
  let limit = LIST_LIMIT_DEFAULT;
  if (text !== undefined) {
    limit = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
    if (!(limit >= 1 && limit <= LIST_LIMIT_MAX)) {
      throw new StrataError('LIST_LIMIT_INVALID', `limit must be an integer from 1 to ${LIST_LIMIT_MAX}`, { limit: text, max: LIST_LIMIT_MAX });
    }
  }
  const marker = single(query, 'marker');
  return marker === undefined ? { limit } : { limit, marker };
}

/** Sends a JSON body. */
export function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/** The absolute URL of a path under the tenant's monitoring base. */
export function objectUrl(context: ServerContext, tenant: string, path: string): string {
  return `${context.publicUrl()}/monitoring/v1.0/${encodeURIComponent(tenant)}/${path}`;
}

/** 201 with an empty body, Location and X-Object-ID (clients read the new id from either). */
export function sendCreated(reply: FastifyReply, url: string, id: string): FastifyReply {
  return reply.code(201).header('location', url).header('x-object-id', id).send();
}

/** 204 with Location (as the reference answers a PUT) or none (DELETE). */
export function sendNoContent(reply: FastifyReply, url?: string): FastifyReply {
  if (url !== undefined) void reply.header('location', url);
  return reply.code(204).send();
}

/**
 * `{values, metadata}`: next_href repeats the request's other parameters (and `extra`, such as a
 * changelog window resolved from defaults) with the same limit, so walking it keeps the page size.
 */
export function sendList<T>(
  context: ServerContext,
  request: FastifyRequest,
  reply: FastifyReply,
  page: Page<T>,
  asked: PageRequest,
  render: (item: T) => unknown,
  extra: Readonly<Record<string, string>> = {},
): FastifyReply {
  let nextHref: string | null = null;
  if (page.nextMarker !== null) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(request.query as Query)) {
      if (key === 'limit' || key === 'marker' || key in extra || value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) params.append(key, one);
    }
    for (const [key, value] of Object.entries(extra)) params.set(key, value);
    params.set('limit', String(asked.limit));
    params.set('marker', page.nextMarker);
    nextHref = `${context.publicUrl()}${request.url.split('?')[0] ?? ''}?${params.toString()}`;
  }
  return sendJson(reply, {
    values: page.values.map(render),
    metadata: { count: page.values.length, limit: asked.limit, marker: asked.marker ?? null, next_marker: page.nextMarker, next_href: nextHref },
  });
}
