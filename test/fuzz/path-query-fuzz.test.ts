// Fuzzes every documented route and method with hostile path parameters and hostile query strings (fast-check).
// Fixed seed and runs under `npm test`; STRATA_FUZZ_SEED=random|<n> and STRATA_FUZZ_RUNS=<scale> fuzz longer locally (fuzz-config.ts).
import { afterAll, describe, it } from 'vitest';
import { PROPERTY_TEST_TIMEOUT_MS } from './fuzz-config.js';
import { fuzzRequests, openSuite } from './fuzz-suite.js';
import { planArb } from './request-plans.js';
import { operationName } from './route-catalog.js';
import { seedBodies } from './seed-bodies.js';

/** Default runs per property (STRATA_FUZZ_RUNS scales them). */
const PATH_RUNS = 35;
const QUERY_RUNS = 35;

const suite = await openSuite();
const { world } = suite;
afterAll(() => world.close());

describe.each(suite.operations.filter((op) => op.documented).map((op) => [operationName(op), op] as const))('%s', (name, op) => {
  const seeds = seedBodies(world, op);
  if (op.pathParams.length > 0) {
    it('survives hostile path parameters', { timeout: PROPERTY_TEST_TIMEOUT_MS }, async () => {
      await fuzzRequests(world, op, planArb(op, seeds, { path: true }), `${name} path`, PATH_RUNS);
    });
  }
  it('survives hostile query strings', { timeout: PROPERTY_TEST_TIMEOUT_MS }, async () => {
    await fuzzRequests(world, op, planArb(op, seeds, { query: true }), `${name} query`, QUERY_RUNS);
  });
});
