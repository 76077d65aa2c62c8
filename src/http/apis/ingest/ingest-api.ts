// Owns the metrics ingestion API (cloudMetricsIngest) under /ingest/v2.0: /{tenant}/ingest and /{tenant}/ingest/multi, JSON or msgpack.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StrataError } from '../../../core/errors.js';
import { storeRejectionEntries } from '../../../wire/ingest-body.js';
import { ingestFormatOf } from '../../../wire/ingest-format.js';
import type { IngestErrorEntry, IngestFormat, IngestScope } from '../../../wire/ingest-mapping.js';
import type { ApiErrorShaper } from '../../api-errors.js';
import type { ApiPlugin } from '../../api-plugin.js';
import { INGEST_ERROR_SCHEMA } from '../../error-schemas.js';
import { BodyPool, pooledBodyParser } from '../../body-pool.js';
import { jsonError, sendJson } from '../../json-reply.js';
import { defineResource } from '../../route-table.js';
import { JSON_TYPE, MSGPACK_TYPE, type RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import { requestValidators } from '../../schema-compilers.js';
import { parameterError } from '../../validation-failure.js';
import { TENANT_PARAMS_SCHEMA } from '../../common-schemas.js';
import { ingestFaultBody } from './ingest-fault.js';
import { INGEST_BODY_SCHEMA, INGEST_MULTI_BODY_SCHEMA, PARTIAL_RESPONSE } from './ingest-schemas.js';

const INGEST_RULES: RouteRules = { access: 'write', produces: [JSON_TYPE, MSGPACK_TYPE], work: 'ingest' };

/** The metrics shape with Blueflood's `errors` list, one entry per rejected point (or one for the whole request). */
const ingestErrors: ApiErrorShaper = {
  body: (view, request) => {
    const tenant = (request.params as { tenant?: unknown } | undefined)?.tenant;
    return jsonError(ingestFaultBody(view, request.id, typeof tenant === 'string' ? tenant : ''));
  },
  fromValidation: (failure) => parameterError(failure),
};

function byIndex(a: IngestErrorEntry, b: IngestErrorEntry): number {
  return (a.index ?? -1) - (b.index ?? -1);
}

async function ingest(context: ServerContext, request: FastifyRequest, reply: FastifyReply, multi: boolean): Promise<FastifyReply> {
  const tenant = (request.params as { tenant: string }).tenant;
  const format: IngestFormat = ingestFormatOf(request.headers['content-type']);
  // Decoding runs inside the admission slot: a refused request costs no parsing.
  return context.admission.run('ingest', async () => {
    const scope: IngestScope = multi ? { multi: true, ownTenant: tenant, anyTenant: context.config.multiTenantIngest } : { multi: false, tenant };
    const mapping = context.decoder.decode(request.body, format, scope);
    let errors = mapping.errors;
    let accepted = 0;
    try {
      if (mapping.columns.length > 0) {
        // The store resolves once every accepted point is durable, so any 2xx below is a promise kept.
        const result = await context.store.writeColumns(mapping.columns);
        accepted = result.accepted;
        if (result.rejected.length > 0) errors = [...errors, ...storeRejectionEntries(result.rejected, mapping)].sort(byIndex);
      } else if (errors.length === 0) {
        throw new StrataError('INGEST_BATCH_EMPTY', 'No valid metrics: the batch holds no metric with a value.');
      }
    } finally {
      context.decoder.release(mapping);
    }
    context.metrics.pointsIngested.inc({ format }, accepted);
    if (errors.length > 0) context.metrics.pointsRejected.inc({ format }, errors.length);
    if (errors.length === 0) return reply.code(200).send();
    if (accepted > 0) return sendJson(reply, { accepted, rejected: errors.length, errors }, 207);
    throw new StrataError('INGEST_POINTS_REJECTED', `No valid metrics: all ${errors.length} metrics were rejected.`, { errors });
  });
}

/**
 * The ingestion API. Its scope alone reads raw bodies: JSON and msgpack go into pooled buffers,
 * given back once the response is sent, and the wire room's decoders turn them into point
 * columns (their body schemas document the shape; decoding checks it, per metric).
 */
export const ingestApi: ApiPlugin = {
  name: 'ingest',
  prefix: '/ingest/v2.0',
  errorSchema: INGEST_ERROR_SCHEMA,
  errors: ingestErrors,
  register(scope: FastifyInstance, context: ServerContext): void {
    const bodyLimit = context.config.bodyLimitBytes;
    const bodies = new BodyPool();
    scope.setValidatorCompiler(requestValidators({ bodies: 'documented' }));
    scope.removeContentTypeParser(JSON_TYPE);
    scope.addContentTypeParser([JSON_TYPE, MSGPACK_TYPE], pooledBodyParser(bodies));
    scope.addHook('onResponse', async (request) => bodies.give(request.body));
    defineResource(scope, '/:tenant/ingest', {
      POST: {
        rules: INGEST_RULES,
        bodyLimit,
        schema: { summary: "Write points to the URL's tenant", params: TENANT_PARAMS_SCHEMA, ...INGEST_BODY_SCHEMA, response: PARTIAL_RESPONSE },
        handler: (request, reply) => ingest(context, request, reply, false),
      },
    });
    defineResource(scope, '/:tenant/ingest/multi', {
      POST: {
        rules: INGEST_RULES,
        bodyLimit,
        schema: { summary: 'Write points of several tenants (tenantId per metric; admins)', params: TENANT_PARAMS_SCHEMA, ...INGEST_MULTI_BODY_SCHEMA, response: PARTIAL_RESPONSE },
        handler: (request, reply) => ingest(context, request, reply, true),
      },
    });
  },
};
