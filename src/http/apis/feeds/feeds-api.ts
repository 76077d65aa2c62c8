// Owns the event-feed API under /feeds/{tenant}: the catalog, feed pages, publishing and single entries, in the feeds' error shape.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StrataError } from '../../../core/errors.js';
import { atomEntry, atomFeed, atomService } from '../../../feeds/atom-view.js';
import { entryFromAtom, entryFromJson } from '../../../feeds/entry-body.js';
import { FEEDS, type FeedInfo } from '../../../feeds/feed-catalog.js';
import type { FeedEntry, NewEntry } from '../../../feeds/feed-entry.js';
import { entryHref, type FeedAddress } from '../../../feeds/feed-links.js';
import { parsePageRequest, type FeedQuery } from '../../../feeds/feed-paging.js';
import { FEED_ENTRY_BYTES_MAX } from '../../../feeds/feeds-limits.js';
import { jsonEntry, jsonFeed, jsonService } from '../../../feeds/json-view.js';
import type { ApiErrorShaper } from '../../api-errors.js';
import type { ApiPlugin } from '../../api-plugin.js';
import { FEEDS_ERROR_SCHEMA } from '../../error-schemas.js';
import { basicChallenge } from '../../basic-auth.js';
import { answerType } from '../../content-negotiation.js';
import { httpError } from '../../http-errors.js';
import { jsonError } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import { JSON_TYPE, XML_TYPE, type RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { feedsFaultJson, feedsFaultXml } from './feeds-fault.js';
import { ATOM_JSON_TYPE, ATOM_TYPE, FEED_PRODUCES, isJsonType, SERVICE_PRODUCES } from './feeds-media.js';
import { TENANT_PARAMS_SCHEMA } from '../../common-schemas.js';
import { ENTRY_PARAMS_SCHEMA, FEED_QUERY_SCHEMA } from './feeds-schemas.js';

/** Reading a tenant's feeds: token or basic credentials of that tenant (spec 5.2). */
const READ_RULES: RouteRules = { access: 'read', basicAuth: true, produces: FEED_PRODUCES };
const CATALOG_RULES: RouteRules = { access: 'read', basicAuth: true, produces: SERVICE_PRODUCES };
/** Publishing: an admin of the tenant, with either credential. */
const PUBLISH_RULES: RouteRules = { access: 'write', basicAuth: true, produces: FEED_PRODUCES };

/**
 * Feed errors: `{"error": {...}}` in JSON or `<error>` in XML, as the request accepts; every 401
 * carries the Basic challenge, since these routes accept basic credentials.
 */
const feedsErrors: ApiErrorShaper = {
  body: (view, request) =>
    isJsonType(answerType(request, FEED_PRODUCES))
      ? jsonError(feedsFaultJson(view))
      : { type: `${XML_TYPE}; charset=utf-8`, text: feedsFaultXml(view) },
  fromValidation: (failure) =>
    new StrataError('FEED_QUERY_INVALID', `parameter '${failure.field}' ${failure.problem}`, { parameter: failure.field, problem: failure.problem }),
  decorate: (view, reply) => {
    if (view.status === 401) void reply.header('www-authenticate', basicChallenge());
  },
};

function tenantOf(request: FastifyRequest): string {
  return (request.params as { tenant: string }).tenant;
}

function tenantUrl(context: ServerContext, tenant: string): string {
  return `${context.publicUrl()}/feeds/${encodeURIComponent(tenant)}`;
}

function addressOf(context: ServerContext, request: FastifyRequest, feed: FeedInfo): FeedAddress {
  const tenant = tenantOf(request);
  return { tenant, feedUrl: `${tenantUrl(context, tenant)}/${feed.path}`, feedPath: feed.path };
}

function send(reply: FastifyReply, status: number, type: string, body: string | Record<string, unknown>): FastifyReply {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return reply.code(status).type(`${type}; charset=utf-8`).send(text);
}

async function catalog(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const type = answerType(request, SERVICE_PRODUCES);
  const url = tenantUrl(context, tenantOf(request));
  return isJsonType(type) ? send(reply, 200, type, jsonService(url, FEEDS)) : send(reply, 200, type, atomService(url, FEEDS));
}

async function page(context: ServerContext, feed: FeedInfo, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const pageRequest = parsePageRequest(request.query as FeedQuery);
  const result = context.feeds.page(tenantOf(request), feed, pageRequest);
  const address = addressOf(context, request, feed);
  const type = answerType(request, FEED_PRODUCES);
  const nowMs = context.clock.now();
  return isJsonType(type) ? send(reply, 200, type, jsonFeed(address, feed, result, nowMs)) : send(reply, 200, type, atomFeed(address, feed, result, nowMs));
}

function sendEntry(reply: FastifyReply, request: FastifyRequest, address: FeedAddress, entry: FeedEntry, status: number): FastifyReply {
  const type = answerType(request, FEED_PRODUCES);
  return isJsonType(type) ? send(reply, status, type, jsonEntry(address, entry)) : send(reply, status, type, atomEntry(address, entry));
}

async function publish(context: ServerContext, feed: FeedInfo, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  // With neither a body nor a Content-Type fastify runs no parser, so there is no entry at all.
  if (request.body === undefined) {
    throw new StrataError('FEED_ENTRY_INVALID', `Publishing needs an entry in the body: an Atom entry (${ATOM_TYPE}) or its JSON form.`);
  }
  const published = context.feeds.publish(tenantOf(request), feed, request.body as NewEntry);
  const address = addressOf(context, request, feed);
  void reply.header('location', entryHref(address, published.id));
  return sendEntry(reply, request, address, published, 201);
}

async function oneEntry(context: ServerContext, feed: FeedInfo, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { entryId } = request.params as { entryId: string };
  const entry = context.feeds.entry(tenantOf(request), feed, entryId.toLowerCase());
  if (entry === undefined) throw httpError('HTTP_ROUTE_NOT_FOUND', `No entry ${entryId} in this feed.`);
  return sendEntry(reply, request, addressOf(context, request, feed), entry, 200);
}

/** A content-type parser that hands the body's text to a feeds-room parser; its FEED_ENTRY_INVALID becomes the reply. */
function entryParser(parse: (text: string) => NewEntry) {
  return (_request: FastifyRequest, body: string | Buffer, done: (error: Error | null, entry?: NewEntry) => void): void => {
    let entry: NewEntry;
    try {
      entry = parse(String(body));
    } catch (error) {
      done(error as Error);
      return;
    }
    done(null, entry);
  };
}

/** Entry bodies are parsed by the feeds room (Atom XML or the JSON forms), in this scope only. */
function addEntryParsers(scope: FastifyInstance): void {
  scope.removeContentTypeParser(JSON_TYPE);
  scope.addContentTypeParser(ATOM_TYPE, { parseAs: 'string' }, entryParser(entryFromAtom));
  scope.addContentTypeParser([JSON_TYPE, ATOM_JSON_TYPE], { parseAs: 'string' }, entryParser(entryFromJson));
}

/** The event-feed API (spec 4's event-feed operations, with basic authentication of spec 5.2). */
export const feedsApi: ApiPlugin = {
  name: 'feeds',
  prefix: '/feeds',
  errorSchema: FEEDS_ERROR_SCHEMA,
  errors: feedsErrors,
  register(scope: FastifyInstance, context: ServerContext): void {
    addEntryParsers(scope);
    const catalogSpec = {
      GET: {
        rules: CATALOG_RULES,
        schema: { summary: "The tenant's feeds catalog (Atom service document)", params: TENANT_PARAMS_SCHEMA },
        handler: (request: FastifyRequest, reply: FastifyReply) => catalog(context, request, reply),
      },
    };
    defineResource(scope, '/:tenant/', catalogSpec);
    defineResource(scope, '/:tenant', catalogSpec);
    for (const feed of FEEDS) {
      defineResource(scope, `/:tenant/${feed.path}`, {
        GET: {
          rules: READ_RULES,
          schema: { summary: `A page of the ${feed.path} feed, newest first`, params: TENANT_PARAMS_SCHEMA, querystring: FEED_QUERY_SCHEMA },
          handler: (request, reply) => page(context, feed, request, reply),
        },
        POST: {
          rules: PUBLISH_RULES,
          bodyLimit: FEED_ENTRY_BYTES_MAX,
          schema: { summary: `Publish an entry to the ${feed.path} feed (Atom XML or JSON)`, params: TENANT_PARAMS_SCHEMA },
          handler: (request, reply) => publish(context, feed, request, reply),
        },
      });
      defineResource(scope, `/:tenant/${feed.path}/entries/:entryId`, {
        GET: {
          rules: READ_RULES,
          schema: { summary: `One entry of the ${feed.path} feed`, params: ENTRY_PARAMS_SCHEMA },
          handler: (request, reply) => oneEntry(context, feed, request, reply),
        },
      });
    }
  },
};
