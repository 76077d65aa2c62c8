// Properties of suppression log paging: walking next markers through any window returns exactly the tenant's entries in it, by (timestamp, id), each once.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';

const NOW = 1_750_000_000_000;

describe('suppression log paging', () => {
  let monitoring: MonitoringService;

  beforeAll(() => {
    monitoring = openMonitoring({ dir: undefined, clock: new ManualClock(NOW) });
  });
  afterAll(() => monitoring.close());

  it('pages of any size cover the window exactly, oldest first, ties by id', () => {
    let run = 0;
    fc.assert(
      fc.property(
        // Few distinct timestamps, so ties are common; two tenants.
        fc.array(fc.record({ offset: fc.integer({ min: 0, max: 12 }), tenant: fc.constantFrom('a', 'b') }), { maxLength: 40 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 1, max: 14 }),
        fc.integer({ min: 1, max: 7 }),
        (entries, from, span, limit) => {
          run += 1;
          const tenant = `a${run}`;
          const written = entries.map(({ offset, tenant: which }) => {
            const t = which === 'a' ? tenant : `b${run}`;
            const row = { timestampMs: NOW - 1000 + offset, entityId: 'enA', alarmId: 'alA', checkId: 'chA', planId: 'npA', suppressions: ['spA'], state: 'WARNING', previousState: 'OK', txnId: 'x' };
            return { tenant: t, timestampMs: row.timestampMs, id: monitoring.suppressions.appendLog(t, row) };
          });
          const window = { fromMs: NOW - 1000 + from, toMs: NOW - 1000 + from + span };
          const expected = written
            .filter((w) => w.tenant === tenant && w.timestampMs >= window.fromMs && w.timestampMs < window.toMs)
            .sort((x, y) => x.timestampMs - y.timestampMs || (x.id < y.id ? -1 : 1))
            .map((w) => w.id);
          const seen: string[] = [];
          let marker: string | undefined;
          for (let pages = 0; pages <= expected.length + 1; pages++) {
            const page = monitoring.suppressions.listLogs(tenant, { ...window, limit, ...(marker !== undefined ? { marker } : {}) });
            expect(page.values.length).toBeLessThanOrEqual(limit);
            seen.push(...page.values.map((row) => row.id));
            if (page.nextMarker === null) break;
            marker = page.nextMarker;
          }
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});
