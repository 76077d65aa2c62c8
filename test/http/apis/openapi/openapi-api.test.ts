// Checks GET /openapi.json: every route the server answers is documented (and nothing else), with its error shape, and every documented example validates.
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../harness.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

interface Operation {
  readonly responses: Record<string, unknown>;
  readonly tags?: string[];
  readonly requestBody?: { content: Record<string, MediaType> };
}
/** A request body's media type: @fastify/swagger moves a schema's `examples` to `example` (one) or `examples` (several, by name). */
interface MediaType {
  readonly schema: Record<string, unknown>;
  readonly example?: unknown;
  readonly examples?: Record<string, { value: unknown }>;
}
type Doc = { openapi: string; paths: Record<string, Partial<Record<string, Operation>>> };

let h: Harness;
let doc: Doc;

/** Full URL patterns of every route, read from fastify's route tree (printRoutes without common prefixes). */
function routePatterns(tree: string): string[] {
  const patterns: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (.+?) \(([A-Z, ]+)\)$/.exec(line);
    if (match === null) continue;
    const depth = (match[1] as string).length / 4;
    stack.length = depth;
    stack.push(match[2] as string);
    patterns.push(stack.join(''));
  }
  return patterns;
}

/** `/a/:b/c` as OpenAPI writes it (`/a/{b}/c`), and as a concrete URL. */
const asOpenApi = (pattern: string) => pattern.replace(/:([A-Za-z]+)/g, '{$1}');
const concrete = (pattern: string) => pattern.replace(/:([A-Za-z]+)/g, 'x1');

beforeAll(async () => {
  h = await startHarness({});
  const res = await h.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json() as Doc;
});
afterAll(() => h.close());

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document served without a token', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).length).toBeGreaterThan(30);
  });

  it('documents every method the server answers, and no method it refuses with 405', async () => {
    const patterns = routePatterns(h.app.printRoutes({ commonPrefix: false }));
    expect(patterns).toContain('/v2.0/tokens');
    let checked = 0;
    for (const pattern of patterns) {
      if (pattern === '/openapi.json') continue;
      for (const method of METHODS) {
        const res = await h.app.inject({ method, url: concrete(pattern) });
        const documented = doc.paths[asOpenApi(pattern)]?.[method.toLowerCase()];
        if (res.statusCode === 405) expect(documented, `${method} ${pattern} answers 405 but is documented`).toBeUndefined();
        else expect(documented, `${method} ${pattern} answers ${res.statusCode} but is not documented`).toBeDefined();
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(150);
  });

  it('lists only routes that exist, each under its API with its error shape', () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const url = path.replace(/\{([A-Za-z]+)\}/g, ':$1');
        expect(h.app.hasRoute({ method: method.toUpperCase() as 'GET', url }), `${method} ${path}`).toBe(true);
        expect(operation?.tags, `${method} ${path}`).toHaveLength(1);
        expect(Object.keys(operation?.responses ?? {}), `${method} ${path}`).toEqual(expect.arrayContaining(['4XX', '5XX']));
      }
    }
  });

  it('shows each API its own error body', () => {
    const errorOf = (path: string, method: string) => JSON.stringify(doc.paths[path]?.[method]?.responses['4XX']);
    expect(errorOf('/v2.0/tokens', 'post')).toContain('wrapped under its name');
    expect(errorOf('/metrics/v2.0/{tenant}/views/{metricName}', 'get')).toContain('txnId');
    expect(errorOf('/ingest/v2.0/{tenant}/ingest', 'post')).toContain('errors');
    expect(errorOf('/dns/v1.0/{tenant}/domains', 'get')).toContain('Unwrapped in JSON');
    expect(errorOf('/feeds/{tenant}/usagesummary/bigdata/events', 'get')).toContain('abdera');
    expect(errorOf('/prometheus/{tenant}/api/v1/write', 'post')).toContain('text/plain');
    expect(errorOf('/prometheus/{tenant}/api/v1/read', 'post')).toContain('text/plain');
    expect(errorOf('/otlp/{tenant}/v1/metrics', 'post')).toContain('google.rpc.Status');
  });

  it('lists the credentials each route accepts: a bearer token and basic credentials on the Prometheus and OTLP routes', () => {
    const securityOf = (path: string, method: string) => (doc.paths[path]?.[method] as { security?: unknown } | undefined)?.security;
    const all = [{ authToken: [] }, { bearerToken: [] }, { basicCredentials: [] }];
    expect(securityOf('/prometheus/{tenant}/api/v1/write', 'post')).toEqual(all);
    expect(securityOf('/prometheus/{tenant}/api/v1/read', 'post')).toEqual(all);
    expect(securityOf('/otlp/{tenant}/v1/metrics', 'post')).toEqual(all);
    expect(securityOf('/ingest/v2.0/{tenant}/ingest', 'post')).toEqual([{ authToken: [] }]);
    expect(securityOf('/feeds/{tenant}/usagesummary/bigdata/events', 'get')).toEqual([{ authToken: [] }, { basicCredentials: [] }]);
  });

  it('has examples for the bodies, and every example validates against its schema', () => {
    const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
    let examples = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [type, media] of Object.entries(operation?.requestBody?.content ?? {})) {
          const listed = media.example !== undefined ? [media.example] : Object.values(media.examples ?? {}).map((named) => named.value);
          expect(listed.length, `${method} ${path} ${type} has no example`).toBeGreaterThan(0);
          const validate = ajv.compile(media.schema);
          for (const example of listed) {
            expect(validate(example), `${method} ${path} ${type}: ${JSON.stringify(validate.errors)}`).toBe(true);
            examples += 1;
          }
        }
      }
    }
    expect(examples).toBeGreaterThanOrEqual(10);
  });
});
