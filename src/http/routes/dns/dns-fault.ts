// Owns the domain-listing API's error bodies: unwrapped {message, code, details} in JSON, <faultName code> in XML.
import { XMLBuilder } from 'fast-xml-parser';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DNS_NS } from '../../../dns/dns-xml-view.js';
import { toErrorView, type ErrorView } from '../../error-view.js';
import { faultName } from '../../fault-names.js';
import { RETRY_AFTER_SECONDS } from '../../http-limits.js';
import { JSON_TYPE, XML_TYPE } from '../../route-rules.js';
import { answerDnsType } from './dns-media.js';

/** The DNS API's own fault names; the rest are shared (fault-names.ts), 500 and unknowns are dnsFault. */
const DNS_FAULT_NAMES: Readonly<Record<number, string>> = { 409: 'itemAlreadyExists' };

const builder = new XMLBuilder({ format: true, ignoreAttributes: false, attributeNamePrefix: '@_' });

/** The reference's fault name of an error view. */
export function dnsFaultName(view: ErrorView): string {
  return faultName(view.status, DNS_FAULT_NAMES, 'dnsFault');
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
