// Owns the domain-listing API under /dns/v1.0/{tenant}: domains, one domain, its subdomains and records, paged, in JSON or XML.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StrataError } from '../../../core/errors.js';
import { pageLinks, parseWindow, type DnsQuery } from '../../../dns/dns-paging.js';
import { domainDetailJson, domainsJson, recordsJson, type LinkedPage } from '../../../dns/dns-json-view.js';
import type { DnsRecord, Domain, Page, PageWindow } from '../../../dns/dns-types.js';
import { domainDetailXml, domainsXml, recordsXml } from '../../../dns/dns-xml-view.js';
import type { ApiErrorShaper } from '../../api-errors.js';
import type { ApiPlugin } from '../../api-plugin.js';
import { DNS_ERROR_SCHEMA } from '../../error-schemas.js';
import { jsonError, JSON_UTF8 } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import { XML_TYPE, type RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { dnsFaultJson, dnsFaultXml } from './dns-fault.js';
import { answerDnsType, API_VERSION_HEADER, DNS_API_VERSION, DNS_PRODUCES } from './dns-media.js';
import { TENANT_PARAMS_SCHEMA } from '../../common-schemas.js';
import { DETAIL_QUERY_SCHEMA, DOMAIN_PARAMS_SCHEMA, LIST_QUERY_SCHEMA } from './dns-schemas.js';

/** Where the API lives; the version is part of the path (spec 9). */
const DNS_PREFIX = '/dns/v1.0';
const READ_RULES: RouteRules = { access: 'read', produces: DNS_PRODUCES };

/** DNS faults, unwrapped in JSON and named elements in XML; a bad limit or offset keeps its own code (spec 7 rule 4). */
const dnsErrors: ApiErrorShaper = {
  body: (view, request) =>
    answerDnsType(request) === XML_TYPE ? { type: `${XML_TYPE}; charset=utf-8`, text: dnsFaultXml(view) } : jsonError(dnsFaultJson(view)),
  fromValidation: (failure) => {
    const code = failure.field === 'offset' ? 'DNS_OFFSET_INVALID' : failure.field === 'limit' ? 'DNS_LIMIT_INVALID' : 'HTTP_REQUEST_INVALID';
    return new StrataError(code, `${failure.field || 'the query string'} ${failure.problem}.`, { parameter: failure.field, problem: failure.problem });
  },
};

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
  return reply.code(200).type(JSON_UTF8).send(JSON.stringify(json()));
}

async function listDomains(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const query = request.query as DnsQuery;
  const window = parseWindow(query);
  const name = query['name'] !== undefined && query['name'] !== '' ? query['name'] : undefined;
  const page = context.dns.domains(tenantOf(request), name, window);
  const result = linked(page, hrefs(context, request, '/domains', name !== undefined ? { name } : {}));
  return send(request, reply, () => domainsJson(result), () => domainsXml(result));
}

/** showRecords and showSubdomains are on unless set to false (the issue lists both lists as part of the domain). */
function shown(query: DnsQuery, name: string): boolean {
  return query[name]?.toLowerCase() !== 'false';
}

async function showDomain(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const query = request.query as DnsQuery;
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
  const window = parseWindow(request.query as DnsQuery);
  const id = domainIdOf(request);
  const result: LinkedPage<Domain> = linked(context.dns.subdomains(tenantOf(request), id, window), hrefs(context, request, `/domains/${id}/subdomains`));
  return send(request, reply, () => domainsJson(result), () => domainsXml(result));
}

async function listRecords(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const window = parseWindow(request.query as DnsQuery);
  const id = domainIdOf(request);
  const result: LinkedPage<DnsRecord> = linked(context.dns.records(tenantOf(request), id, window), hrefs(context, request, `/domains/${id}/records`));
  return send(request, reply, () => recordsJson(result), () => recordsXml(result));
}

/** The domain-listing API (spec 4 and 8): X-API-VERSION on every response, its own faults and 404s. */
export const dnsApi: ApiPlugin = {
  name: 'dns',
  prefix: DNS_PREFIX,
  errorSchema: DNS_ERROR_SCHEMA,
  errors: dnsErrors,
  register(scope: FastifyInstance, context: ServerContext): void {
    // Every answer of the scope, errors and 404s included, carries the version header.
    scope.addHook('onSend', async (_request, reply) => {
      void reply.header(API_VERSION_HEADER, DNS_API_VERSION);
    });
    const list = {
      GET: {
        rules: READ_RULES,
        schema: { summary: 'List domains, optionally by name', params: TENANT_PARAMS_SCHEMA, querystring: LIST_QUERY_SCHEMA },
        handler: (request: FastifyRequest, reply: FastifyReply) => listDomains(context, request, reply),
      },
    };
    defineResource(scope, '/:tenant/domains', list);
    defineResource(scope, '/:tenant/domains/', list);
    defineResource(scope, '/:tenant/domains/:domainId', {
      GET: {
        rules: READ_RULES,
        schema: { summary: 'One domain with its records and subdomains (paged)', params: DOMAIN_PARAMS_SCHEMA, querystring: DETAIL_QUERY_SCHEMA },
        handler: (request, reply) => showDomain(context, request, reply),
      },
    });
    defineResource(scope, '/:tenant/domains/:domainId/subdomains', {
      GET: {
        rules: READ_RULES,
        schema: { summary: "A domain's subdomains", params: DOMAIN_PARAMS_SCHEMA, querystring: LIST_QUERY_SCHEMA },
        handler: (request, reply) => listSubdomains(context, request, reply),
      },
    });
    defineResource(scope, '/:tenant/domains/:domainId/records', {
      GET: {
        rules: READ_RULES,
        schema: { summary: "A domain's records", params: DOMAIN_PARAMS_SCHEMA, querystring: LIST_QUERY_SCHEMA },
        handler: (request, reply) => listRecords(context, request, reply),
      },
    });
  },
};
