// Owns sending an error for every API: view, family shape and media type, Allow, Retry-After and Basic challenge headers, the one log line of a 500.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { familyOf } from './api-family.js';
import { toErrorView, type ErrorView } from './error-view.js';
import { httpError } from './http-errors.js';
import { RETRY_AFTER_SECONDS } from './http-limits.js';
import { identityFaultBody } from './routes/identity/identity-fault.js';
import { ingestFaultBody } from './routes/ingest/ingest-fault.js';
import { metricsFaultBody } from './routes/metrics/metrics-fault.js';
import { dnsFaultJson, dnsFaultXml } from './routes/dns/dns-fault.js';
import { answerDnsType } from './routes/dns/dns-media.js';
import { feedsFaultJson, feedsFaultXml } from './routes/feeds/feeds-fault.js';
import { answerType, FEED_PRODUCES, isJsonType } from './routes/feeds/feeds-media.js';
import { JSON_TYPE, XML_TYPE } from './route-rules.js';
import { basicChallenge } from './basic-auth.js';

/** An error as this request's API family writes it: the media type and the text of the body. */
function errorReply(request: FastifyRequest, view: ErrorView): { type: string; text: string } {
  const json = (body: Record<string, unknown>) => ({ type: `${JSON_TYPE}; charset=utf-8`, text: JSON.stringify(body) });
  const xml = (text: string) => ({ type: `${XML_TYPE}; charset=utf-8`, text });
  switch (familyOf(request.url)) {
    case 'identity':
      return json(identityFaultBody(view));
    case 'ingest': {
      const tenant = (request.params as { tenant?: unknown } | undefined)?.tenant;
      return json(ingestFaultBody(view, request.id, typeof tenant === 'string' ? tenant : ''));
    }
    case 'feeds':
      return isJsonType(answerType(request, FEED_PRODUCES)) ? json(feedsFaultJson(view)) : xml(feedsFaultXml(view));
    case 'dns':
      return answerDnsType(request) === XML_TYPE ? xml(dnsFaultXml(view)) : json(dnsFaultJson(view));
    case 'metrics':
      return json(metricsFaultBody(view, request.id));
  }
}

/**
 * Sends `error` as this request's family expects, for every API; a 500 logs one line with the
 * transaction id and the cause. A feeds 401 carries the Basic challenge (those routes accept basic
 * credentials).
 */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const view = toErrorView(error);
  if (view.unexpected) {
    // One line, with the cause's stack, for operators; the client sees only the transaction id.
    request.log.error({ txnId: request.id, method: request.method, url: request.url, err: error }, 'request failed unexpectedly');
  }
  const allow = view.details['allow'];
  if (view.status === 405 && typeof allow === 'string') void reply.header('allow', allow);
  if (view.status === 503) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  const { type, text } = errorReply(request, view);
  if (view.status === 401 && familyOf(request.url) === 'feeds') void reply.header('www-authenticate', basicChallenge());
  return reply.code(view.status).type(type).send(text);
}

/** The not-found handler: a 404 in the family's shape. */
export function sendNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(request, reply, httpError('HTTP_ROUTE_NOT_FOUND', `No resource at ${request.method} ${request.url.split('?')[0] ?? ''}.`));
}
