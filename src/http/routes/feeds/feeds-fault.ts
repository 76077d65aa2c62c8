// Owns the event-feed API's error body: {"error": {"code", "message"}} in JSON, <error> in XML.
import { XMLBuilder } from 'fast-xml-parser';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { basicChallenge } from '../../basic-auth.js';
import { toErrorView, type ErrorView } from '../../error-view.js';
import { RETRY_AFTER_SECONDS } from '../../http-limits.js';
import { JSON_TYPE } from '../../route-rules.js';
import { answerType, FEED_PRODUCES, isJsonType } from './feeds-media.js';

/** Namespace of the XML error body (the Atom server family the reference runs on writes its errors in it). */
const ERROR_NS = 'http://abdera.apache.org';

const builder = new XMLBuilder({ format: true, ignoreAttributes: false, attributeNamePrefix: '@_' });

/** `{"error": {"code": "401", "message": ..., "details": {"code": <Strata code>}}}`: the status as a string, as the reference writes it. */
export function feedsFaultJson(view: ErrorView): Record<string, unknown> {
  return { error: { code: String(view.status), message: view.message, details: { code: view.code, ...view.details } } };
}

/** `<error xmlns=...><code>401</code><message>...</message><details>CODE</details></error>`. */
export function feedsFaultXml(view: ErrorView): string {
  return builder.build({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    error: { '@_xmlns': ERROR_NS, code: view.status, message: view.message, details: view.code },
  }) as string;
}

/**
 * Sends any error of a feeds route: the one kind→status map decides the status (via the error
 * view); a 401 carries the Basic challenge, since these routes accept basic credentials.
 */
export function sendFeedsError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const view = toErrorView(error);
  if (view.unexpected) request.log.error({ txnId: request.id, method: request.method, url: request.url, err: error }, 'request failed unexpectedly');
  const allow = view.details['allow'];
  if (view.status === 405 && typeof allow === 'string') void reply.header('allow', allow);
  if (view.status === 503) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  if (view.status === 401) void reply.header('www-authenticate', basicChallenge());
  const type = answerType(request, FEED_PRODUCES);
  if (isJsonType(type)) return reply.code(view.status).type(`${JSON_TYPE}; charset=utf-8`).send(JSON.stringify(feedsFaultJson(view)));
  return reply.code(view.status).type('application/xml; charset=utf-8').send(feedsFaultXml(view));
}
