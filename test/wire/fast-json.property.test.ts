// Owns the property tests of the fast JSON ingest decoder: it yields exactly the points of JSON.parse and the full decoder.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastJsonIngest } from '../../src/wire/fast-json.js';
import type { IngestScope } from '../../src/wire/ingest-mapping.js';
import { body, checkAgreement, cleanBody, decoded, SCOPES, slow, type Decoded } from './ingest-fixtures.js';

const JSON_FORMAT = 'json';
/** JSON whitespace between tokens, as pretty printers and hand-written bodies have it. */
const space = fc.constantFrom('', ' ', '\n', '\r\n\t', '  ');

/** JSON text of `metrics` with whitespace from `gaps` put between every pair of tokens. */
function spaced(metrics: unknown, gaps: readonly string[]): string {
  let k = 0;
  const gap = () => gaps[k++ % gaps.length] as string;
  // Tokens of JSON.stringify's compact output are separated by , : [ ] { } outside strings.
  return JSON.stringify(metrics).replace(/("(?:[^"\\]|\\.)*")|([,:[\]{}])/g, (_m, text: string | undefined, punct: string | undefined) => (text !== undefined ? text : `${gap()}${punct}${gap()}`));
}

function expectSameAsFull(raw: Buffer, scope: IngestScope): void {
  const quick = decoded(fastJsonIngest(raw, scope));
  expect(quick).toBeDefined();
  const full = slow(raw, JSON_FORMAT, scope) as Decoded;
  expect(full).toEqual(quick);
  // toEqual does not tell 0 from -0; the values must be the very same numbers.
  quick?.points.forEach((point, i) => {
    expect(Object.is(point.value, full.points[i]?.value)).toBe(true);
    expect(Object.is(point.timestamp, full.points[i]?.timestamp)).toBe(true);
  });
}

describe('the fast JSON decoder agrees with the full decoder', () => {
  it('takes every clean body, compact or spaced, and agrees with the full decoder', () => {
    fc.assert(
      fc.property(cleanBody, fc.array(space, { minLength: 1, maxLength: 5 }), (metrics, gaps) => {
        for (const text of [JSON.stringify(metrics), JSON.stringify(metrics, null, 2), spaced(metrics, gaps)]) {
          for (const scope of SCOPES) expectSameAsFull(Buffer.from(text), scope);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads numbers in every JSON spelling exactly as JSON.parse does', () => {
    const spellings = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => JSON.stringify(x)),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => x.toExponential()),
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((x) => x.toFixed(20)),
      fc.tuple(fc.integer({ min: 0, max: 9 }), fc.stringMatching(/^[0-9]{0,30}$/), fc.stringMatching(/^[0-9]{1,30}$/), fc.integer({ min: -400, max: 400 })).map(([lead, int, frac, exp]) => `${lead}${lead === 0 ? '' : int}.${frac}E${exp >= 0 ? '+' : ''}${exp}`),
    );
    fc.assert(
      fc.property(spellings, spellings, (value, time) => {
        const raw = Buffer.from(`[{"metricName":"m","metricValue":${value},"collectionTime":${time},"tenantId":"t1"}]`);
        expectSameAsFull(raw, SCOPES[0] as IngestScope);
      }),
      { numRuns: 1000 },
    );
  });

  it('gives the same points whenever it answers, and leaves escapes, nulls, unknown keys and bad tokens to the full decoder', () => {
    let taken = 0;
    fc.assert(
      fc.property(body, fc.array(space, { minLength: 1, maxLength: 3 }), (metrics, gaps) => {
        taken += checkAgreement(Buffer.from(spaced(metrics, gaps)), JSON_FORMAT, fastJsonIngest);
      }),
      { numRuns: 500 },
    );
    expect(taken).toBeGreaterThan(0);
    const scope = SCOPES[0] as IngestScope;
    const metric = '{"metricName":"m","metricValue":1.5,"collectionTime":1700000000000}';
    for (const text of [
      '',
      '[]',
      '{}',
      `[${metric},]`,
      `[${metric}`,
      `${metric}`,
      `[${metric}] x`,
      '[{"metricName":"a\\u0062","metricValue":1,"collectionTime":1}]',
      '[{"metricName":"m","metricValue":null,"collectionTime":1}]',
      '[{"metricName":"m","metricValue":01,"collectionTime":1}]',
      '[{"metricName":"m","metricValue":1,"collectionTime":1,}]',
      '[{"metricName":"m","metricValue":1,"collectionTime":1,"other":2}]',
      '[{"metricName":"m","metricValue":1,"collectionTime":"1"}]',
      '[{"metricName":"m" "metricValue":1,"collectionTime":1}]',
      '[{"metricNamf":"m","metricValue":1,"collectionTime":1}]',
      '[{"metricName":"m\u0001","metricValue":1,"collectionTime":1}]',
      '\ufeff[{"metricName":"m","metricValue":1,"collectionTime":1}]',
    ]) {
      expect(fastJsonIngest(Buffer.from(text), scope), text).toBeUndefined();
    }
    const whole = Buffer.from(`[${metric}]`);
    for (let cut = 1; cut < whole.length; cut++) expect(fastJsonIngest(whole.subarray(0, cut), scope)).toBeUndefined();
  });

  it('reads names with multi-byte characters as the full decoder does', () => {
    for (const name of ['é€😀', 'cpu.µs', 'ü'.repeat(40)]) {
      const raw = Buffer.from(JSON.stringify([{ metricName: name, metricValue: 2, collectionTime: 1_700_000_000_000, unit: 'µs' }]));
      expectSameAsFull(raw, SCOPES[0] as IngestScope);
    }
  });
});
