// Owns test-alarm: criteria evaluated against a list of check results, each on its own, as the test-alarm route returns them.
import type { AlarmState } from '../alarm-language/ast.js';
import type { CheckResult } from '../check-result.js';
import { compileCriteria, evaluateCriteria } from './criteria-eval.js';

/** One line of a test-alarm answer: the result's timestamp and the verdict on it. */
export interface TestAlarmVerdict {
  readonly timestamp: number;
  readonly state: AlarmState;
  readonly status: string;
}

/**
 * Evaluates `source` (null: no criteria) against each result on its own, as if consecutiveCount
 * were 1 and the result's zone the only one (the reference's test-alarm): the verdict of each
 * result, in the given order. previous() and rate() see the result before it in the list from
 * the same zone. Criteria that do not parse, or hold an unsafe pattern, throw
 * MONITORING_ALARM_PARSE_FAILED.
 */
export function testAlarm(source: string | null, results: readonly CheckResult[]): TestAlarmVerdict[] {
  const compiled = compileCriteria(source);
  const previousOfZone = new Map<string, CheckResult>();
  return results.map((result) => {
    const verdict = evaluateCriteria(compiled, result, previousOfZone.get(result.monitoringZoneId) ?? null);
    previousOfZone.set(result.monitoringZoneId, result);
    return { timestamp: result.timestampMs, state: verdict.state, status: verdict.status };
  });
}
