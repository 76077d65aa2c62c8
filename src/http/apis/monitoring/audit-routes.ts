// Owns GET /audits and recording every request of the monitoring API that may change something (its onResponse hook).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditRow } from '../../../monitoring/audits/audit-record.js';
import type { MonitoringService } from '../../../monitoring/monitoring-service.js';
import { sha256 } from '../../../identity/secrets.js';
import { defineResource } from '../../route-table.js';
import { principalOf, rulesOf, tokenOf } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { READ_RULES } from './crud-routes.js';
import { LIST_RESPONSE, MONITORING_PREFIX, PAGE_QUERY_PROPERTIES, pageRequest, sendList, tenantOf } from './monitoring-http.js';
import { pathParams } from './monitoring-params.js';

/** Methods that change nothing: their requests are not audited. */
const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The status of a request the rate limits refused: it reached no handler, and auditing it would let a client past its limit keep writing records. */
const RATE_LIMITED_STATUS = 429;
/** Hex digits of a token's SHA-256 shown as its id: 64 bits name a token without revealing it. */
const TOKEN_ID_HEX = 16;

/** GET /audits' query string: the window (integer ms) and paging. */
const AUDIT_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    ...PAGE_QUERY_PROPERTIES,
    from: { type: 'integer', description: 'Window start, integer ms since 1970 (default: 7 days before to).' },
    to: { type: 'integer', description: 'Window end, integer ms since 1970, exclusive (default: just after now).' },
  },
} as const;

/**
 * The id of the token a request used: the first TOKEN_ID_HEX hex digits of its SHA-256 (the form
 * the identity file stores tokens in), never the token; null without a token. A client finds its
 * own requests by hashing its token the same way.
 */
export function tokenIdOf(token: string | undefined): string | null {
  return token === undefined ? null : sha256(token).toString('hex').slice(0, TOKEN_ID_HEX);
}

/** The first path segment after the tenant (`/monitoring/v1.0/t1/entities/en1` → `entities`), as the reference's `app`. */
export function appOf(path: string): string {
  const rest = path.startsWith(`${MONITORING_PREFIX}/`) ? path.slice(MONITORING_PREFIX.length + 1) : path.replace(/^\/+/, '');
  return rest.split('/')[1] ?? '';
}

function parsed(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

/** One audit record as GET /audits shows it: the reference's keys (mixed spelling as it has them) plus user and token_id. */
function auditView(tenant: string): (row: AuditRow) => Record<string, unknown> {
  return (row) => ({
    id: row.id,
    timestamp: row.timestampMs,
    url: row.path,
    method: row.method,
    app: appOf(row.path),
    query: parsed(row.query),
    txnId: row.requestId,
    payload: row.body,
    account_id: tenant,
    who: row.who,
    why: row.why,
    statusCode: row.status,
    headers: parsed(row.headers),
    user: row.user,
    token_id: row.tokenId,
  });
}

/**
 * True when a request may have changed something: a method other than GET, HEAD and OPTIONS, on a
 * route that does not only read. Routes whose rules are `access: 'read'` change nothing whatever
 * their method (an alarm example fill is a POST), so an observer may call them; every other route
 * is recorded, tests included: tests of checks and notifications send data out.
 */
export function mayChange(method: string, access: string): boolean {
  return !READ_METHODS.has(method) && access !== 'read';
}

/** Records an answered request when it may have changed something and its principal belongs to the URL's tenant; a failing write is logged, never answered. */
function recordAudit(monitoring: MonitoringService, request: FastifyRequest, status: number): void {
  if (!mayChange(request.method, rulesOf(request).access) || status === RATE_LIMITED_STATUS) return;
  const principal = principalOf(request);
  const tenant = (request.params as { tenant?: unknown } | undefined)?.tenant;
  // Requests that did not authenticate for this tenant are not its changes (and anyone could send them).
  if (principal === undefined || typeof tenant !== 'string' || tenant !== principal.user.tenant) return;
  const path = request.url.split('?')[0] ?? '';
  try {
    monitoring.audits.record(tenant, {
      method: request.method,
      url: request.url,
      app: appOf(path),
      status,
      user: principal.user.username,
      tokenId: tokenIdOf(tokenOf(request)),
      requestId: request.id,
      headers: request.headers,
      body: request.body,
    });
  } catch (error) {
    request.log.error({ txnId: request.id, err: error }, 'the audit record of a request could not be written');
  }
}

/** Registers the audit trail (an onResponse hook over the monitoring scope) and GET /audits. */
export function registerAuditRoutes(app: FastifyInstance, context: ServerContext, monitoring: MonitoringService): void {
  app.addHook('onResponse', async (request, reply) => recordAudit(monitoring, request, reply.statusCode));
  defineResource(app, '/:tenant/audits', {
    GET: {
      rules: READ_RULES,
      schema: { summary: 'Changing requests made through the monitoring API, as a time series (kept 30 days by default)', params: pathParams(), querystring: AUDIT_QUERY_SCHEMA, response: LIST_RESPONSE },
      handler: async (request, reply) => {
        const { from, to } = request.query as { from?: number; to?: number };
        const page = pageRequest(request);
        const tenant = tenantOf(request);
        // The window is resolved once: this page and the next link use the same one, even when `to` defaulted to now.
        const window = monitoring.audits.window({ ...(from !== undefined ? { fromMs: from } : {}), ...(to !== undefined ? { toMs: to } : {}) });
        const found = monitoring.audits.list(tenant, { ...page, ...window });
        return sendList(context, request, reply, found, page, auditView(tenant), { from: String(window.fromMs), to: String(window.toMs) });
      },
    },
  });
}
