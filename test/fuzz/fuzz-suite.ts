// Owns what every fuzz test file shares: a world with its enumerated operations, and running one property of requests against it.
import fc from 'fast-check';
import { fuzzParameters } from './fuzz-config.js';
import { exercise } from './fuzz-client.js';
import { FuzzWorld } from './fuzz-world.js';
import { enumerateOperations, type OpenApiDoc, type Operation } from './route-catalog.js';
import { realize, type RequestPlan } from './request-plans.js';

/** A started world and every operation its server answers. */
export interface FuzzSuite {
  readonly world: FuzzWorld;
  readonly operations: readonly Operation[];
  readonly doc: OpenApiDoc;
}

/** Starts a world and enumerates its routes from the router and the OpenAPI document it serves. */
export async function openSuite(): Promise<FuzzSuite> {
  const world = await FuzzWorld.open();
  const res = await world.app.inject({ method: 'GET', url: '/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}`);
  const doc = res.json() as OpenApiDoc;
  return { world, doc, operations: enumerateOperations(world.app, doc) };
}

/** Runs the property `name`: the `examples` first, then `runs` requests to `op` drawn from `plans`, each checked by exercise(). */
export async function fuzzRequests(world: FuzzWorld, op: Operation, plans: fc.Arbitrary<RequestPlan>, name: string, runs: number, examples: readonly RequestPlan[] = []): Promise<void> {
  await fc.assert(
    fc.asyncProperty(plans, async (plan) => {
      await exercise(world, realize(world, op, plan));
    }),
    { ...fuzzParameters<[RequestPlan]>(name, runs), examples: examples.map((plan): [RequestPlan] => [plan]) },
  );
}
