// Owns the fuzz suite's knobs: the seed and the number of runs of each property, fixed by default, overridable from the environment.
//
// `npm test` runs every fuzz property with a fixed seed and a fixed number of runs, so a run is
// reproducible and bounded (the whole test/fuzz directory in well under a minute on 2 cores).
// To fuzz longer or with fresh values locally:
//
//   STRATA_FUZZ_SEED=random npx vitest run test/fuzz        a random seed per test file (printed as it starts)
//   STRATA_FUZZ_SEED=12345  npx vitest run test/fuzz/<file> replay that file's seed
//   STRATA_FUZZ_RUNS=10     npx vitest run test/fuzz        ten times the default runs of each property
//   STRATA_FUZZ_LOG=/tmp/f  npx vitest run test/fuzz        append one line per answer (status, code, method, path)
//                                                           to see which answers the fuzz reaches
//
// A failure prints fast-check's seed, path and shrunk counterexample; the invariant that broke
// names the request (method, URL, headers, body) and the answer seen.
import fc from 'fast-check';
import { createHash } from 'node:crypto';

/** The seed of `npm test`: fixed, so the suite is reproducible. */
const DEFAULT_SEED = 20_260_401;

function readSeed(): number {
  const text = process.env['STRATA_FUZZ_SEED'];
  if (text === undefined || text === '') return DEFAULT_SEED;
  if (text === 'random') {
    const seed = Math.floor(Math.random() * 2 ** 31);
    // Each property's own seed (in a failure's report) derives from this one: replay with STRATA_FUZZ_SEED=<it>.
    console.info(`fuzz: STRATA_FUZZ_SEED=${seed}`);
    return seed;
  }
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`STRATA_FUZZ_SEED must be an integer or 'random', not ${text}`);
  return seed;
}

function readScale(): number {
  const text = process.env['STRATA_FUZZ_RUNS'];
  if (text === undefined || text === '') return 1;
  const scale = Number(text);
  if (!(scale > 0 && scale <= 10_000)) throw new Error(`STRATA_FUZZ_RUNS must be a number in (0, 10000], not ${text}`);
  return scale;
}

/** The file the coverage log goes to, when asked for. */
export const FUZZ_LOG = process.env['STRATA_FUZZ_LOG'] || undefined;

/** The base seed of this run. */
export const FUZZ_SEED = readSeed();
/** How many times the default runs each property makes (1 under `npm test`). */
export const FUZZ_SCALE = readScale();

/** Milliseconds a property may take before it stops generating (a safety net; the default runs finish far sooner). */
const PROPERTY_TIME_MS = 20_000;

/** The vitest timeout of one property test: room for its runs and the shrinking of a failure. */
export const PROPERTY_TEST_TIMEOUT_MS = 60_000 * Math.max(1, FUZZ_SCALE);

/** A per-property seed: the base seed mixed with the property's name, so properties draw independent values. */
function seedOf(name: string): number {
  const digest = createHash('sha256').update(`${FUZZ_SEED}:${name}`).digest();
  return digest.readUInt32BE(0) & 0x7fff_ffff;
}

/** fast-check parameters of the property `name` with `runs` default runs. */
export function fuzzParameters<T>(name: string, runs: number): fc.Parameters<T> {
  const scaled = Math.max(1, Math.round(runs * FUZZ_SCALE));
  return {
    seed: seedOf(name),
    numRuns: scaled,
    // A safety net proportional to the scale: generation stops there (a failure already found is still reported).
    plugins: [fc.interruptAfterTimeLimit(PROPERTY_TIME_MS * Math.max(1, FUZZ_SCALE)) as fc.Plugin<T>],
  };
}
