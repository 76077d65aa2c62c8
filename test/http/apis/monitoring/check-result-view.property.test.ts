// Checks the reference JSON of check results: what test-check renders reads back as the same result, the reference's numeric text reads as numbers, and non-numbers are refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../../../src/core/errors.js';
import { checkResultOf, checkResultView, type CheckResultBody } from '../../../../src/http/apis/monitoring/check-result-view.js';
import type { CheckResult, ResultMetric } from '../../../../src/monitoring/check-result.js';

const NOW_MS = 1_790_000_000_000;

const metric: fc.Arbitrary<ResultMetric> = fc.oneof(
  fc.record({ type: fc.constantFrom('i' as const, 'I' as const, 'l' as const, 'L' as const), data: fc.integer({ min: -1e9, max: 1e9 }), unit: fc.constantFrom('bytes', 'milliseconds', 'unknown') }),
  fc.record({ type: fc.constant('n' as const), data: fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x)), unit: fc.constant('percent') }),
  fc.record({ type: fc.constant('s' as const), data: fc.string({ maxLength: 20 }), unit: fc.constant('unknown') }),
);

const result: fc.Arbitrary<CheckResult> = fc.record(
  {
    monitoringZoneId: fc.constantFrom('mzdfw', 'mziad', 'mzord'),
    timestampMs: fc.integer({ min: 0, max: 4e12 }),
    available: fc.boolean(),
    status: fc.string({ maxLength: 30 }),
    metrics: fc.dictionary(fc.stringMatching(/^[a-z_]{1,12}$/), metric, { maxKeys: 8 }),
    body: fc.string({ maxLength: 30 }),
  },
  { requiredKeys: ['monitoringZoneId', 'timestampMs', 'available', 'status', 'metrics'] },
);

describe('check result JSON', () => {
  it('reads back what it renders, through JSON text', () => {
    fc.assert(
      fc.property(result, (r) => {
        const body = JSON.parse(JSON.stringify(checkResultView(r))) as CheckResultBody;
        expect(checkResultOf(body, 0, NOW_MS)).toEqual(r);
      }),
    );
  });

  it('reads numeric metrics given as decimal text (the reference form) as numbers', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), fc.constantFrom('i' as const, 'I' as const, 'l' as const, 'L' as const, 'n' as const), (n, type) => {
        const read = checkResultOf({ metrics: { m: { type, data: String(n) } } }, 0, NOW_MS);
        expect(read.metrics['m']).toEqual({ type, data: n, unit: 'unknown' });
      }),
    );
  });

  it('keeps a metric named like an Object.prototype member as a metric', () => {
    const r: CheckResult = { monitoringZoneId: 'mzdfw', timestampMs: 0, available: true, status: '', metrics: JSON.parse('{"__proto__": {"type": "n", "data": 1, "unit": "percent"}}') };
    const view = checkResultView(r);
    expect(JSON.stringify(view)).toContain('"__proto__":{"type":"n","data":1');
    expect(Object.keys(checkResultOf(JSON.parse(JSON.stringify(view)) as CheckResultBody, 0, NOW_MS).metrics)).toEqual(['__proto__']);
  });

  it('fills the defaults of a result that gives only metrics', () => {
    expect(checkResultOf({ metrics: {} }, 3, NOW_MS)).toEqual({ monitoringZoneId: '', timestampMs: NOW_MS, available: true, status: '', metrics: {} });
    expect(checkResultOf({ metrics: { code: { type: 's', data: 200 } } }, 0, NOW_MS).metrics['code']?.data).toBe('200');
  });

  it('refuses numeric metrics whose text is not a number, naming the item', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 10 }).filter((text) => !/^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(text)),
        fc.integer({ min: 0, max: 99 }),
        (text, index) => {
          let error: unknown;
          try {
            checkResultOf({ metrics: { m: { type: 'n', data: text } } }, index, NOW_MS);
          } catch (thrown) {
            error = thrown;
          }
          expect(isStrataError(error) && error.code).toBe('MONITORING_FIELD_INVALID');
          expect(isStrataError(error) && String(error.details['problem'])).toContain(`item ${index}`);
        },
      ),
    );
  });

  it('refuses numeric text beyond the doubles (no Infinity reaches the criteria)', () => {
    expect(() => checkResultOf({ metrics: { m: { type: 'n', data: '1e999' } } }, 0, NOW_MS)).toThrowError(expect.objectContaining({ code: 'MONITORING_FIELD_INVALID' }));
    expect(() => checkResultOf(JSON.parse('{"metrics": {"m": {"type": "l", "data": 1e400}}}') as CheckResultBody, 0, NOW_MS)).toThrowError(expect.objectContaining({ code: 'MONITORING_FIELD_INVALID' }));
  });
});
