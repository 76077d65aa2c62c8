// Fuzzes every route and method the server answers with hostile headers and callers, every other method of each resource, and unknown paths (fast-check).
// Fixed seed and runs under `npm test`; STRATA_FUZZ_SEED=random|<n> and STRATA_FUZZ_RUNS=<scale> fuzz longer locally (fuzz-config.ts).
import fc from 'fast-check';
import { afterAll, describe, it } from 'vitest';
import { exercise } from './fuzz-client.js';
import { fuzzParameters, PROPERTY_TEST_TIMEOUT_MS } from './fuzz-config.js';
import { fuzzRequests, openSuite } from './fuzz-suite.js';
import { encodeSegment, hostileText } from './hostile-values.js';
import { edgePlans, planArb, realize } from './request-plans.js';
import { API_PREFIXES, operationName, type Operation } from './route-catalog.js';
import { seedBodies } from './seed-bodies.js';

/** Default runs per property (STRATA_FUZZ_RUNS scales them). */
const HEADER_RUNS = 35;
const OTHER_METHOD_RUNS = 10;
const UNKNOWN_PATH_RUNS = 200;

const suite = await openSuite();
const { world } = suite;
afterAll(() => world.close());

const documented = suite.operations.filter((op) => op.documented);
const undocumented = suite.operations.filter((op) => !op.documented);

describe.each(documented.map((op) => [operationName(op), op] as const))('%s', (name, op) => {
  // Starts with no body, an empty one, no credentials, and each valid body (edgePlans), then draws.
  const seeds = seedBodies(world, op);
  it('survives hostile headers and callers', { timeout: PROPERTY_TEST_TIMEOUT_MS }, async () => {
    await fuzzRequests(world, op, planArb(op, seeds, { headers: true }), `${name} headers`, HEADER_RUNS, edgePlans(op, seeds));
  });
});

/** The methods a pattern answers only with 405 (or HEAD, or the undocumented OpenAPI route), grouped per pattern. */
const byPattern = new Map<string, Operation[]>();
for (const op of undocumented) byPattern.set(op.pattern, [...(byPattern.get(op.pattern) ?? []), op]);

describe('other methods', () => {
  it.each([...byPattern.keys()])('%s survives every other method, hostile in every part', { timeout: PROPERTY_TEST_TIMEOUT_MS }, async (pattern) => {
    const ops = byPattern.get(pattern) as Operation[];
    for (const op of ops) {
      await fuzzRequests(world, op, planArb(op, [], { path: true, query: true, headers: true }), `${operationName(op)} other`, OTHER_METHOD_RUNS);
    }
  });
});

describe('unknown paths', () => {
  it('answers 404 in the shape of the API a path is under', { timeout: PROPERTY_TEST_TIMEOUT_MS }, async () => {
    // Synthetic operations: a prefix (or none) and hostile segments that no route has, with hostile headers, under any method.
    const prefixes = ['', ...Object.values(API_PREFIXES), '/monitoring/v1.0/t1', '/feeds/t1', '/dns/v1.0/t1', '/ingest/v2.0/t1', '/metrics/v2.0/t1'];
    const base: Operation = { pattern: '/', method: 'GET', documented: false, api: 'root', pathParams: [], queryParams: {}, bodyTypes: [], examples: [] };
    const methods = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH');
    const arb = fc.tuple(fc.constantFrom(...prefixes), fc.array(fc.tuple(hostileText(), fc.boolean()), { minLength: 1, maxLength: 3 }), methods, planArb(base, [], { headers: true }));
    await fc.assert(
      fc.asyncProperty(arb, async ([prefix, segments, method, plan]) => {
        const path = segments.map(([text, encoded]) => (encoded ? encodeSegment(text) : text)).join('/');
        const op: Operation = { ...base, pattern: `${prefix}/${path}`.replace(/:/g, '%3A'), method };
        await exercise(world, realize(world, op, { ...plan, method }));
      }),
      fuzzParameters('unknown paths', UNKNOWN_PATH_RUNS),
    );
  });
});
