// Owns the monitoring API's request and reply helpers: path parameters, paging parameters, list envelopes, 201 and 204.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '../../../monitoring/monitoring-limits.js';
import type { Page, PageRequest } from '../../../monitoring/paging.js';
import { sendJson } from '../../json-reply.js';
import type { ServerContext } from '../../server-context.js';

/** URL prefix of the monitoring API; the tenant (account) follows it. */
export const MONITORING_PREFIX = '/monitoring/v1.0';

/** The query parameters every monitoring list takes (spec 8: limit and marker). */
export const PAGE_QUERY_PROPERTIES = {
  limit: { type: 'integer', minimum: 1, maximum: LIST_LIMIT_MAX, description: `Items per page, 1 to ${LIST_LIMIT_MAX} (default ${LIST_LIMIT_DEFAULT}).` },
  // No length limit beyond the URL's: a marker past every id is an empty page, not an error (spec 7 rule 5).
  marker: { type: 'string', description: 'Id of the first item of the page (next_marker of the page before).' },
} as const;

/** A list's query string: paging only. */
export const PAGE_QUERY_SCHEMA = { type: 'object', properties: PAGE_QUERY_PROPERTIES } as const;

/** A monitoring list's answer: `values` of the collection's items and the paging `metadata` (spec 4). */
const LIST_RESPONSE_SCHEMA = {
  type: 'object',
  required: ['values', 'metadata'],
  properties: {
    values: { type: 'array', items: { type: 'object', additionalProperties: true } },
    metadata: {
      type: 'object',
      required: ['count', 'limit', 'marker', 'next_marker', 'next_href'],
      properties: {
        count: { type: 'integer' },
        limit: { type: ['integer', 'null'] },
        marker: { type: ['string', 'null'] },
        next_marker: { type: ['string', 'null'] },
        next_href: { type: ['string', 'null'] },
      },
    },
  },
} as const;

/**
 * The 200 answer of every monitoring list, for the OpenAPI document (lists are sent as text by
 * sendList, so fastify's serializer does not run on them).
 */
export const LIST_RESPONSE = { 200: LIST_RESPONSE_SCHEMA } as const;

/** The tenant of the URL (the auth hook has checked the token may use it). */
export function tenantOf(request: FastifyRequest): string {
  return (request.params as { tenant: string }).tenant;
}

/** A path parameter. */
export function param(request: FastifyRequest, name: string): string {
  return (request.params as Record<string, string>)[name] ?? '';
}

/** The page a list request asks for, from its schema-checked query string ('' as marker means none). */
export function pageRequest(request: FastifyRequest): PageRequest {
  const { limit, marker } = request.query as { limit?: number; marker?: string };
  const size = limit ?? LIST_LIMIT_DEFAULT;
  return marker === undefined || marker === '' ? { limit: size } : { limit: size, marker };
}

/** The absolute URL of a path under the tenant's monitoring base. */
export function objectUrl(context: ServerContext, tenant: string, path: string): string {
  return `${context.publicUrl()}${MONITORING_PREFIX}/${encodeURIComponent(tenant)}/${path}`;
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
    for (const [key, value] of Object.entries(request.query as Record<string, unknown>)) {
      if (key === 'limit' || key === 'marker' || key in extra || value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) params.append(key, String(one));
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
