// Owns the event-feed API under /feeds/{tenant}: the catalog, feed pages, publishing and single entries.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { atomEntry, atomFeed, atomService } from '../../../feeds/atom-view.js';
import { FEEDS, type FeedInfo } from '../../../feeds/feed-catalog.js';
import type { FeedEntry } from '../../../feeds/feed-entry.js';
import { entryHref, type FeedAddress } from '../../../feeds/feed-links.js';
import { parsePageRequest } from '../../../feeds/feed-paging.js';
import { FEED_ENTRY_BYTES_MAX } from '../../../feeds/feeds-limits.js';
import { entryFromAtom, entryFromJson } from '../../../feeds/entry-body.js';
import { jsonEntry, jsonFeed, jsonService } from '../../../feeds/json-view.js';
import { essence } from '../../content-negotiation.js';
import { httpError } from '../../http-errors.js';
import { defineResource } from '../../route-table.js';
import type { RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { answerType, ATOM_TYPE, ENTRY_BODY_TYPES, FEED_PRODUCES, isJsonType, SERVICE_PRODUCES } from './feeds-media.js';

/** Reading a tenant's feeds: token or basic credentials of that tenant (spec 5.2). */
const READ_RULES: RouteRules = { access: 'read', basicAuth: true, produces: FEED_PRODUCES };
const CATALOG_RULES: RouteRules = { access: 'read', basicAuth: true, produces: SERVICE_PRODUCES };
/** Publishing: an admin of the tenant, with either credential. */
const PUBLISH_RULES: RouteRules = { access: 'write', basicAuth: true, produces: FEED_PRODUCES, bodyTypes: ENTRY_BODY_TYPES };

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
  const pageRequest = parsePageRequest(request.query as Record<string, unknown>);
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
  const body = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
  const contentType = essence(request.headers['content-type'] ?? '');
  const entry = contentType === ATOM_TYPE ? entryFromAtom(body) : entryFromJson(body);
  const published = context.feeds.publish(tenantOf(request), feed, entry);
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

/** Registers the event-feed routes in their own scope, where Atom bodies are parsed (errors take the feeds shape by URL, in sendError). */
export function registerFeedRoutes(app: FastifyInstance, context: ServerContext): void {
  void app.register(async (scope) => {
    // The server keeps bodies raw; Atom and the vendor JSON type need the same treatment here.
    scope.addContentTypeParser(ENTRY_BODY_TYPES.filter((t) => t !== 'application/json'), { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    const catalogSpec = { GET: { rules: CATALOG_RULES, handler: (request: FastifyRequest, reply: FastifyReply) => catalog(context, request, reply) } };
    defineResource(scope, '/feeds/:tenant/', catalogSpec);
    defineResource(scope, '/feeds/:tenant', catalogSpec);
    for (const feed of FEEDS) {
      defineResource(scope, `/feeds/:tenant/${feed.path}`, {
        GET: { rules: READ_RULES, handler: (request, reply) => page(context, feed, request, reply) },
        POST: { rules: PUBLISH_RULES, bodyLimit: FEED_ENTRY_BYTES_MAX, handler: (request, reply) => publish(context, feed, request, reply) },
      });
      defineResource(scope, `/feeds/:tenant/${feed.path}/entries/:entryId`, {
        GET: { rules: READ_RULES, handler: (request, reply) => oneEntry(context, feed, request, reply) },
      });
    }
  });
}
