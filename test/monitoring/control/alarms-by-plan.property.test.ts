// Property test of the alarmsByNp paging rule: walking the pages of any plan with any page size yields each of its alarms once, by id, and no other tenant's or plan's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlarmDoc } from '../../../src/monitoring/alarm-rules.js';
import { AlarmsByPlan } from '../../../src/monitoring/control/alarms-by-plan.js';
import { MonitoringStore } from '../../../src/monitoring/monitoring-store.js';

const NOW_MS = 1_790_000_000_000;

/** One stored alarm: who owns it and which plan it uses. */
const alarm = fc.record({
  tenant: fc.constantFrom('t1', 't2'),
  entityId: fc.constantFrom('enA', 'enB', 'enZ'),
  id: fc.stringMatching(/^al[A-Za-z0-9]{1,4}$/),
  planId: fc.constantFrom('npA', 'npB'),
});

describe('AlarmsByPlan paging (property)', () => {
  it('walks each plan of each tenant exactly once, sorted by id, whatever the page size and the first marker', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(alarm, { selector: (a) => `${a.tenant}/${a.id}`, maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        fc.option(fc.stringMatching(/^al[A-Za-z0-9]{0,3}$/), { nil: undefined }),
        (alarms, limit, start) => {
          const store = new MonitoringStore(undefined);
          try {
            for (const a of alarms) {
              const doc: AlarmDoc = { check_id: 'chA', notification_plan_id: a.planId, criteria: null, label: null, disabled: false, metadata: null };
              store.docs.insert('mon_alarm', { tenant: a.tenant, entityId: a.entityId }, a.id, doc, NOW_MS, { checkId: 'chA', planId: a.planId });
            }
            const view = new AlarmsByPlan({ db: store.db, plan: () => undefined });
            for (const tenant of ['t1', 't2']) {
              for (const planId of ['npA', 'npB']) {
                const expected = alarms
                  .filter((a) => a.tenant === tenant && a.planId === planId && (start === undefined || a.id >= start))
                  .map((a) => a.id)
                  .sort();
                const walked: string[] = [];
                let marker = start;
                for (let pages = 0; pages <= alarms.length + 1; pages++) {
                  const page = view.page(tenant, planId, marker === undefined ? { limit } : { limit, marker });
                  expect(page.values.length).toBeLessThanOrEqual(limit);
                  walked.push(...page.values.map((a) => a.id));
                  if (page.nextMarker === null) break;
                  expect(page.values.length).toBe(limit);
                  marker = page.nextMarker;
                }
                expect(walked).toEqual(expected);
              }
            }
          } finally {
            store.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
