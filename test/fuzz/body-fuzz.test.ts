// Fuzzes every route that reads a body with hostile JSON values, byte-flipped and truncated valid bodies (JSON, msgpack, Atom), and hostile XML (fast-check).
// Fixed seed and runs under `npm test`; STRATA_FUZZ_SEED=random|<n> and STRATA_FUZZ_RUNS=<scale> fuzz longer locally (fuzz-config.ts).
import fc from 'fast-check';
import { afterAll, describe, it } from 'vitest';
import { PROPERTY_TEST_TIMEOUT_MS } from './fuzz-config.js';
import { fuzzRequests, openSuite } from './fuzz-suite.js';
import { hostileJsonBody, hostileXml, mutate, mutationArb } from './hostile-bodies.js';
import { contentTypeArb } from './hostile-values.js';
import { planArb } from './request-plans.js';
import { operationName, type Operation } from './route-catalog.js';
import { ATOM_TYPE, JSON_TYPE, seedBodies, type SeedBody } from './seed-bodies.js';

/** Default runs per property (STRATA_FUZZ_RUNS scales them). */
const JSON_RUNS = 70;
const FLIP_RUNS = 120;
const TRUNCATE_RUNS = 25;
const XML_RUNS = 250;

const suite = await openSuite();
const { world } = suite;
afterAll(() => world.close());

/** Documented operations that read a body, or may be sent one (every method but GET). */
const bodyOperations = suite.operations.filter((op) => op.documented && op.method !== 'GET');

/** The body's own Content-Type mostly, else a mismatched or junk one. */
function typeFor(own: string | undefined, op: Operation): fc.Arbitrary<string | undefined> {
  return fc.oneof({ weight: 4, arbitrary: fc.constant(own) }, { weight: 1, arbitrary: contentTypeArb(op.bodyTypes) });
}

type Body = { type: string | undefined; bytes: Buffer };

describe.each(bodyOperations.map((op) => [operationName(op), op] as const))('%s', (name, op) => {
  const seeds: SeedBody[] = seedBodies(world, op);
  const jsonSeeds = seeds.filter((seed) => seed.type.includes('json')).map((seed) => JSON.parse(seed.bytes.toString('utf8')) as unknown);
  const jsonType = op.bodyTypes.find((type) => type.includes('json')) ?? JSON_TYPE;
  const xmlSeeds = seeds.filter((seed) => seed.type === ATOM_TYPE);

  it('survives hostile JSON values', { timeout: PROPERTY_TEST_TIMEOUT_MS }, async () => {
    const body: fc.Arbitrary<Body> = fc.tuple(hostileJsonBody(jsonSeeds), typeFor(jsonType, op)).map(([text, type]) => ({ type, bytes: Buffer.from(text) }));
    await fuzzRequests(world, op, planArb(op, seeds, { body }), `${name} json`, JSON_RUNS);
  });

  if (seeds.length > 0) it('survives byte-flipped valid bodies', { timeout: PROPERTY_TEST_TIMEOUT_MS }, async () => {
    const body: fc.Arbitrary<Body> = fc
      .tuple(fc.constantFrom(...seeds), fc.array(mutationArb, { minLength: 1, maxLength: 6 }))
      .chain(([seed, mutations]) => typeFor(seed.type, op).map((type) => ({ type, bytes: mutate(seed.bytes, mutations) })));
    await fuzzRequests(world, op, planArb(op, seeds, { body }), `${name} flips`, FLIP_RUNS);
  });

  if (seeds.length > 0) it('survives truncated valid bodies', { timeout: PROPERTY_TEST_TIMEOUT_MS }, async () => {
    const body: fc.Arbitrary<Body> = fc
      .tuple(fc.constantFrom(...seeds), fc.nat())
      .map(([seed, cut]) => ({ type: seed.type, bytes: seed.bytes.subarray(0, cut % Math.max(1, seed.bytes.length)) }));
    await fuzzRequests(world, op, planArb(op, seeds, { body }), `${name} truncated`, TRUNCATE_RUNS);
  });

  if (xmlSeeds.length > 0) it('survives hostile XML', { timeout: PROPERTY_TEST_TIMEOUT_MS }, async () => {
    const body: fc.Arbitrary<Body> = fc
      .tuple(hostileXml(), fc.oneof({ weight: 4, arbitrary: fc.constant<string | undefined>(ATOM_TYPE) }, { weight: 1, arbitrary: fc.constantFrom('application/xml', 'text/xml', `${ATOM_TYPE}; charset=utf-16`) }))
      .map(([text, type]) => ({ type, bytes: Buffer.from(text) }));
    await fuzzRequests(world, op, planArb(op, seeds, { body }), `${name} xml`, XML_RUNS);
  });
});
