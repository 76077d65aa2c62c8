// Owns the domain-listing API's error bodies: unwrapped {message, code, details} in JSON, <faultName code> in XML.
import { XMLBuilder } from 'fast-xml-parser';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DNS_NS } from '../../../dns/dns-xml-view.js';
import { toErrorView, type ErrorView } from '../../error-view.js';
import { RETRY_AFTER_SECONDS } from '../../http-limits.js';
import { JSON_TYPE } from '../../route-rules.js';
import { answerDnsType, XML_TYPE } from './dns-media.js';

// Fault names per status from the reference's fault table; 403, 405 and 415 are not in it and
// take the names the identity API uses for them.
const FAULT_NAMES: Readonly<Record<number, string>> = {
  400: 'badRequest',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'itemNotFound',
  405: 'methodNotAllowed',
  409: 'itemAlreadyExists',
  413: 'overLimit',
  415: 'badMediaType',
  500: 'dnsFault',
  503: 'serviceUnavailable',
};

const builder = new XMLBuilder({ format: true, ignoreAttributes: false, attributeNamePrefix: '@_' });

/** The reference's fault name of an error view. */
export function dnsFaultName(view: ErrorView): string {
  return FAULT_NAMES[view.status] ?? 'dnsFault';
}

/** `{"message", "code": status, "details": <Strata code>}`: not wrapped, as the reference's DNS faults are not. */
export function dnsFaultJson(view: ErrorView): Record<string, unknown> {
  return { message: view.message, code: view.status, details: view.code };
}

/** `<badRequest xmlns=... code="400"><message>...</message><details>CODE</details></badRequest>`. */
export function dnsFaultXml(view: ErrorView): string {
  return builder.build({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8', '@_standalone': 'yes' },
    [dnsFaultName(view)]: { '@_xmlns': DNS_NS, '@_code': view.status, message: view.message, details: view.code },
  }) as string;
}

/** Sends any error of a DNS route in the format the request asked for; the status comes from the one kind→status map. */
export function sendDnsError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const view = toErrorView(error);
  if (view.unexpected) request.log.error({ txnId: request.id, method: request.method, url: request.url, err: error }, 'request failed unexpectedly');
  const allow = view.details['allow'];
  if (view.status === 405 && typeof allow === 'string') void reply.header('allow', allow);
  if (view.status === 503) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  if (answerDnsType(request) === XML_TYPE) return reply.code(view.status).type(`${XML_TYPE}; charset=utf-8`).send(dnsFaultXml(view));
  return reply.code(view.status).type(`${JSON_TYPE}; charset=utf-8`).send(JSON.stringify(dnsFaultJson(view)));
}
