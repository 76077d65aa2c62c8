// Owns the media types of the domain-listing API (JSON by default, XML on request) and its version header.
import type { FastifyRequest } from 'fastify';
import { answerType } from '../../content-negotiation.js';
import { JSON_TYPE, XML_TYPE } from '../../route-rules.js';

/** What DNS routes answer with; JSON is the default (spec 5.3). */
export const DNS_PRODUCES: readonly [string, ...string[]] = [JSON_TYPE, XML_TYPE];
/** The header every DNS response carries (spec 9). */
export const API_VERSION_HEADER = 'x-api-version';
/** This implementation's version of the domain-listing API v1.0. */
export const DNS_API_VERSION = '1.0.0';

/** JSON or XML, as the request's Accept prefers. */
export function answerDnsType(request: FastifyRequest): string {
  return answerType(request, DNS_PRODUCES);
}
