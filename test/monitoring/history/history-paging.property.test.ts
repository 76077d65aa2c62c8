// Checks the history's window and paging rules for any records: walking the pages by marker yields exactly the scope's records in [from, to), ordered by (timestamp, id), each once, whatever the page size and row budget; and the row budget rule on its own.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetedPage } from '../../../src/monitoring/history/history-page.js';
import { listRowsOf, NotificationHistory, type HistoryRecord } from '../../../src/monitoring/history/notification-history.js';
import { HistoryWorld, NOW_MS, record } from './history-world.js';

const SCOPE = { entityId: 'enA', alarmId: 'alA', checkId: 'chA' };

/** Records with colliding timestamps and ids in and out of the scope. */
const records = fc.uniqueArray(
  fc.record({
    id: fc.stringMatching(/^[0-9a-f]{1,6}$/),
    offsetMs: fc.integer({ min: 0, max: 40 }),
    checkId: fc.constantFrom('chA', 'chA', 'chB'),
    tenant: fc.constantFrom('t1', 't1', 't2'),
  }),
  { selector: (r) => `${r.tenant}/${r.id}`, maxLength: 40 },
);

describe('notification history paging', () => {
  let world: HistoryWorld;
  let run = 0;

  beforeAll(() => {
    world = new HistoryWorld();
  });
  afterAll(() => world.close());

  it('walks every record of the window exactly once, in (timestamp, id) order, whatever the page size', () => {
    fc.assert(
      fc.property(records, fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 41 }), fc.integer({ min: 1, max: 7 }), (rows, from, span, limit) => {
        // Each run writes under its own alarm and id prefix (ids are unique per tenant), so runs never see each other's records.
        run += 1;
        const alarmId = `al${run}`;
        const scope = { ...SCOPE, alarmId };
        const written: (HistoryRecord & { tenant: string })[] = rows.map((r) => ({ ...record(`${run}-${r.id}`, NOW_MS + r.offsetMs, { alarmId, checkId: r.checkId }), tenant: r.tenant }));
        for (const row of written) world.add(row.tenant, row);
        const fromMs = NOW_MS + from;
        const toMs = fromMs + span;
        const expected = written
          .filter((r) => r.tenant === 't1' && r.checkId === 'chA' && r.timestampMs >= fromMs && r.timestampMs < toMs)
          .sort((a, b) => a.timestampMs - b.timestampMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .map((r) => r.id);
        const seen: string[] = [];
        let marker: string | undefined;
        for (let pages = 0; pages <= expected.length + 1; pages++) {
          const page = world.monitoring.history.list('t1', scope, { limit, fromMs, toMs, ...(marker !== undefined ? { marker } : {}) });
          expect(page.values.length).toBeLessThanOrEqual(limit);
          seen.push(...page.values.map((entry) => entry.record.id));
          if (page.nextMarker === null) break;
          marker = page.nextMarker;
        }
        expect(seen).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  it('walks every record exactly once under any row budget, each page within the budget unless it holds one record', () => {
    const budgeted = fc.array(fc.record({ id: fc.stringMatching(/^[0-9a-f]{1,6}$/), offsetMs: fc.integer({ min: 0, max: 20 }), deliveries: fc.integer({ min: 0, max: 6 }) }), { maxLength: 30 });
    fc.assert(
      fc.property(budgeted, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 120 }), (rows, limit, pageRowsMax) => {
        run += 1;
        const alarmId = `al${run}`;
        const scope = { ...SCOPE, alarmId };
        const unique = [...new Map(rows.map((r) => [r.id, r])).values()];
        const written = unique.map((r) => record(`${run}-${r.id}`, NOW_MS + r.offsetMs, { alarmId, outboxIds: Array.from({ length: r.deliveries }, (_, i) => `dl${i}`) }));
        world.add('t1', ...written);
        const history = new NotificationHistory({ store: world.monitoring.store, clock: world.clock, pageRowsMax });
        const expected = [...written].sort((a, b) => a.timestampMs - b.timestampMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((r) => r.id);
        const seen: string[] = [];
        let marker: string | undefined;
        for (let pages = 0; pages <= expected.length + 1; pages++) {
          const page = history.list('t1', scope, { limit, fromMs: NOW_MS, toMs: NOW_MS + 21, ...(marker !== undefined ? { marker } : {}) });
          expect(page.values.length).toBeLessThanOrEqual(limit);
          if (page.values.length > 1) expect(page.values.reduce((sum, entry) => sum + listRowsOf(entry.record), 0)).toBeLessThanOrEqual(pageRowsMax);
          seen.push(...page.values.map((entry) => entry.record.id));
          if (page.nextMarker === null) break;
          expect(page.values.length).toBeGreaterThan(0);
          marker = page.nextMarker;
        }
        expect(seen).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  it('budgetedPage takes the longest prefix within the limit and budget (at least one row), and names the first row left out', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 50 }), { maxLength: 15 }), fc.integer({ min: 1, max: 15 }), fc.nat({ max: 120 }), (costs, limit, budget) => {
        const rows = costs.slice(0, limit + 1).map((cost, i) => ({ id: `r${i}`, cost }));
        const page = budgetedPage(rows, limit, budget, (row) => row.cost, (row) => row.id);
        const n = page.values.length;
        expect(page.values).toEqual(rows.slice(0, n));
        expect(page.nextMarker).toBe(rows[n]?.id ?? null);
        if (rows.length > 0) expect(n).toBeGreaterThan(0);
        expect(n).toBeLessThanOrEqual(limit);
        const spent = page.values.reduce((sum, row) => sum + row.cost, 0);
        if (n > 1) expect(spent).toBeLessThanOrEqual(budget);
        // Maximal: one more row would pass the limit or the budget.
        if (n < rows.length) expect(n === limit || spent + (rows[n]?.cost ?? 0) > budget).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
