// Owns the OTLP/HTTP API's media: the body encodings by Content-Type, gzip bodies, the gRPC code of each error kind, and the documented shapes.
import { gunzip } from 'node:zlib';
import type { FastifyRequest } from 'fastify';
import { StrataError, type ErrorKind } from '../../../core/errors.js';
import type { OtlpEncoding } from '../../../wire/otlp-decoder.js';
import { PROTOCOL_DECODED_BYTES_MAX } from '../../../wire/protocol-limits.js';
import { essence } from '../../content-negotiation.js';
import { httpError } from '../../http-errors.js';
import { JSON_TYPE } from '../../route-rules.js';

/** Binary protobuf bodies. */
export const PROTOBUF_TYPE = 'application/x-protobuf';

/** The media type of each encoding, for the answer (OTLP answers in the encoding of the request). */
export const MEDIA_OF_ENCODING: Readonly<Record<OtlpEncoding, string>> = { protobuf: PROTOBUF_TYPE, json: JSON_TYPE };

/**
 * The encoding of a request's body by its Content-Type: protobuf for application/x-protobuf, JSON
 * otherwise. Only those two types reach a handler (others get 415 from the body parser); for the
 * error body of such a refusal JSON is chosen, being readable.
 */
export function encodingOf(request: FastifyRequest): OtlpEncoding {
  return essence(request.headers['content-type'] ?? '') === PROTOBUF_TYPE ? 'protobuf' : 'json';
}

/** The Content-Encodings a body may have: gzip, or none (identity). */
export function compressionProblem(request: FastifyRequest): StrataError | undefined {
  const encoding = (request.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity' || encoding === 'gzip') return undefined;
  return httpError('HTTP_CONTENT_ENCODING_UNSUPPORTED', `Content-Encoding ${encoding} is not read here; send gzip or no encoding.`, { encoding });
}

/** Gunzips without blocking the event loop, at most PROTOCOL_DECODED_BYTES_MAX bytes out. */
function gunzipBounded(body: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => gunzip(body, { maxOutputLength: PROTOCOL_DECODED_BYTES_MAX }, (error, out) => (error === null ? resolve(out) : reject(error))));
}

/**
 * The request's body, decompressed when it is gzipped: PROTOCOL_BODY_TOO_LARGE when it would
 * exceed PROTOCOL_DECODED_BYTES_MAX, PROTOCOL_BODY_MALFORMED when it is not valid gzip.
 */
export async function decompressedBody(request: FastifyRequest, body: Buffer): Promise<Buffer> {
  if ((request.headers['content-encoding'] ?? '').trim().toLowerCase() !== 'gzip') return body;
  try {
    return await gunzipBounded(body);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new StrataError('PROTOCOL_BODY_TOO_LARGE', `The gzip body decompresses to more than ${PROTOCOL_DECODED_BYTES_MAX} bytes.`, { limitBytes: PROTOCOL_DECODED_BYTES_MAX });
    }
    throw new StrataError('PROTOCOL_BODY_MALFORMED', `The gzip body cannot be decompressed: ${(error as Error).message}.`);
  }
}

/** The gRPC status code (google.rpc.Code) an error of each kind carries in its Status body. */
export const GRPC_CODE_OF_KIND: Readonly<Record<ErrorKind, number>> = {
  invalid: 3, // INVALID_ARGUMENT
  unauthenticated: 16, // UNAUTHENTICATED
  forbidden: 7, // PERMISSION_DENIED
  not_found: 5, // NOT_FOUND
  method_not_allowed: 12, // UNIMPLEMENTED
  conflict: 6, // ALREADY_EXISTS
  over_limit: 8, // RESOURCE_EXHAUSTED
  rate_limited: 8, // RESOURCE_EXHAUSTED
  unsupported_media: 3, // INVALID_ARGUMENT
  internal: 13, // INTERNAL
  unavailable: 14, // UNAVAILABLE
};

/** The error body: a google.rpc.Status in the request's encoding (shown here in its JSON form). */
export const OTLP_ERROR_SCHEMA = {
  type: 'object',
  description: 'A google.rpc.Status in the encoding of the request (protobuf or JSON): code is the gRPC status code, message is `CODE: message` with the Strata error code.',
  required: ['code', 'message'],
  properties: { code: { type: 'integer', description: 'gRPC status code (3 invalid argument, 8 resource exhausted, 14 unavailable, ...).' }, message: { type: 'string' } },
} as const;

/** POST /{tenant}/v1/metrics answers. */
export const EXPORT_RESPONSE = {
  200: {
    description: 'An ExportMetricsServiceResponse in the encoding of the request; partialSuccess counts the rejected points and gives the first reasons when some were.',
    type: 'object',
    properties: {
      partialSuccess: { type: 'object', properties: { rejectedDataPoints: { type: 'string' }, errorMessage: { type: 'string' } } },
    },
  },
} as const;
