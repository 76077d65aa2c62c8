// Owns the domain-listing API under /dns/v1.0/{tenant}: domains, one domain, its subdomains and records, paged.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pageLinks, parseWindow } from '../../../dns/dns-paging.js';
import { domainDetailJson, domainsJson, recordsJson, type LinkedPage } from '../../../dns/dns-json-view.js';
import type { DnsRecord, Domain, Page, PageWindow } from '../../../dns/dns-types.js';
import { domainDetailXml, domainsXml, recordsXml } from '../../../dns/dns-xml-view.js';
import { sendNotFound } from '../../error-response.js';
import { defineResource } from '../../route-table.js';
import { XML_TYPE, type RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { answerDnsType, API_VERSION_HEADER, DNS_API_VERSION, DNS_PRODUCES } from './dns-media.js';

/** Where the API lives; the version is part of the path (spec 9). */
export const DNS_PREFIX = '/dns/v1.0';
const READ_RULES: RouteRules = { access: 'read', produces: DNS_PRODUCES };

type Query = Record<string, unknown>;

function tenantOf(request: FastifyRequest): string {
  return (request.params as { tenant: string }).tenant;
}

function domainIdOf(request: FastifyRequest): number {
  const text = (request.params as { domainId: string }).domainId;
  // Ids are positive integers; anything else names no domain (404, as an unknown id does).
  return /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
}

/** A href builder for a collection at `path` keeping `filter` parameters (e.g. name). */
function hrefs(context: ServerContext, request: FastifyRequest, path: string, filter: Record<string, string> = {}): (window: PageWindow) => string {
  const base = `${context.publicUrl()}${DNS_PREFIX}/${encodeURIComponent(tenantOf(request))}${path}`;
  return (window) => `${base}?${new URLSearchParams({ ...filter, limit: String(window.limit), offset: String(window.offset) }).toString()}`;
}

function linked<T>(page: Page<T>, hrefOf: (window: PageWindow) => string): LinkedPage<T> {
  return { page, links: pageLinks(page as Page<unknown>, hrefOf) };
}

function send(request: FastifyRequest, reply: FastifyReply, json: () => Record<string, unknown>, xml: () => string): FastifyReply {
  if (answerDnsType(request) === XML_TYPE) return reply.code(200).type(`${XML_TYPE}; charset=utf-8`).send(xml());
  return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(json()));
}

async function listDomains(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const query = request.query as Query;
  const window = parseWindow(query);
  const name = typeof query['name'] === 'string' && query['name'] !== '' ? query['name'] : undefined;
  const page = context.dns.domains(tenantOf(request), name, window);
  const result = linked(page, hrefs(context, request, '/domains', name !== undefined ? { name } : {}));
  return send(request, reply, () => domainsJson(result), () => domainsXml(result));
}

/** showRecords and showSubdomains are on unless set to false (the issue lists both lists as part of the domain). */
function shown(query: Query, name: string): boolean {
  const value = query[name];
  return typeof value !== 'string' || value.toLowerCase() !== 'false';
}

async function showDomain(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const query = request.query as Query;
  const window = parseWindow(query);
  const tenant = tenantOf(request);
  const id = domainIdOf(request);
  const domain = context.dns.domain(tenant, id);
  const records = shown(query, 'showRecords') ? linked(context.dns.records(tenant, id, window), hrefs(context, request, `/domains/${id}/records`)) : undefined;
  const subdomains = shown(query, 'showSubdomains')
    ? linked(context.dns.subdomains(tenant, id, window), hrefs(context, request, `/domains/${id}/subdomains`))
    : undefined;
  return send(request, reply, () => domainDetailJson(domain, records, subdomains), () => domainDetailXml(domain, records, subdomains));
}

async function listSubdomains(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const window = parseWindow(request.query as Query);
  const id = domainIdOf(request);
  const result: LinkedPage<Domain> = linked(context.dns.subdomains(tenantOf(request), id, window), hrefs(context, request, `/domains/${id}/subdomains`));
  return send(request, reply, () => domainsJson(result), () => domainsXml(result));
}

async function listRecords(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const window = parseWindow(request.query as Query);
  const id = domainIdOf(request);
  const result: LinkedPage<DnsRecord> = linked(context.dns.records(tenantOf(request), id, window), hrefs(context, request, `/domains/${id}/records`));
  return send(request, reply, () => recordsJson(result), () => recordsXml(result));
}

/** Registers the DNS routes in their own scope: X-API-VERSION on every response, DNS faults, DNS 404s. */
export function registerDnsRoutes(app: FastifyInstance, context: ServerContext): void {
  void app.register(
    async (scope) => {
      scope.addHook('onSend', async (_request, reply) => {
        void reply.header(API_VERSION_HEADER, DNS_API_VERSION);
      });
      // Inside the scope so that a 404 also carries X-API-VERSION; the body is the DNS fault (sendError by family).
      scope.setNotFoundHandler((request, reply) => sendNotFound(request, reply));
      const list = { GET: { rules: READ_RULES, handler: (request: FastifyRequest, reply: FastifyReply) => listDomains(context, request, reply) } };
      defineResource(scope, '/:tenant/domains', list);
      defineResource(scope, '/:tenant/domains/', list);
      defineResource(scope, '/:tenant/domains/:domainId', { GET: { rules: READ_RULES, handler: (request, reply) => showDomain(context, request, reply) } });
      defineResource(scope, '/:tenant/domains/:domainId/subdomains', {
        GET: { rules: READ_RULES, handler: (request, reply) => listSubdomains(context, request, reply) },
      });
      defineResource(scope, '/:tenant/domains/:domainId/records', {
        GET: { rules: READ_RULES, handler: (request, reply) => listRecords(context, request, reply) },
      });
    },
    { prefix: DNS_PREFIX },
  );
}
