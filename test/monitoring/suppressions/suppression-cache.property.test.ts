// Property of the suppression index kept in step with changes: after any sequence of creates, updates, deletes, prunes and reads, every answer equals that of an index loaded afresh from the table, and its entry count equals the table's target items.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { isStrataError } from '../../../src/core/errors.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import { SuppressionService } from '../../../src/monitoring/suppressions/suppression-service.js';

const T0 = Date.parse('2025-06-02T00:00:00Z');
const MINUTE_MS = 60_000;
const TENANTS = ['t1', 't2'] as const;
const TARGETS = [
  { entityId: 'enA' },
  { entityId: 'enB', checkId: 'chA' },
  { entityId: 'enA', checkId: 'chA', alarmId: 'alA', planId: 'npA' },
  { entityId: 'enB', checkId: 'chB', alarmId: 'alB', planId: 'npB' },
];

const lists = fc.record({
  entities: fc.subarray(['enA', 'enB']),
  checks: fc.subarray(['enA:chA', 'enB:chA', 'enB:chB']),
  alarms: fc.subarray(['enA:alA', 'enB:alB']),
  notification_plans: fc.subarray(['npA', 'npB']),
});
const tenant = fc.constantFrom(...TENANTS);
const pick = fc.nat({ max: 20 });
const command = fc.oneof(
  fc.record({ op: fc.constant('create' as const), tenant, lists, startMin: fc.integer({ min: 0, max: 90 }), spanMin: fc.integer({ min: 1, max: 120 }), recurring: fc.boolean() }),
  fc.record({ op: fc.constant('update' as const), tenant, pick, lists: fc.option(lists, { nil: undefined }), endMin: fc.integer({ min: 0, max: 200 }) }),
  fc.record({ op: fc.constant('remove' as const), tenant, pick }),
  fc.record({ op: fc.constant('prune' as const), cutMin: fc.integer({ min: 0, max: 200 }), max: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ op: fc.constant('read' as const), tenant }),
  fc.record({ op: fc.constant('advance' as const), minutes: fc.integer({ min: 1, max: 60 }) }),
);
type Command = typeof command extends fc.Arbitrary<infer C> ? C : never;

/** Runs a command; refusals by the rules (a started suppression's lists, a missing id) are part of the game. */
function run(service: SuppressionService, clock: ManualClock, made: Record<string, string[]>, c: Command): void {
  try {
    if (c.op === 'create') {
      const start = c.startMin === 0 ? 0 : clock.now() + c.startMin * MINUTE_MS;
      const recurrence = c.recurring ? { schedule: '*/10 * * * *', duration: 5 * MINUTE_MS } : null;
      (made[c.tenant] ??= []).push(service.create(c.tenant, { ...c.lists, entities: [...c.lists.entities, 'enZ'], start_time: start, end_time: clock.now() + (c.startMin + c.spanMin) * MINUTE_MS, recurrence }));
    } else if (c.op === 'update') {
      const id = made[c.tenant]?.[c.pick % Math.max(1, made[c.tenant]?.length ?? 1)] ?? 'spNone';
      service.update(c.tenant, id, { ...(c.lists ?? {}), end_time: clock.now() + c.endMin * MINUTE_MS });
    } else if (c.op === 'remove') {
      service.remove(c.tenant, made[c.tenant]?.[c.pick % Math.max(1, made[c.tenant]?.length ?? 1)] ?? 'spNone');
    } else if (c.op === 'prune') {
      service.pruneEnded(T0 + c.cutMin * MINUTE_MS, c.max);
    } else if (c.op === 'read') {
      service.activeAt(c.tenant, TARGETS[2] as Required<(typeof TARGETS)[2]>, clock.now());
    } else {
      clock.advance(c.minutes * MINUTE_MS);
    }
  } catch (error) {
    if (!isStrataError(error)) throw error;
  }
}

describe('suppression index kept in step', () => {
  let monitoring: MonitoringService | undefined;
  afterEach(() => monitoring?.close());

  it('answers as an index loaded afresh, after any sequence of changes', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
        monitoring?.close();
        const clock = new ManualClock(T0);
        monitoring = openMonitoring({ dir: undefined, clock });
        const live = monitoring.suppressions;
        const made: Record<string, string[]> = {};
        for (const c of commands) run(live, clock, made, c);
        const fresh = new SuppressionService({ store: monitoring.store, clock, limits: monitoring.limits });
        const sumSql =
          "SELECT coalesce(sum(json_array_length(doc, '$.entities') + json_array_length(doc, '$.checks') + json_array_length(doc, '$.alarms') + json_array_length(doc, '$.notification_plans')), 0) AS n FROM mon_suppression WHERE tenant = ?";
        for (const t of TENANTS) {
          for (const target of TARGETS) {
            for (const offsetMin of [-30, 0, 7, 45, 150]) {
              const at = clock.now() + offsetMin * MINUTE_MS;
              expect(live.idsOf(t, target, at)).toEqual(fresh.idsOf(t, target, at));
              expect(live.activeAt(t, target, at)).toEqual(fresh.activeAt(t, target, at));
            }
          }
          expect(live.targetEntries(t)).toBe((monitoring.store.db.prepare(sumSql).get(t) as { n: number }).n);
        }
      }),
      { numRuns: 60 },
    );
  });
});
