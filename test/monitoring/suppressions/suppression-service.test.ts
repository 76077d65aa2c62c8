// Checks the suppression service over a real in-memory monitoring file: CRUD, coverage by entity, check, alarm and plan at a time, record ids, the cache, logs and pruning.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { limitReached } from '../../../src/monitoring/monitoring-errors.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import { SuppressionCache } from '../../../src/monitoring/suppressions/suppression-cache.js';
import type { SuppressionLogRow } from '../../../src/monitoring/suppressions/suppression-service.js';

const T0 = Date.parse('2025-06-02T00:00:00Z'); // a Monday
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const ALARM = { entityId: 'enA', checkId: 'chA', alarmId: 'alA', planId: 'npA' } as const;

describe('SuppressionService', () => {
  let clock: ManualClock;
  let monitoring: MonitoringService;

  beforeEach(() => {
    clock = new ManualClock(T0);
    monitoring = openMonitoring({ dir: undefined, clock });
  });
  afterEach(() => monitoring.close());

  const service = (): MonitoringService['suppressions'] => monitoring.suppressions;

  it('creates, reads, lists by id, updates and deletes; another tenant sees none of it', () => {
    const id = service().create('t1', { label: 'reboot', end_time: T0 + HOUR_MS, entities: ['enA', 'enA'] });
    expect(id).toMatch(/^sp[A-Za-z0-9]{8}$/);
    const got = service().suppression('t1', id);
    expect(got.doc).toEqual({ label: 'reboot', start_time: T0, end_time: T0 + HOUR_MS, entities: ['enA'], checks: [], alarms: [], notification_plans: [], recurrence: null });
    expect([got.createdMs, got.updatedMs]).toEqual([T0, T0]);
    const ids = [id, service().create('t1', { end_time: T0 + HOUR_MS, notification_plans: ['npA'] }), service().create('t1', { end_time: T0 + HOUR_MS, checks: ['enA:chA'] })].sort();
    const first = service().list('t1', { limit: 2 });
    expect(first.values.map((s) => s.id)).toEqual(ids.slice(0, 2));
    expect(first.nextMarker).toBe(ids[2]);
    expect(service().list('t1', { limit: 2, marker: ids[2] as string }).values.map((s) => s.id)).toEqual([ids[2]]);
    expect(service().list('t2', { limit: 10 }).values).toEqual([]);
    expect(() => service().suppression('t2', id)).toThrow(expect.objectContaining({ code: 'MONITORING_OBJECT_NOT_FOUND' }));
    clock.advance(1000);
    service().update('t1', id, { end_time: T0 + 2 * HOUR_MS });
    expect(service().suppression('t1', id)).toMatchObject({ updatedMs: T0 + 1000, doc: { end_time: T0 + 2 * HOUR_MS } });
    expect(() => service().update('t1', id, { entities: ['enB'] })).toThrow(expect.objectContaining({ details: expect.objectContaining({ key: 'entities' }) }));
    expect(() => service().remove('t2', id)).toThrow(expect.objectContaining({ code: 'MONITORING_OBJECT_NOT_FOUND' }));
    service().remove('t1', id);
    expect(() => service().suppression('t1', id)).toThrow(expect.objectContaining({ code: 'MONITORING_OBJECT_NOT_FOUND' }));
    expect(() => service().update('t1', id, { end_time: 0 })).toThrow(expect.objectContaining({ code: 'MONITORING_OBJECT_NOT_FOUND' }));
    expect(service().count('t1')).toBe(2);
  });

  it('asks the account limits inside the create transaction; a refusal stores nothing', () => {
    const seen: boolean[] = [];
    const spy = vi.spyOn(monitoring.limits, 'ensureRoom').mockImplementation((tenant, resource) => {
      expect([tenant, resource]).toEqual(['t1', 'suppressions']);
      seen.push(monitoring.store.db.inTransaction);
      if (seen.length > 1) throw limitReached('suppressions', 1);
    });
    service().create('t1', { end_time: T0 + HOUR_MS, entities: ['enA'] });
    expect(() => service().create('t1', { end_time: T0 + HOUR_MS, entities: ['enB'] })).toThrow(expect.objectContaining({ code: 'MONITORING_LIMIT_REACHED' }));
    expect(seen).toEqual([true, true]);
    expect(service().count('t1')).toBe(1);
    expect(service().activeAt('t1', { entityId: 'enB' }, T0)).toEqual([]);
    spy.mockRestore();
  });

  it('covers an alarm change through its entity, its check, itself or its plan, at the change time, and nothing else', () => {
    const byEntity = service().create('t1', { end_time: T0 + HOUR_MS, entities: ['enA'] });
    const byCheck = service().create('t1', { start_time: T0 + HOUR_MS, end_time: T0 + 2 * HOUR_MS, checks: ['enA:chA'] });
    const byAlarm = service().create('t1', { end_time: T0 + 3 * HOUR_MS, alarms: ['enA:alA'] });
    const byPlan = service().create('t1', { end_time: T0 + 3 * HOUR_MS, notification_plans: ['npA'] });
    service().create('t1', { end_time: T0 + 3 * HOUR_MS, entities: ['enB'], checks: ['enB:chA'], alarms: ['enB:alA'] });
    expect(service().activeAt('t1', ALARM, T0)).toEqual([byEntity, byAlarm, byPlan].sort());
    expect(service().activeAt('t1', ALARM, T0 + HOUR_MS)).toEqual([byCheck, byAlarm, byPlan].sort());
    expect(service().activeAt('t1', ALARM, T0 + 3 * HOUR_MS)).toEqual([]);
    expect(service().activeAt('t1', { ...ALARM, planId: 'npOther' }, T0 + 2 * HOUR_MS)).toEqual([byAlarm]);
    expect(service().activeAt('t1', { entityId: 'enA', checkId: 'chB', alarmId: 'alB', planId: 'npB' }, T0 + HOUR_MS)).toEqual([]);
    expect(service().activeAt('t2', ALARM, T0)).toEqual([]);
  });

  it('records carry active and scheduled ids: an entity counts its entity, a check its entity or itself, an alarm all four', () => {
    const later = service().create('t1', { start_time: T0 + HOUR_MS, end_time: T0 + 2 * HOUR_MS, entities: ['enA'] });
    const now = service().create('t1', { end_time: T0 + HOUR_MS, checks: ['enA:chA'] });
    const plan = service().create('t1', { end_time: T0 + HOUR_MS, notification_plans: ['npA'] });
    expect(service().idsOf('t1', { entityId: 'enA' }, T0)).toEqual({ active: [], scheduled: [later] });
    expect(service().idsOf('t1', { entityId: 'enA', checkId: 'chA' }, T0)).toEqual({ active: [now], scheduled: [later] });
    expect(service().idsOf('t1', ALARM, T0)).toEqual({ active: [now, plan].sort(), scheduled: [later] });
    expect(service().idsOf('t1', ALARM, T0 + HOUR_MS)).toEqual({ active: [later], scheduled: [] });
    expect(service().eventIds('t1', ALARM, T0)).toEqual({
      entity: { active: [], scheduled: [later] },
      check: { active: [now], scheduled: [later] },
      alarm: { active: [now, plan].sort(), scheduled: [later] },
    });
  });

  it('a recurring suppression is active during its occurrences only, and scheduled while one is still to come', () => {
    // Mondays 01:00–03:00 UTC for two weeks from T0 (Monday 00:00).
    const id = service().create('t1', { end_time: T0 + 14 * DAY_MS, entities: ['enA'], recurrence: { schedule: '0 1 * * MON', duration: 2 * HOUR_MS } });
    expect(service().suppression('t1', id).doc.recurrence).toEqual({ schedule: '0 1 * * MON', time_zone: 'UTC', duration: 2 * HOUR_MS });
    const at = (offsetMs: number): string[] => [...service().activeAt('t1', ALARM, T0 + offsetMs)];
    expect([at(0), at(HOUR_MS), at(3 * HOUR_MS - 1), at(3 * HOUR_MS), at(7 * DAY_MS + HOUR_MS), at(14 * DAY_MS + HOUR_MS)]).toEqual([[], [id], [id], [], [id], []]);
    expect(service().idsOf('t1', { entityId: 'enA' }, T0 + HOUR_MS)).toEqual({ active: [id], scheduled: [id] });
    expect(service().idsOf('t1', { entityId: 'enA' }, T0 + 7 * DAY_MS + HOUR_MS)).toEqual({ active: [id], scheduled: [] });
    // Nothing is covered at or after end_time: ending it now cuts the running occurrence at once.
    clock.advance(7 * DAY_MS + HOUR_MS);
    service().update('t1', id, { end_time: 0 });
    expect(service().idsOf('t1', { entityId: 'enA' }, T0 + 7 * DAY_MS + HOUR_MS)).toEqual({ active: [], scheduled: [] });
  });

  it('a recurring suppression whose start falls inside an occurrence covers the rest of it at once', () => {
    // Daily 23:00–02:00 UTC created at T0 (00:00): the occurrence that began at 23:00 the day before covers 00:00–02:00.
    const id = service().create('t1', { end_time: T0 + 2 * DAY_MS, entities: ['enA'], recurrence: { schedule: '0 23 * * *', duration: 3 * HOUR_MS } });
    const at = (offsetMs: number): string[] => [...service().activeAt('t1', ALARM, T0 + offsetMs)];
    expect([at(-1), at(0), at(2 * HOUR_MS - 1), at(2 * HOUR_MS), at(23 * HOUR_MS), at(2 * DAY_MS - 1), at(2 * DAY_MS)]).toEqual([[], [id], [id], [], [id], [id], []]);
  });

  it('drops a tenant from the cache on every change, so reads see creates, updates and deletes at once', () => {
    expect(service().activeAt('t1', ALARM, T0)).toEqual([]);
    const id = service().create('t1', { end_time: T0 + HOUR_MS, entities: ['enA'] });
    expect(service().activeAt('t1', ALARM, T0 + 30 * 60_000)).toEqual([id]);
    service().update('t1', id, { end_time: T0 + 10 * 60_000 });
    expect(service().activeAt('t1', ALARM, T0 + 30 * 60_000)).toEqual([]);
    const failed = (): void => service().update('t1', id, { entities: ['enB'] });
    expect(failed).toThrow();
    expect(service().activeAt('t1', ALARM, T0)).toEqual([id]);
    service().remove('t1', id);
    expect(service().activeAt('t1', ALARM, T0)).toEqual([]);
  });

  it('keeps at most its bound of tenants, dropping the least recently used', () => {
    const loads: string[] = [];
    const cache = new SuppressionCache((tenant) => (loads.push(tenant), []), 2);
    cache.of('a');
    cache.of('b');
    cache.of('a');
    cache.of('c');
    expect(cache.size).toBe(2);
    cache.of('a');
    cache.of('b');
    expect(loads).toEqual(['a', 'b', 'c', 'b']);
  });

  const log = (timestampMs: number, extra: Partial<SuppressionLogRow> = {}): Omit<SuppressionLogRow, 'id'> => ({
    timestampMs,
    entityId: 'enA',
    alarmId: 'alA',
    checkId: 'chA',
    planId: 'npA',
    suppressions: ['spA'],
    state: 'CRITICAL',
    previousState: 'OK',
    txnId: `txn-${timestampMs}`,
    ...extra,
  });

  it('appends logs and lists them as a time series: 7 days by default, oldest first, paged by entry id', () => {
    const old = service().appendLog('t1', log(T0 - 8 * DAY_MS));
    const a = service().appendLog('t1', log(T0 - DAY_MS));
    const b = service().appendLog('t1', log(T0 - DAY_MS));
    const c = service().appendLog('t1', log(T0 - HOUR_MS, { previousState: null, suppressions: ['spA', 'spB'] }));
    service().appendLog('t2', log(T0 - HOUR_MS));
    expect(old).toMatch(/^[0-9a-f-]{36}$/);
    const all = service().listLogs('t1', { limit: 10 });
    const tied = [a, b].sort();
    expect(all.values.map((row) => row.id)).toEqual([...tied, c]);
    expect(all.values[2]).toEqual({ id: c, ...log(T0 - HOUR_MS, { previousState: null, suppressions: ['spA', 'spB'] }) });
    const first = service().listLogs('t1', { limit: 1 });
    expect(first.nextMarker).toBe(tied[1]);
    expect(service().listLogs('t1', { limit: 5, marker: tied[1] as string }).values.map((row) => row.id)).toEqual([tied[1], c]);
    expect(service().listLogs('t1', { limit: 5, fromMs: T0 - 9 * DAY_MS, toMs: T0 - DAY_MS }).values.map((row) => row.id)).toEqual([old]);
    expect(service().listLogs('t1', { limit: 5, marker: 'no-such-entry' }).values).toEqual([]);
    expect(service().listLogs('t2', { limit: 5, marker: c }).values).toEqual([]);
    expect(() => service().listLogs('t1', { limit: 5, fromMs: T0, toMs: T0 })).toThrow(expect.objectContaining({ details: expect.objectContaining({ key: 'from' }) }));
  });

  it('prunes logs older than a time, oldest first, at most the batch asked for, across tenants', () => {
    for (let i = 0; i < 5; i++) service().appendLog(i % 2 === 0 ? 't1' : 't2', log(T0 - (10 - i) * DAY_MS));
    service().appendLog('t1', log(T0));
    expect(service().pruneLogs(T0 - 6 * DAY_MS, 2)).toBe(2);
    expect(service().pruneLogs(T0 - 6 * DAY_MS, 10)).toBe(2);
    expect(service().pruneLogs(T0 - 6 * DAY_MS, 10)).toBe(0);
    const left = [...service().listLogs('t1', { limit: 10, fromMs: 0, toMs: T0 + 1 }).values, ...service().listLogs('t2', { limit: 10, fromMs: 0, toMs: T0 + 1 }).values];
    expect(left.map((row) => row.timestampMs).sort()).toEqual([T0 - 6 * DAY_MS, T0]);
  });
});
