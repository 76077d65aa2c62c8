// Properties of the endpoint's method rules: a metrics post is taken exactly for an enabled check of its type, and a schedule the agent's own validator reads back unchanged (the timestamp rule is the runtime's: test/monitoring/runner/result-timestamp.property.test.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkForPost, scheduleOf } from '../../../src/agent/endpoint/agent-methods.js';
import { scheduleResult } from '../../../src/agent/protocol/method-params.js';
import { isStrataError } from '../../../src/core/errors.js';
import { AGENT_CHECK_TYPE_IDS } from '../../../src/monitoring/check-types.js';
import { agentCheck } from './endpoint-fixtures.js';

const agentType = fc.constantFrom(...AGENT_CHECK_TYPE_IDS);
const checkArb = fc.record({
  id: fc.string({ minLength: 1, maxLength: 12 }),
  type: agentType,
  disabled: fc.boolean(),
  period: fc.integer({ min: 1, max: 86_400 }),
  timeout: fc.integer({ min: 1, max: 86_400 }),
  details: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean()), { maxKeys: 3 }),
  // A stored check's timeout is below its period (the monitoring rules); the agent refuses one above it.
}).map((check) => ({ ...check, timeout: Math.min(check.timeout, check.period) }));

/** The code a call throws, or undefined when it returns. */
function codeOf(call: () => unknown): string | undefined {
  try {
    call();
    return undefined;
  } catch (error) {
    if (!isStrataError(error)) throw error;
    return error.code;
  }
}

describe('agent method rules', () => {
  it('takes a post exactly when the check exists, has the posted type and is enabled', () => {
    fc.assert(
      fc.property(fc.option(checkArb, { nil: undefined }), agentType, (check, postedType) => {
        const stored = check === undefined ? undefined : agentCheck('enA', check.id, check.type, { disabled: check.disabled });
        const params = { check_id: check?.id ?? 'chX', check_type: postedType };
        const accepted = check !== undefined && check.type === postedType && !check.disabled;
        const code = codeOf(() => checkForPost(stored, params));
        expect(code).toBe(accepted ? undefined : 'AGENT_CHECK_UNKNOWN');
        if (accepted) expect(checkForPost(stored, params)).toBe(stored);
      }),
    );
  });

  it('lists a schedule the agent reads back as sent, in order', () => {
    fc.assert(
      fc.property(fc.array(checkArb, { maxLength: 20 }), (checks) => {
        const stored = checks.map((check) => agentCheck('enA', check.id, check.type, { disabled: check.disabled, period: check.period, timeout: check.timeout, details: check.details }));
        const schedule = scheduleOf(stored);
        expect(scheduleResult(JSON.parse(JSON.stringify(schedule)))).toEqual(schedule);
        expect(schedule.checks.map((check) => check.id)).toEqual(checks.map((check) => check.id));
      }),
    );
  });
});
