// Checks the audit trail over a real monitoring file: pages walked by marker give every record of the window once, in (timestamp, id) order, per tenant; pruning is bounded and oldest first.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { DAY_MS } from '../../../src/core/time.js';
import { AUDIT_PRUNE_SQL } from '../../../src/monitoring/audits/audit-store.js';
import type { AuditInput } from '../../../src/monitoring/audits/audit-record.js';
import { resolveAuditRetention } from '../../../src/monitoring/audits/audit-service.js';
import { AUDIT_RETENTION_MS_DEFAULT, AUDIT_RETENTION_MS_MAX, AUDIT_RETENTION_MS_MIN } from '../../../src/monitoring/monitoring-limits.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';

const START_MS = 1_790_000_000_000;
let opened: MonitoringService | undefined;
afterEach(() => opened?.close());

function input(n: number): AuditInput {
  return { method: 'POST', url: `/monitoring/v1.0/t1/entities?n=${n}`, app: 'entities', status: 201, user: 'alice', tokenId: null, requestId: `txn-${n}`, headers: {}, body: { label: `e${n}` } };
}

/** Records one request per gap (ms after the one before) for tenant t1 (t2 at odd positions); returns t1's ids with their times. */
function fill(m: MonitoringService, clock: ManualClock, gaps: readonly number[]): { id: string; timestampMs: number }[] {
  const mine: { id: string; timestampMs: number }[] = [];
  gaps.forEach((gap, n) => {
    clock.advance(gap);
    const tenant = n % 3 === 1 ? 't2' : 't1';
    const id = m.audits.record(tenant, input(n));
    if (tenant === 't1') mine.push({ id, timestampMs: clock.now() });
  });
  return mine;
}

describe('audit trail', () => {
  it('walking the pages by marker gives each record of the window once, in (timestamp, id) order, and only the tenant’s', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 40 }), fc.integer({ min: 1, max: 7 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 60 }), (gaps, limit, fromOffset, span) => {
        const clock = new ManualClock(START_MS);
        opened?.close();
        opened = openMonitoring({ dir: undefined, clock });
        const mine = fill(opened, clock, gaps);
        const fromMs = START_MS + fromOffset;
        const toMs = fromMs + span;
        const expected = mine.filter((r) => r.timestampMs >= fromMs && r.timestampMs < toMs).sort((a, b) => a.timestampMs - b.timestampMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        const seen: string[] = [];
        let marker: string | undefined;
        for (let pages = 0; pages <= expected.length + 1; pages++) {
          const page = opened.audits.list('t1', { fromMs, toMs, limit, ...(marker !== undefined ? { marker } : {}) });
          expect(page.values.length).toBeLessThanOrEqual(limit);
          seen.push(...page.values.map((row) => row.id));
          if (page.nextMarker === null) break;
          marker = page.nextMarker;
        }
        expect(seen).toEqual(expected.map((r) => r.id));
      }),
      { numRuns: 60 },
    );
  });

  it("answers an empty page for a marker of no record of the tenant (another tenant's too)", () => {
    const clock = new ManualClock(START_MS);
    opened = openMonitoring({ dir: undefined, clock });
    const theirs = opened.audits.record('t2', input(1));
    opened.audits.record('t1', input(2));
    // The default window ends now, exclusive: a record of this very millisecond is listed from the next one.
    clock.advance(1);
    expect(opened.audits.list('t1', { limit: 10, marker: theirs }).values).toEqual([]);
    expect(opened.audits.list('t1', { limit: 10, marker: 'nope' }).values).toEqual([]);
    expect(opened.audits.list('t1', { limit: 10 }).values).toHaveLength(1);
  });

  it('lists the last 7 days by default and refuses a window that is empty or reversed', () => {
    const clock = new ManualClock(START_MS);
    opened = openMonitoring({ dir: undefined, clock });
    opened.audits.record('t1', input(1));
    // A record of the request's own millisecond is in the default window: it ends just after now.
    expect(opened.audits.list('t1', { limit: 10 }).values).toHaveLength(1);
    clock.advance(7 * DAY_MS - 1);
    expect(opened.audits.window({})).toEqual({ fromMs: START_MS, toMs: START_MS + 7 * DAY_MS });
    expect(opened.audits.list('t1', { limit: 10 }).values).toHaveLength(1);
    clock.advance(1);
    expect(opened.audits.list('t1', { limit: 10 }).values).toHaveLength(0);
    expect(() => opened?.audits.list('t1', { limit: 10, fromMs: 5, toMs: 5 })).toThrow(expect.objectContaining({ code: 'MONITORING_FIELD_INVALID', details: expect.objectContaining({ key: 'from' }) }));
  });

  it('prunes at most a batch of records older than the cut, of every tenant, oldest first', () => {
    const clock = new ManualClock(START_MS);
    opened = openMonitoring({ dir: undefined, clock });
    const ids = fill(opened, clock, Array.from({ length: 12 }, () => 10));
    const cut = START_MS + 95;
    // Nine records (of t1 and t2) lie before the cut: 10, 20, ..., 90.
    expect(opened.audits.prune(cut, 4)).toBe(4);
    expect(opened.audits.prune(cut, 4)).toBe(4);
    expect(opened.audits.prune(cut, 4)).toBe(1);
    expect(opened.audits.prune(cut, 4)).toBe(0);
    const left = opened.audits.list('t1', { limit: 100, fromMs: 0, toMs: START_MS + DAY_MS }).values.map((row) => row.id);
    expect(left).toEqual(ids.filter((r) => r.timestampMs >= cut).map((r) => r.id));
  });

  it('pages and prunes through the indexes made for them', () => {
    opened = openMonitoring({ dir: undefined, clock: new ManualClock(START_MS) });
    const detail = (sql: string, ...params: unknown[]): string => (opened?.store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join(' | ');
    expect(detail(AUDIT_PRUNE_SQL, 1, 10)).toMatch(/mon_audit_age/);
    expect(detail('SELECT id FROM mon_audit WHERE tenant = ? AND timestamp_ms >= ? AND timestamp_ms < ? AND (timestamp_ms > ? OR (timestamp_ms = ? AND id >= ?)) ORDER BY timestamp_ms, id LIMIT ?', 't', 0, 1, 0, 0, '', 5)).toMatch(
      /SEARCH mon_audit USING (COVERING )?INDEX mon_audit_time/,
    );
  });

  it('keeps records 30 days by default; a retention outside 1 hour..366 days is CONFIG_INVALID', () => {
    expect(resolveAuditRetention(undefined)).toBe(AUDIT_RETENTION_MS_DEFAULT);
    expect(AUDIT_RETENTION_MS_DEFAULT).toBe(30 * DAY_MS);
    for (const bad of [AUDIT_RETENTION_MS_MIN - 1, AUDIT_RETENTION_MS_MAX + 1, 1.5]) expect(() => resolveAuditRetention(bad)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    opened = openMonitoring({ dir: undefined, clock: new ManualClock(START_MS), auditRetentionMs: DAY_MS });
    expect(opened.audits.retentionMs).toBe(DAY_MS);
  });
});
