// Owns the tests of IngestDecoder as an instance: two decoders share no scratch, no cache and no column builders.
import fc from 'fast-check';
import { pack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { IngestDecoder } from '../../src/wire/ingest-decoder.js';
import type { IngestFormat, IngestScope } from '../../src/wire/ingest-mapping.js';
import { body, cleanBody, decoded, SCOPES, type Decoded } from './ingest-fixtures.js';

/** One decode call: the body's bytes, its format and the scope it is written in. */
interface Job {
  readonly raw: Buffer;
  readonly format: IngestFormat;
  readonly scope: IngestScope;
}

/** What a decoder answered for a job: the mapping as points, or the code it threw. */
type Outcome = Decoded | string;

const job = fc
  .tuple(fc.oneof(body, cleanBody), fc.constantFrom<IngestFormat>('json', 'msgpack'), fc.constantFrom(...SCOPES))
  .map(([metrics, format, scope]): Job => ({ raw: format === 'json' ? Buffer.from(JSON.stringify(metrics)) : Buffer.from(pack(metrics)), format, scope }));
const jobs = fc.array(job, { minLength: 1, maxLength: 6 });

/** Decodes one job, copies the answer out of the lent columns, and gives the columns back. */
function run(decoder: IngestDecoder, { raw, format, scope }: Job): Outcome {
  let mapping;
  try {
    mapping = decoder.decode(raw, format, scope);
  } catch (error) {
    return (error as { code: string }).code;
  }
  const outcome = decoded(mapping);
  decoder.release(mapping);
  return outcome;
}

function alone(list: readonly Job[]): Outcome[] {
  const decoder = new IngestDecoder();
  return list.map((j) => run(decoder, j));
}

/**
 * A scope that runs `during()` on every read of its fields: the fast loops and the full mapping
 * read the scope per metric, so this calls into another decoder in the middle of a body.
 */
function interrupting(scope: IngestScope, during: () => void): IngestScope {
  return new Proxy(scope, {
    get(target, key, receiver) {
      during();
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

describe('IngestDecoder instances', () => {
  it('give the same answers used interleaved, call by call, as each used alone', () => {
    fc.assert(
      fc.property(jobs, jobs, (jobsA, jobsB) => {
        const a = new IngestDecoder();
        const b = new IngestDecoder();
        const outA: Outcome[] = [];
        const outB: Outcome[] = [];
        for (let k = 0; k < Math.max(jobsA.length, jobsB.length); k++) {
          const ja = jobsA[k];
          const jb = jobsB[k];
          if (ja !== undefined) outA.push(run(a, ja));
          if (jb !== undefined) outB.push(run(b, jb));
        }
        expect(outA).toEqual(alone(jobsA));
        expect(outB).toEqual(alone(jobsB));
      }),
      { numRuns: 200 },
    );
  });

  it('give the same answers when one decodes in the middle of the other’s body', () => {
    fc.assert(
      fc.property(jobs, jobs, (jobsA, jobsB) => {
        const a = new IngestDecoder();
        const b = new IngestDecoder();
        const outB: Outcome[] = [];
        let nextB = 0;
        const runB = (): void => {
          const jb = jobsB[nextB];
          if (jb === undefined) return;
          nextB += 1;
          outB.push(run(b, jb));
        };
        const outA = jobsA.map((ja) => run(a, { ...ja, scope: interrupting(ja.scope, runB) }));
        while (nextB < jobsB.length) runB();
        expect(outA).toEqual(alone(jobsA));
        expect(outB).toEqual(alone(jobsB));
      }),
      { numRuns: 200 },
    );
  });

  it('lend each its own column builders', () => {
    const raw = Buffer.from(JSON.stringify([{ metricName: 'm', metricValue: 1.5, collectionTime: 1_700_000_000_000 }]));
    const scope = SCOPES[0] as IngestScope;
    const a = new IngestDecoder();
    const b = new IngestDecoder();
    const first = a.decode(raw, 'json', scope);
    a.release(first);
    const other = b.decode(raw, 'json', scope);
    expect(other.columns).not.toBe(first.columns);
    expect(a.decode(raw, 'json', scope).columns).toBe(first.columns);
  });
});
