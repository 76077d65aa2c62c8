// Tests of AlarmBacktests over a real engine: the notifications each change would send (plan lists, the silent first OK, suppressions at the change's time), unsaved criteria, bounds, retention, zones and the in-flight slots.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DAY_MS } from '../../../src/core/time.js';
import { BacktestSlots } from '../../../src/monitoring/backtest/backtest-slots.js';
import type { CheckResult } from '../../../src/monitoring/check-result.js';
import { BacktestWorld, NOW_MS, T0_MS, TENANT } from './backtest-world.js';

const DOWN = "if (metric['code'] != '200') { return new AlarmStatus(CRITICAL, 'HTTP #{code}'); } if (metric['code'] == '200') { return new AlarmStatus(OK, 'fine'); }";

let world: BacktestWorld;
beforeEach(async () => {
  world = await BacktestWorld.open();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await world.close();
});

const code = (zone: string, t: number, value: string): CheckResult => ({ monitoringZoneId: zone, timestampMs: t, available: true, status: `code=${value}`, metrics: { code: { type: 's', data: value, unit: 'unknown' } } });

/** An entity with a remote check from one zone, a plan (critical and ok notify, warning lists nobody) and an alarm; the codes fed one a minute from T0. */
async function setup(codes: readonly string[], criteria: string | null = DOWN, zones: readonly string[] = ['mzdfw']) {
  const m = world.monitoring;
  const entityId = world.entity();
  const checkId = world.remoteCheck(entityId, zones);
  const hook = m.notifications.createNotification(TENANT, { label: 'hook', type: 'webhook', details: { url: 'https://hooks.example.com/a' } });
  const mail = m.notifications.createNotification(TENANT, { label: 'mail', type: 'email', details: { address: 'ops@example.com' } });
  const plan = m.notifications.createPlan(TENANT, { label: 'p', critical_state: [hook, mail], ok_state: [hook], warning_state: [] });
  const alarmId = world.alarm(entityId, checkId, plan, criteria);
  await world.feed(entityId, checkId, codes.flatMap((c, i) => zones.map((zone) => code(zone, T0_MS + i * 60_000, c))));
  return { entityId, checkId, hook, mail, plan, alarmId };
}

