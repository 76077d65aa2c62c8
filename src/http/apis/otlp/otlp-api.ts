// Owns the OTLP/HTTP metrics API under /otlp: /{tenant}/v1/metrics, protobuf or JSON, gzip or not, answered with ExportMetricsServiceResponse or google.rpc.Status.
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { batchReport, writeProtocolBatch } from '../../../protocols/batch-write.js';
import { otlpExportResponse, otlpStatusBody } from '../../../wire/otlp-response.js';
import { ProtocolBatch } from '../../../wire/protocol-batch.js';
import type { ApiErrorShaper } from '../../api-errors.js';
import type { ApiPlugin } from '../../api-plugin.js';
import { basicChallenge } from '../../basic-auth.js';
import { BodyPool, pooledBodyParser } from '../../body-pool.js';
import { TENANT_PARAMS_SCHEMA } from '../../common-schemas.js';
import { defineResource } from '../../route-table.js';
import { JSON_TYPE, type RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { parameterError } from '../../validation-failure.js';
import {
  compressionProblem,
  decompressedBody,
  encodingOf,
  EXPORT_RESPONSE,
  GRPC_CODE_OF_KIND,
  MEDIA_OF_ENCODING,
  OTLP_ERROR_SCHEMA,
  PROTOBUF_TYPE,
} from './otlp-media.js';

/** The ingest counters' format label. */
const FORMAT = 'otlp';

/** A token in X-Auth-Token or Authorization: Bearer (exporters send configured headers), or basic credentials. */
const EXPORT_RULES: RouteRules = { access: 'write', work: 'ingest', basicAuth: true, bearerAuth: true, produces: ['*/*'] };

/** Bytes for a reply: a view of the encoder's output, not a copy. */
function bytes(body: Uint8Array): Buffer {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** Errors as a google.rpc.Status in the request's encoding, with the HTTP status of the error's kind (the one map). */
const otlpErrors: ApiErrorShaper = {
  body: (view, request) => {
    const encoding = encodingOf(request);
    return { type: MEDIA_OF_ENCODING[encoding], text: bytes(otlpStatusBody(encoding, GRPC_CODE_OF_KIND[view.kind], `${view.code}: ${view.message}`)) };
  },
  fromValidation: (failure) => parameterError(failure),
  decorate: (view, reply) => {
    if (view.status === 401) void reply.header('www-authenticate', basicChallenge());
  },
};

/** The pooled body parser, refusing before reading a body whose Content-Encoding is not gzip or none. */
function otlpBodyParser(pool: BodyPool) {
  const read = pooledBodyParser(pool);
  return (request: FastifyRequest, payload: Readable, done: (error: Error | null, body?: Buffer) => void): void => {
    const problem = compressionProblem(request);
    if (problem !== undefined) done(problem);
    else read(request, payload, done);
  };
}

/**
 * One export: the body (gunzipped when it says so, asynchronously) is decoded into a batch for the
 * URL's tenant and written. 200 with an ExportMetricsServiceResponse in the request's encoding;
 * when points were refused (by the decoder or the store) its partial_success counts them and
 * lists the first reasons, and the accepted ones are durable. A body that cannot be decoded
 * writes nothing and answers a Status.
 */
async function exportMetrics(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const encoding = encodingOf(request);
  const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  return context.admission.run('ingest', async () => {
    const body = await decompressedBody(request, raw);
    const batch = new ProtocolBatch((request.params as { tenant: string }).tenant);
    context.otlpDecoder.decode(body, encoding, batch);
    const accepted = await writeProtocolBatch(context.store, batch);
    context.metrics.pointsIngested.inc({ format: FORMAT }, accepted);
    if (batch.rejectedPoints > 0) context.metrics.pointsRejected.inc({ format: FORMAT }, batch.rejectedPoints);
    if (batch.skippedPoints > 0) context.metrics.pointsSkipped.inc({ format: FORMAT }, batch.skippedPoints);
    const message = batch.rejectedPoints > 0 ? batchReport(batch, accepted).join('; ') : '';
    return reply.code(200).type(MEDIA_OF_ENCODING[encoding]).send(bytes(otlpExportResponse(encoding, batch.rejectedPoints, message)));
  });
}

/**
 * The OTLP/HTTP metrics API (the path an exporter's `endpoint` + `/v1/metrics` reaches). Its scope
 * reads protobuf and JSON bodies into pooled buffers; the wire room decodes them.
 */
export const otlpApi: ApiPlugin = {
  name: 'otlp',
  prefix: '/otlp',
  errorSchema: OTLP_ERROR_SCHEMA,
  errors: otlpErrors,
  register(scope: FastifyInstance, context: ServerContext): void {
    const bodies = new BodyPool();
    scope.removeContentTypeParser(JSON_TYPE);
    scope.addContentTypeParser([PROTOBUF_TYPE, JSON_TYPE], otlpBodyParser(bodies));
    scope.addHook('onResponse', async (request) => bodies.give(request.body));
    defineResource(scope, '/:tenant/v1/metrics', {
      POST: {
        rules: EXPORT_RULES,
        bodyLimit: context.config.bodyLimitBytes,
        schema: {
          summary: "OTLP/HTTP metrics export into the URL's tenant (ExportMetricsServiceRequest, protobuf or JSON, gzip allowed)",
          params: TENANT_PARAMS_SCHEMA,
          response: EXPORT_RESPONSE,
        },
        handler: (request, reply) => exportMetrics(context, request, reply),
      },
    });
  },
};
