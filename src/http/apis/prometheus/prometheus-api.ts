// Owns the Prometheus API under /prometheus: remote write 1.0 and remote read (SAMPLES) per tenant, snappy-compressed protobuf in and out, plain-text errors.
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StrataError } from '../../../core/errors.js';
import { statusOfKind } from '../../../core/error-status.js';
import { batchReport, writeProtocolBatch } from '../../../protocols/batch-write.js';
import { ReadBudget, readSeries } from '../../../protocols/remote-read.js';
import { decodeRemoteRead, encodeRemoteReadResponse, type ReadSeries } from '../../../wire/prom-read-codec.js';
import { ProtocolBatch } from '../../../wire/protocol-batch.js';
import type { ApiErrorShaper } from '../../api-errors.js';
import type { ApiPlugin } from '../../api-plugin.js';
import { basicChallenge } from '../../basic-auth.js';
import { BodyPool, pooledBodyParser } from '../../body-pool.js';
import { TENANT_PARAMS_SCHEMA } from '../../common-schemas.js';
import { httpError } from '../../http-errors.js';
import { defineResource } from '../../route-table.js';
import { JSON_TYPE, type RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { parameterError } from '../../validation-failure.js';
import { PROM_READ_BODY_BYTES_MAX, PROMETHEUS_ERROR_SCHEMA, READ_RESPONSE, WRITE_RESPONSE } from './prometheus-schemas.js';

/** The media type of both protocols' bodies. */
const PROTOBUF_TYPE = 'application/x-protobuf';
/** Plain text, for errors and partial-write reports. */
const TEXT_UTF8 = 'text/plain; charset=utf-8';
/** The `proto` parameters of Content-Type that name what Strata reads; remote write 2.0 names another and gets 415, so the sender falls back to 1.0. */
const READABLE_PROTOS: ReadonlySet<string> = new Set(['prometheus.WriteRequest', 'prometheus.ReadRequest']);
/** The ingest counters' format label. */
const FORMAT = 'prometheus';

/**
 * Token (X-Auth-Token or Authorization: Bearer) or basic credentials (username and API key), as
 * Prometheus' remote_write and remote_read configs send them. The answer's type is the protocol's,
 * whatever Accept says.
 */
const WRITE_RULES: RouteRules = { access: 'write', work: 'ingest', basicAuth: true, bearerAuth: true, produces: ['*/*'] };
const READ_RULES: RouteRules = { access: 'read', work: 'query', basicAuth: true, bearerAuth: true, produces: ['*/*'] };

/** Errors as plain text, `CODE: message`: Prometheus logs the body of a failed request as it is. */
const prometheusErrors: ApiErrorShaper = {
  body: (view) => ({ type: TEXT_UTF8, text: `${view.code}: ${view.message}\n` }),
  fromValidation: (failure) => parameterError(failure),
  decorate: (view, reply) => {
    if (view.status === 401) void reply.header('www-authenticate', basicChallenge());
  },
};

/** Why the request's headers do not announce a snappy-compressed protobuf body this API reads, or undefined. */
function contentProblem(request: FastifyRequest): StrataError | undefined {
  const encoding = (request.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding !== 'snappy') {
    const sent = encoding === '' ? 'none was sent' : `${encoding} was sent`;
    return httpError('HTTP_CONTENT_ENCODING_UNSUPPORTED', `Prometheus bodies are snappy-compressed protobuf: send Content-Encoding: snappy (${sent}).`, { encoding });
  }
  const proto = /;\s*proto\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
  if (proto !== undefined && !READABLE_PROTOS.has(proto)) {
    return httpError('HTTP_CONTENT_TYPE_UNSUPPORTED', `proto=${proto} is not read here: Strata reads remote write 1.0 (prometheus.WriteRequest) and remote read.`, { proto });
  }
  return undefined;
}

/** The pooled body parser, refusing before reading a body whose encoding or protocol version is not one this API reads. */
function snappyBodyParser(pool: BodyPool) {
  const read = pooledBodyParser(pool);
  return (request: FastifyRequest, payload: Readable, done: (error: Error | null, body?: Buffer) => void): void => {
    const problem = contentProblem(request);
    if (problem !== undefined) done(problem);
    else read(request, payload, done);
  };
}

/** The request's body, after the same header checks (a request without a body never reaches the parser). */
function snappyBody(request: FastifyRequest): Buffer {
  if (Buffer.isBuffer(request.body)) return request.body;
  if (request.headers['content-type'] === undefined) {
    throw httpError('HTTP_CONTENT_TYPE_UNSUPPORTED', `Send the body as ${PROTOBUF_TYPE} with Content-Encoding: snappy.`);
  }
  throw contentProblem(request) ?? new StrataError('PROTOCOL_BODY_MALFORMED', 'The request has no body.');
}

function tenantOf(request: FastifyRequest): string {
  return (request.params as { tenant: string }).tenant;
}

/**
 * Remote write: decodes into a batch for the URL's tenant and writes it. 204 when no point was
 * refused (skipped ones are not refusals); when some were, 400 with a plain-text report (counts,
 * first reasons): the points accepted are durable, and a 4xx tells Prometheus not to resend a
 * batch that would be refused again. A body that cannot be decoded writes nothing.
 */
async function write(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const body = snappyBody(request);
  return context.admission.run('ingest', async () => {
    const batch = new ProtocolBatch(tenantOf(request));
    context.remoteWriteDecoder.decode(body, batch);
    const accepted = await writeProtocolBatch(context.store, batch);
    context.metrics.pointsIngested.inc({ format: FORMAT }, accepted);
    if (batch.rejectedPoints > 0) context.metrics.pointsRejected.inc({ format: FORMAT }, batch.rejectedPoints);
    if (batch.skippedPoints > 0) context.metrics.pointsSkipped.inc({ format: FORMAT }, batch.skippedPoints);
    if (batch.rejectedPoints === 0) return reply.code(204).send();
    return reply.code(statusOfKind('invalid')).type(TEXT_UTF8).send(`${batchReport(batch, accepted).join('\n')}\n`);
  });
}

/** Remote read: each query runs in turn against one budget for the request; the answer is the SAMPLES form. */
async function read(context: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const body = snappyBody(request);
  return context.admission.run('query', async () => {
    const queries = decodeRemoteRead(body);
    const budget = new ReadBudget();
    const results: ReadSeries[][] = [];
    for (const query of queries) results.push(await readSeries(context.store, tenantOf(request), query, budget));
    const answer = encodeRemoteReadResponse(results);
    return reply.code(200).type(PROTOBUF_TYPE).header('content-encoding', 'snappy').send(Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength));
  });
}

