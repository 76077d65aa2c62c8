// Owns capturing the ingest and query requests into a recording: the raw body bytes, URL (without credential parameters), tenant, status and timing of each, never a header.
import { Transform } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RequestPayload } from 'fastify';
import type { Clock } from '../core/clock.js';
import type { RecordingWriter } from '../recording/recording-types.js';

/**
 * The method and URL pattern (as fastify routed it) of every route a recording captures: the
 * five replay sends again. Nothing else is recorded — identity (credentials), feeds, DNS,
 * monitoring and the operational routes never reach the writer.
 */
export const RECORDED_ROUTES: ReadonlySet<string> = new Set([
  'POST /ingest/v2.0/:tenant/ingest',
  'POST /ingest/v2.0/:tenant/ingest/multi',
  'GET /metrics/v2.0/:tenant/views/:metricName',
  'POST /metrics/v2.0/:tenant/views',
  'GET /metrics/v2.0/:tenant/metrics/search',
]);

/** What the recorder knows of one recorded request between its arrival and its response. */
interface Capture {
  readonly arrivedAtMs: number;
  /** The body chunks as they were read (references, not copies: Node never reuses a chunk it handed out); none for a GET, or a request refused before its body was read. */
  readonly chunks: Buffer[];
}

/** True when requests of `method` on the route pattern `url` are recorded. */
export function isRecordedRoute(method: string, url: string | undefined): boolean {
  return url !== undefined && RECORDED_ROUTES.has(`${method} ${url}`);
}

/** A pass-through stream that keeps a reference to every chunk in `chunks`, for the body parser to read instead of the request. */
function teeBody(payload: RequestPayload, chunks: Buffer[]): RequestPayload {
  const copy = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback(null, chunk);
    },
  });
  // Only the request's errors (an aborted upload) travel on; the parser sees them as it would without the tee.
  // Not stream.pipeline: it would destroy the request (and its socket) when a parser stops reading early.
  payload.on('error', (error) => copy.destroy(error));
  payload.pipe(copy);
  return copy;
}

/**
 * Query parameter names that look like credentials (an API key, a token, a password, a signature,
 * a session): a client that puts one in a URL must not have it travel with a shared recording.
 */
const CREDENTIAL_PARAMETER = /token|key|secret|pass|auth|sig|credential|session/i;

/** A query parameter's name as the server would read it (percent-decoding, `+` as space); the raw name when it does not decode. */
function parameterName(parameter: string): string {
  const equals = parameter.indexOf('=');
  const raw = (equals === -1 ? parameter : parameter.slice(0, equals)).replace(/\+/g, ' ');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The URL as received without the query parameters whose names look like credentials
 * (CREDENTIAL_PARAMETER, any case); every other parameter keeps its bytes and its place. A URL
 * without such a parameter comes back unchanged; one left with no parameters loses its `?`.
 */
export function withoutCredentials(url: string): string {
  const question = url.indexOf('?');
  if (question === -1) return url;
  const parameters = url.slice(question + 1).split('&');
  const kept = parameters.filter((parameter) => !CREDENTIAL_PARAMETER.test(parameterName(parameter)));
  if (kept.length === parameters.length) return url;
  const path = url.slice(0, question);
  return kept.length === 0 ? path : `${path}?${kept.join('&')}`;
}

/** The URL's tenant segment as the router decoded it. */
function tenantOf(request: FastifyRequest): string {
  const tenant = (request.params as { tenant?: unknown } | undefined)?.tenant;
  return typeof tenant === 'string' ? tenant : '';
}

/**
 * Installs the recorder's hooks on the root instance (before any other hook, so a request refused
 * by authentication or admission in a later onRequest hook is recorded too, with its status).
 * onRequest notes the arrival of a recorded route's request; preParsing tees its body stream, so
 * the bytes are those sent, before any parsing (a body that fails to parse is recorded as
 * received); onResponse hands the exchange to the writer (the URL without credential query
 * parameters, the body as its list of chunks), whose `record` never blocks. Requests of
 * other routes cost a set lookup and two map misses. A writer failure is logged, never turned into
 * a failed request. Without a writer nothing is installed (createServer calls this only with one).
 */
export function installRequestRecorder(app: FastifyInstance, writer: RecordingWriter, clock: Clock, logger: FastifyBaseLogger): void {
  // Per request, dropped with it: a request aborted before its response leaves nothing behind.
  const captures = new WeakMap<FastifyRequest, Capture>();
  app.addHook('onRequest', (request, _reply, done) => {
    if (isRecordedRoute(request.method, request.routeOptions.url)) captures.set(request, { arrivedAtMs: clock.now(), chunks: [] });
    done();
  });
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const capture = captures.get(request);
    if (capture === undefined || request.method === 'GET') {
      done(null, payload);
      return;
    }
    done(null, teeBody(payload, capture.chunks));
  });
  app.addHook('onResponse', (request, reply, done) => {
    const capture = captures.get(request);
    if (capture !== undefined) {
      captures.delete(request);
      try {
        writer.record({
          arrivedAtMs: capture.arrivedAtMs,
          method: request.method,
          url: withoutCredentials(request.url),
          tenant: tenantOf(request),
          contentType: request.headers['content-type'] ?? null,
          // The chunks as they came (never joined here): the writer checksums and writes them in place, off this turn.
          body: capture.chunks.length === 0 ? null : capture.chunks,
          status: reply.statusCode,
          // fastify's own monotonic measure from arrival: a wall clock step cannot make it negative.
          durationMs: Math.max(0, Math.round(reply.elapsedTime)),
        });
      } catch (error) {
        // record() is documented never to throw; should it, the request has been answered already and must stay so.
        logger.error({ err: error }, 'the recorder could not record a request');
      }
    }
    done();
  });
}
