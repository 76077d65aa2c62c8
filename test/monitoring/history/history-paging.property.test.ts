// Checks the history's window and paging rules for any records: walking the pages by marker yields exactly the scope's records in [from, to), ordered by (timestamp, id), each once.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryRecord } from '../../../src/monitoring/history/notification-history.js';
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
});