describe('AlarmBacktests', () => {
  it('lists each change with what the plan would have sent: nothing for the first OK, the critical and ok lists after', async () => {
    const { entityId, alarmId, hook, mail } = await setup(['200', '200', '500', '500', '200']);
    const report = await world.backtests().ofAlarm(TENANT, entityId, alarmId, { fromMs: T0_MS, toMs: T0_MS + 3_600_000 });
    expect(report.changes).toEqual([
      { timestampMs: T0_MS, state: 'OK', previousState: null, status: 'fine', zoneId: 'mzdfw', notificationStatus: 'silent', notifications: [], suppressedBy: [] },
      {
        timestampMs: T0_MS + 120_000,
        state: 'CRITICAL',
        previousState: 'OK',
        status: 'HTTP 500',
        zoneId: 'mzdfw',
        notificationStatus: 'notified',
        notifications: [
          { id: hook, type: 'webhook' },
          { id: mail, type: 'email' },
        ],
        suppressedBy: [],
      },
      { timestampMs: T0_MS + 240_000, state: 'OK', previousState: 'CRITICAL', status: 'fine', zoneId: 'mzdfw', notificationStatus: 'notified', notifications: [{ id: hook, type: 'webhook' }], suppressedBy: [] },
    ]);
    expect(report.totals).toEqual({ OK: 2, WARNING: 0, CRITICAL: 1, observations: 5 });
    expect(report.replayed).toEqual({ fromMs: T0_MS, toMs: T0_MS + 3_600_000 });
    expect(report.unreplayed).toEqual([]);
  });

  it('asks the suppressions at each change time (not now) for the entity, check, alarm and plan; a covered change notifies nobody', async () => {
    const { entityId, checkId, alarmId, plan } = await setup(['500', '200', '500']);
    const activeAt = vi.spyOn(world.monitoring.suppressions, 'activeAt').mockImplementation((_tenant, _target, atMs) => (atMs >= T0_MS + 60_000 ? ['spMaint'] : []));
    const report = await world.backtests().ofAlarm(TENANT, entityId, alarmId, { fromMs: T0_MS, toMs: T0_MS + 600_000 });
    expect(report.changes.map((c) => [c.state, c.notificationStatus, c.notifications.length, c.suppressedBy])).toEqual([
      ['CRITICAL', 'notified', 2, []],
      ['OK', 'suppressed', 0, ['spMaint']],
      ['CRITICAL', 'suppressed', 0, ['spMaint']],
    ]);
    expect(activeAt.mock.calls.map((call) => call[2])).toEqual([T0_MS, T0_MS + 60_000, T0_MS + 120_000]);
    expect(activeAt.mock.calls[0]?.[1]).toEqual({ entityId, checkId, alarmId, planId: plan });
  });

  it('a change into a state whose plan list is empty notifies nobody (none)', async () => {
    const warn = "if (metric['code'] == '404') { return new AlarmStatus(WARNING, 'missing'); } return new AlarmStatus(OK);";
    const { entityId, alarmId } = await setup(['200', '404'], warn);
    const report = await world.backtests().ofAlarm(TENANT, entityId, alarmId, { fromMs: T0_MS, toMs: T0_MS + 600_000 });
    expect(report.changes.map((c) => [c.state, c.notificationStatus])).toEqual([
      ['OK', 'silent'],
      ['WARNING', 'none'],
    ]);
  });

  it('replays a disabled alarm, and unsaved criteria over a check (no plan: nothing notified); counts consecutiveCount', async () => {
    const { entityId, checkId, alarmId } = await setup(['200', '500', '500', '200']);
    world.monitoring.entities.updateAlarm(TENANT, entityId, alarmId, { disabled: true });
    expect((await world.backtests().ofAlarm(TENANT, entityId, alarmId, { fromMs: T0_MS, toMs: T0_MS + 600_000 })).changes).toHaveLength(3);
    const activeAt = vi.spyOn(world.monitoring.suppressions, 'activeAt');
    const report = await world.backtests().ofCriteria(TENANT, entityId, checkId, `:set consecutiveCount=2\n${DOWN}`, { fromMs: T0_MS, toMs: T0_MS + 600_000 });
    expect(report.changes.map((c) => [c.timestampMs, c.state, c.notificationStatus, c.notifications])).toEqual([
      [T0_MS + 120_000, 'CRITICAL', 'none', []],
    ]);
    expect(activeAt.mock.calls[0]?.[1]).toEqual({ entityId, checkId });
    await expect(world.backtests().ofCriteria(TENANT, entityId, checkId, 'if (', {})).rejects.toMatchObject({ code: 'MONITORING_ALARM_PARSE_FAILED' });
    await expect(world.backtests().ofCriteria(TENANT, entityId, 'chNope', DOWN, {})).rejects.toMatchObject({ code: 'MONITORING_OBJECT_NOT_FOUND' });
    await expect(world.backtests().ofAlarm(TENANT, entityId, 'alNope', {})).rejects.toMatchObject({ code: 'MONITORING_OBJECT_NOT_FOUND' });
    await expect(world.backtests().ofAlarm('t2', entityId, alarmId, {})).rejects.toMatchObject({ code: expect.stringMatching(/NOT_FOUND$/) });
  });

  it('says which part lies beyond the FULL retention, refuses a range past the limit and more observations than allowed', async () => {
    const { entityId, alarmId } = await setup(['500', '200', '500', '200']);
    const report = await world.backtests().ofAlarm(TENANT, entityId, alarmId, { fromMs: NOW_MS - 3 * DAY_MS, toMs: NOW_MS });
    const cut = world.engine.timestampBounds().oldestMs;
    expect(report.unreplayed).toEqual([{ fromMs: NOW_MS - 3 * DAY_MS, toMs: cut, reason: 'beyond FULL retention' }]);
    expect(report.replayed).toEqual({ fromMs: cut, toMs: NOW_MS });
    expect(report.totals.observations).toBe(4);
    await expect(world.backtests().ofAlarm(TENANT, entityId, alarmId, { fromMs: NOW_MS - 8 * DAY_MS, toMs: NOW_MS })).rejects.toMatchObject({ code: 'MONITORING_BACKTEST_TOO_LARGE', details: { bound: 'range' } });
    await expect(world.backtests({ observationsMax: 3 }).ofAlarm(TENANT, entityId, alarmId, { fromMs: T0_MS, toMs: NOW_MS })).rejects.toMatchObject({ code: 'MONITORING_BACKTEST_TOO_LARGE', details: { bound: 'observations', limit: 3 } });
    await expect(world.backtests().ofAlarm(TENANT, entityId, alarmId, { fromMs: NOW_MS, toMs: NOW_MS - 1 })).rejects.toMatchObject({ code: 'MONITORING_FIELD_INVALID' });
  });

  it('counts quorum over the zones this process runs, as the live runtime does', async () => {
    const quorum = `:set consistencyLevel=QUORUM\n${DOWN}`;
    const { entityId, checkId, alarmId } = await setup([], quorum, ['mzdfw', 'mziad', 'mzord']);
    await world.feed(entityId, checkId, [code('mzdfw', T0_MS, '500'), code('mzdfw', T0_MS + 60_000, '500')]);
    const window = { fromMs: T0_MS, toMs: T0_MS + 600_000 };
    expect((await world.backtests().ofAlarm(TENANT, entityId, alarmId, window)).changes).toEqual([]);
    expect((await world.backtests({ runZones: ['mzdfw'] }).ofAlarm(TENANT, entityId, alarmId, window)).changes.map((c) => c.state)).toEqual(['CRITICAL']);
  });

  it('refuses a second backtest of a tenant while one runs (MONITORING_TEST_RUNS_BUSY), not another tenant; the slot comes back', async () => {
    const { entityId, alarmId } = await setup(['500']);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slots = new BacktestSlots({ concurrencyMax: 2, perTenantMax: 1 });
    const backtests = world.backtests({ slots, runQuery: async (work) => (await gate, work()) });
    // A slot is taken at the call, before anything is read.
    const first = backtests.ofAlarm(TENANT, entityId, alarmId, {});
    expect(slots.running()).toBe(1);
    await expect(backtests.ofAlarm(TENANT, entityId, alarmId, {})).rejects.toMatchObject({ code: 'MONITORING_TEST_RUNS_BUSY', details: { scope: 'tenant', limit: 1 } });
    release();
    expect((await first).changes).toHaveLength(1);
    expect(slots.running()).toBe(0);
    expect((await backtests.ofAlarm(TENANT, entityId, alarmId, {})).changes).toHaveLength(1);
    // The server bound: two tenants' worth in flight, the third refused.
    const held = new BacktestSlots({ concurrencyMax: 2, perTenantMax: 1 });
    const never = new Promise<void>(() => undefined);
    void held.run('a', () => never);
    void held.run('b', () => never);
    await expect(held.run('c', async () => 1)).rejects.toMatchObject({ code: 'MONITORING_TEST_RUNS_BUSY', details: { scope: 'server', limit: 2 } });
  });
});
