// Owns writing JSON replies the one way every API does: UTF-8 JSON text with its media type.
import type { FastifyReply } from 'fastify';
import type { ErrorBody } from './api-errors.js';
import { JSON_TYPE } from './route-rules.js';

/** The Content-Type of every JSON reply. */
export const JSON_UTF8 = `${JSON_TYPE}; charset=utf-8`;

/**
 * Sends `body` as JSON with `status` (200 by default). Routes with a response schema return their
 * body instead, so fastify's compiled serializer writes it; this is for bodies of no fixed shape.
 */
export function sendJson(reply: FastifyReply, body: unknown, status = 200): FastifyReply {
  return reply.code(status).type(JSON_UTF8).send(JSON.stringify(body));
}

/** An error body in JSON, for an API's error shaper. */
export function jsonError(body: unknown): ErrorBody {
  return { type: JSON_UTF8, text: JSON.stringify(body) };
}