/**
 * The Prometheus API. Its scope reads only snappy-compressed protobuf bodies (into pooled
 * buffers, given back once the response is sent); the wire room decodes them, the protocols room
 * writes and reads the store.
 */
export const prometheusApi: ApiPlugin = {
  name: 'prometheus',
  prefix: '/prometheus',
  errorSchema: PROMETHEUS_ERROR_SCHEMA,
  errors: prometheusErrors,
  register(scope: FastifyInstance, context: ServerContext): void {
    const bodies = new BodyPool();
    scope.removeContentTypeParser(JSON_TYPE);
    scope.addContentTypeParser(PROTOBUF_TYPE, snappyBodyParser(bodies));
    scope.addHook('onResponse', async (request) => bodies.give(request.body));
    defineResource(scope, '/:tenant/api/v1/write', {
      POST: {
        rules: WRITE_RULES,
        bodyLimit: context.config.bodyLimitBytes,
        schema: {
          summary: "Prometheus remote write 1.0 into the URL's tenant (snappy-compressed WriteRequest)",
          params: TENANT_PARAMS_SCHEMA,
          response: WRITE_RESPONSE,
        },
        handler: (request, reply) => write(context, request, reply),
      },
    });
    defineResource(scope, '/:tenant/api/v1/read', {
      POST: {
        rules: READ_RULES,
        bodyLimit: PROM_READ_BODY_BYTES_MAX,
        schema: {
          summary: "Prometheus remote read of the URL's tenant (snappy-compressed ReadRequest; raw points, then rollup averages past the FULL retention)",
          params: TENANT_PARAMS_SCHEMA,
          response: READ_RESPONSE,
        },
        handler: (request, reply) => read(context, request, reply),
      },
    });
  },
};
