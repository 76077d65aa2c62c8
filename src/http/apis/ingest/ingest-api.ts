// Owns the metrics ingestion API (cloudMetricsIngest): /ingest/v2.0/{tenant}/ingest and /ingest/multi.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StrataError } from '../../../core/errors.js';
import { BodyPool, pooledBodyParser } from '../../body-pool.js';
import { essence } from '../../content-negotiation.js';
import { defineResource } from '../../route-table.js';
import { JSON_TYPE, MSGPACK_TYPE, type RouteRules } from '../../route-rules.js';
import type { ServerContext } from '../../server-context.js';
import type { IngestErrorEntry } from './ingest-fault.js';
import { storeRejectionEntries, type IngestScope } from './ingest-body.js';

const INGEST_RULES: RouteRules = { access: 'write', bodyTypes: [JSON_TYPE, MSGPACK_TYPE], produces: [JSON_TYPE, MSGPACK_TYPE], work: 'ingest' };

function byIndex(a: IngestErrorEntry, b: IngestErrorEntry): number {
  return (a.index ?? -1) - (b.index ?? -1);
}

async function ingest(context: ServerContext, request: FastifyRequest, reply: FastifyReply, multi: boolean): Promise<FastifyReply> {
  const tenant = (request.params as { tenant: string }).tenant;
  const mediaType = essence(request.headers['content-type'] ?? JSON_TYPE);
  const format = mediaType === MSGPACK_TYPE ? 'msgpack' : 'json';
  // Decoding runs inside the admission slot: a refused request costs no parsing.
  return context.admission.run('ingest', async () => {
    const scope: IngestScope = multi ? { multi: true, ownTenant: tenant, anyTenant: context.config.multiTenantIngest } : { multi: false, tenant };
    const mapping = context.decoder.decode(request.body, mediaType, scope);
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
    if (accepted > 0) return reply.code(207).type('application/json; charset=utf-8').send(JSON.stringify({ accepted, rejected: errors.length, errors }));
    throw new StrataError('INGEST_POINTS_REJECTED', `No valid metrics: all ${errors.length} metrics were rejected.`, { errors });
  });
}

/**
 * Registers POST /ingest/v2.0/:tenant/ingest and /ingest/multi (admins; `tenantId` per metric) in
 * their own scope, where bodies are read into pooled buffers and given back once the response is
 * sent: the decoders copy what they keep (names, values), so nothing of a body outlives its request.
 */
export function registerIngestRoutes(app: FastifyInstance, context: ServerContext): void {
  const bodyLimit = context.config.bodyLimitBytes;
  const bodies = new BodyPool();
  void app.register(async (scope) => {
    scope.removeContentTypeParser([JSON_TYPE, MSGPACK_TYPE]);
    scope.addContentTypeParser([JSON_TYPE, MSGPACK_TYPE], pooledBodyParser(bodies));
    scope.addHook('onResponse', async (request) => bodies.give(request.body));
    defineResource(scope, '/ingest/v2.0/:tenant/ingest', {
      POST: { rules: INGEST_RULES, bodyLimit, handler: (request, reply) => ingest(context, request, reply, false) },
    });
    defineResource(scope, '/ingest/v2.0/:tenant/ingest/multi', {
      POST: { rules: INGEST_RULES, bodyLimit, handler: (request, reply) => ingest(context, request, reply, true) },
    });
  });
}
