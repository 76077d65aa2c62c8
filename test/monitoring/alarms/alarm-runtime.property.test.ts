// Checks that the alarm runtime records exactly the changes the pure consensus fold decides, for any observation history, and notifies by the plan and first-state rules.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeNotifies, planListOf } from '../../../src/monitoring/alarms/alarm-commit.js';
import { consensusParams, emptyMemory, stepAlarm, type AlarmTransition } from '../../../src/monitoring/alarms/alarm-consensus.js';
import { compileCriteria, evaluateCriteria } from '../../../src/monitoring/alarms/criteria-eval.js';
import type { CheckResult } from '../../../src/monitoring/check-result.js';
import { PERIOD_MS, result, RuntimeWorld, T0_MS, ZONES } from './alarm-runtime-fixture.js';

/** One observation: a zone, a code, and how long after the one before it came. */
const observation = fc.record({
  zone: fc.constantFrom(...ZONES),
  code: fc.constantFrom('200', '200', '404', '503'),
  gapMs: fc.integer({ min: 1, max: PERIOD_MS }),
});

const settings = fc.record({ count: fc.integer({ min: 1, max: 3 }), level: fc.constantFrom('ONE', 'QUORUM', 'ALL') });

function criteriaOf(count: number, level: string): string {
  return [
    `:set consecutiveCount=${count}`,
    `:set consistencyLevel=${level}`,
    "if (metric['code'] == '503') { return new AlarmStatus(CRITICAL, 'down #{code}'); }",
    "if (metric['code'] == '404') { return new AlarmStatus(WARNING, 'missing'); }",
    "return new AlarmStatus(OK, 'fine');",
  ].join('\n');
}

describe('AlarmRuntime against the pure fold', () => {
  let world: RuntimeWorld;

  beforeAll(() => {
    world = new RuntimeWorld();
  });
  afterAll(() => world.close());

  it('records the transitions of stepAlarm over evaluateCriteria, chained by previous_state, and queues the plan list of each notifying one', () => {
    let changes = 0;
    fc.assert(
      fc.property(settings, fc.array(observation, { minLength: 6, maxLength: 40 }), ({ count, level }, history) => {
        const tree = world.tree();
        const criteria = criteriaOf(count, level);
        const alarm = world.alarm(tree, criteria);
        const check = world.check(tree);
        // The pure fold: per-zone previous results, verdicts, consensus steps.
        const compiled = compileCriteria(criteria);
        const params = consensusParams(compiled, check.doc);
        let memory = emptyMemory(null);
        const previous = new Map<string, CheckResult>();
        const expected: AlarmTransition[] = [];
        let atMs = T0_MS;
        for (const step of history) {
          atMs += step.gapMs;
          const current = result(step.zone, atMs, step.code);
          const verdict = evaluateCriteria(compiled, current, previous.get(step.zone) ?? null);
          previous.set(step.zone, current);
          const next = stepAlarm(memory, { zoneId: step.zone, timestampMs: atMs, ...verdict }, params);
          memory = next.memory;
          if (next.transition !== null) expected.push(next.transition);
          world.runtime.observe('t1', check, current);
        }
        const recorded = world.changelog().filter((row) => row.alarmId === alarm);
        changes += recorded.length;
        expect(recorded.map((r) => [r.state, r.previousState, r.zoneId, r.timestampMs])).toEqual(expected.map((t) => [t.state, t.previousState, t.zoneId, t.timestampMs]));
        recorded.forEach((row, i) => expect(row.previousState).toBe(i === 0 ? null : recorded[i - 1]?.state));
        const plan = world.monitoring.notifications.plan('t1', tree.plan).doc;
        const queued = world.deliveries().filter((d) => d.alarmId === alarm);
        const wanted = expected.filter(changeNotifies).flatMap((t) => plan[planListOf(t.state)].map((id) => [id, t.state]));
        expect(queued.map((d) => [d.notificationId, d.state]).sort()).toEqual(wanted.sort());
        expect(world.runtime.states.get('t1', tree.entity, alarm)?.state).toBe(expected.at(-1)?.state);
      }),
      { numRuns: 60 },
    );
    expect(world.runtime.stats().errors).toBe(0);
    // The histories are not trivial: many changes were recorded across the runs.
    expect(changes).toBeGreaterThan(20);
  });
});
