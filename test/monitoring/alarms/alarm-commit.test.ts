// Checks recording one alarm change over a real monitoring file and outbox: notified, none, silent and suppressed changes, the history record and suppression log each writes, and that all of it is one transaction.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AlarmState } from '../../../src/monitoring/alarm-language/ast.js';
import { changeTxnId, commitChange, type AlarmChange, type CommitDeps } from '../../../src/monitoring/alarms/alarm-commit.js';
import type { SuppressionLogRow } from '../../../src/monitoring/suppressions/suppression-service.js';
import { result, RuntimeWorld, T0_MS, type LogLine, type Tree } from './alarm-runtime-fixture.js';

/** A time well before the world's clock: commits must use the change's time, not now. */
const CHANGE_MS = T0_MS - 3_600_000;

describe('commitChange', () => {
  let world: RuntimeWorld;
  let tree: Tree;
  let alarmId: string;
  let deps: CommitDeps;

  beforeEach(() => {
    world = new RuntimeWorld();
    tree = world.tree();
    alarmId = world.alarm(tree);
    const record = (level: LogLine['level']) => (obj: object, msg: string) => world.logs.push({ level, obj, msg });
    deps = { monitoring: world.monitoring, states: world.runtime.states, outbox: world.outbox, logger: { info: record('info'), warn: record('warn'), error: record('error') } };
  });
  afterEach(() => {
    vi.restoreAllMocks();
    world.close();
  });

  function change(state: AlarmState, previousState: AlarmState | null, status = `now ${state}`): AlarmChange {
    const check = world.check(tree);
    return {
      tenant: 't1',
      check,
      alarm: world.monitoring.entities.alarm('t1', tree.entity, alarmId),
      transition: { state, previousState, status, zoneId: 'mzdfw', timestampMs: CHANGE_MS },
      result: result('mzdfw', CHANGE_MS, state === 'OK' ? '200' : '503'),
      observations: [{ zoneId: 'mzdfw', timestampMs: CHANGE_MS, state, status }],
    };
  }

  const scope = () => ({ entityId: tree.entity, alarmId, checkId: tree.check });
  const changelog = () => world.monitoring.changelogs.list('t1', { limit: 100, fromMs: CHANGE_MS - 1, toMs: T0_MS + 1 }).values;
  const historyOf = () => world.monitoring.history.list('t1', scope(), { limit: 100, fromMs: CHANGE_MS - 1, toMs: T0_MS + 1 }).values;

  it('queues the plan list of a notifying change and records it as notified, with the status message and the transaction id of the payload', () => {
    const activeAt = vi.spyOn(world.monitoring.suppressions, 'activeAt');
    const outcome = commitChange(deps, change('CRITICAL', 'OK', 'HTTP 503'));
    expect(outcome).toMatchObject({ enqueued: 2, notifications: 'notified' });
    // Suppressions are asked about the change's own time and everything it names.
    expect(activeAt).toHaveBeenCalledWith('t1', { entityId: tree.entity, checkId: tree.check, alarmId, planId: tree.plan }, CHANGE_MS);
    const deliveries = world.deliveries();
    expect(deliveries.map((d) => d.notificationId)).toEqual([...tree.critical]);
    const [entry] = historyOf();
    expect(entry?.record).toMatchObject({
      id: outcome.logEntryId,
      timestampMs: CHANGE_MS,
      planId: tree.plan,
      state: 'CRITICAL',
      previousState: 'OK',
      status: 'notified',
      message: 'HTTP 503',
      txnId: changeTxnId(outcome.logEntryId),
      suppressions: null,
      notificationIds: [...tree.critical],
    });
    expect([...(entry?.record.outboxIds ?? [])].sort()).toEqual(deliveries.map((d) => d.id).sort());
    expect(entry?.deliveries.map((d) => d.item?.status)).toEqual(['pending', 'pending']);
    const [row] = world.outbox.store.claimDue(world.clock.now(), 1);
    expect((row?.event['details'] as Record<string, unknown>)['txn_id']).toBe(changeTxnId(outcome.logEntryId));
  });

  it('asks the payload records their suppression ids now: the entity, the check and the alarm with its plan', () => {
    const idsOf = vi.spyOn(world.monitoring.suppressions, 'idsOf').mockReturnValue({ active: [], scheduled: ['spLater'] });
    commitChange(deps, change('WARNING', 'OK'));
    const targets = idsOf.mock.calls.map(([tenant, target, nowMs]) => [tenant, target, nowMs]);
    expect(targets).toEqual([
      ['t1', { entityId: tree.entity }, world.clock.now()],
      ['t1', { entityId: tree.entity, checkId: tree.check }, world.clock.now()],
      ['t1', { entityId: tree.entity, checkId: tree.check, alarmId, planId: tree.plan }, world.clock.now()],
    ]);
    const [row] = world.outbox.store.claimDue(world.clock.now(), 1);
    for (const record of ['entity', 'check', 'alarm']) {
      expect(row?.event[record]).toMatchObject({ active_suppressions: [], scheduled_suppressions: ['spLater'] });
    }
  });

  it('records a change whose plan list is empty as none, and a new alarm\'s first OK not at all', () => {
    world.monitoring.notifications.updatePlan('t1', tree.plan, { warning_state: [] });
    const activeAt = vi.spyOn(world.monitoring.suppressions, 'activeAt');
    expect(commitChange(deps, change('WARNING', 'CRITICAL'))).toMatchObject({ enqueued: 0, notifications: 'none' });
    expect(commitChange(deps, change('OK', null))).toMatchObject({ enqueued: 0, notifications: 'silent' });
    expect(activeAt).not.toHaveBeenCalled();
    expect(world.deliveries()).toEqual([]);
    const entries = historyOf();
    expect(entries.map((e) => [e.record.status, e.record.state, e.record.notificationIds, e.record.outboxIds])).toEqual([['none', 'WARNING', [], []]]);
    expect(changelog()).toHaveLength(2);
  });

  it('queues nothing for a covered change: one suppression log and one suppressed history record, while the changelog and state still record it', () => {
    vi.spyOn(world.monitoring.suppressions, 'activeAt').mockReturnValue(['spA', 'spB']);
    const logs: Omit<SuppressionLogRow, 'id'>[] = [];
    vi.spyOn(world.monitoring.suppressions, 'appendLog').mockImplementation((_tenant, row) => {
      logs.push(row);
      return `log-${logs.length}`;
    });
    const outcome = commitChange(deps, change('CRITICAL', 'OK', 'HTTP 503'));
    expect(outcome).toMatchObject({ enqueued: 0, notifications: 'suppressed' });
    expect(world.deliveries()).toEqual([]);
    expect(changelog().map((e) => e.state)).toEqual(['CRITICAL']);
    expect(world.runtime.states.get('t1', tree.entity, alarmId)?.state).toBe('CRITICAL');
    expect(logs).toEqual([
      {
        timestampMs: CHANGE_MS,
        entityId: tree.entity,
        alarmId,
        checkId: tree.check,
        planId: tree.plan,
        state: 'CRITICAL',
        previousState: 'OK',
        txnId: changeTxnId(outcome.logEntryId),
        suppressions: ['spA', 'spB'],
      },
    ]);
    const [entry] = historyOf();
    expect(entry?.record).toMatchObject({ status: 'suppressed', suppressions: ['spA', 'spB'], notificationIds: [...tree.critical], outboxIds: [], message: 'HTTP 503' });
    expect(entry?.deliveries).toEqual([]);
  });

  it('notifies, and logs an error, when the suppressions cannot be read', () => {
    vi.spyOn(world.monitoring.suppressions, 'activeAt').mockImplementation(() => {
      throw new Error('broken');
    });
    expect(commitChange(deps, change('CRITICAL', 'OK'))).toMatchObject({ enqueued: 2, notifications: 'notified' });
    expect(world.logs.some((line) => line.level === 'error' && line.msg.startsWith('suppressions unreadable'))).toBe(true);
  });

  it('writes nothing when any part fails: the suppression log, the history record and the changelog are one transaction', () => {
    vi.spyOn(world.monitoring.suppressions, 'activeAt').mockReturnValue(['spA']);
    vi.spyOn(world.monitoring.suppressions, 'appendLog').mockImplementation(() => {
      throw new Error('disk full');
    });
    expect(() => commitChange(deps, change('CRITICAL', 'OK'))).toThrow('disk full');
    vi.spyOn(world.monitoring.suppressions, 'activeAt').mockReturnValue([]);
    vi.spyOn(world.monitoring.history, 'record').mockImplementation(() => {
      throw new Error('history full');
    });
    expect(() => commitChange(deps, change('CRITICAL', 'OK'))).toThrow('history full');
    expect(changelog()).toEqual([]);
    expect(world.deliveries()).toEqual([]);
    expect(world.runtime.states.get('t1', tree.entity, alarmId)).toBeUndefined();
    vi.mocked(world.monitoring.history.record).mockRestore();
    expect(historyOf()).toEqual([]);
  });

  it('with a real suppression over the entity: the change inside the window is logged, never sent, not re-sent at its end; the next change after it notifies', () => {
    const windowMs = 3_600_000;
    const suppression = world.monitoring.suppressions.create('t1', { label: 'reboot', start_time: T0_MS, end_time: T0_MS + windowMs, entities: [tree.entity] });
    const at = (timestampMs: number, state: AlarmState, previousState: AlarmState): AlarmChange => {
      const base = change(state, previousState);
      return { ...base, transition: { ...base.transition, timestampMs } };
    };
    world.clock.set(T0_MS + 60_000);
    expect(commitChange(deps, at(T0_MS + 60_000, 'CRITICAL', 'OK'))).toMatchObject({ enqueued: 0, notifications: 'suppressed' });
    const logs = world.monitoring.suppressions.listLogs('t1', { limit: 10, fromMs: T0_MS, toMs: T0_MS + 2 * windowMs }).values;
    expect(logs.map((log) => [log.state, log.previousState, log.suppressions, log.planId])).toEqual([['CRITICAL', 'OK', [suppression], tree.plan]]);
    // The window ends: nothing is sent for the change inside it, whatever the runtime's upkeep does.
    world.clock.set(T0_MS + windowMs + 1);
    world.outbox.upkeep();
    expect(world.deliveries()).toEqual([]);
    // The next change after the window notifies as usual; the check's record now lists no suppression.
    expect(commitChange(deps, at(T0_MS + windowMs + 1, 'OK', 'CRITICAL'))).toMatchObject({ enqueued: 1, notifications: 'notified' });
    expect(world.deliveries().map((d) => [d.notificationId, d.state])).toEqual([[tree.ok, 'OK']]);
    const [row] = world.outbox.store.claimDue(world.clock.now(), 1);
    expect(row?.event['check']).toMatchObject({ active_suppressions: [], scheduled_suppressions: [] });
    const entries = world.monitoring.history.list('t1', scope(), { limit: 10, fromMs: T0_MS, toMs: T0_MS + 2 * windowMs }).values;
    expect(entries.map((e) => [e.record.status, e.record.state, e.record.suppressions])).toEqual([
      ['suppressed', 'CRITICAL', [suppression]],
      ['notified', 'OK', null],
    ]);
  });

  it('judges a suppression at the change\'s time, not at the time it is recorded', () => {
    const suppression = world.monitoring.suppressions.create('t1', { start_time: T0_MS + 600_000, end_time: T0_MS + 1_200_000, alarms: [`${tree.entity}:${alarmId}`] });
    world.clock.set(T0_MS + 900_000);
    // Recorded while the window is active, about an observation from before it started: notified, and the payload says the alarm is suppressed now.
    const early = change('CRITICAL', 'OK');
    expect(commitChange(deps, { ...early, transition: { ...early.transition, timestampMs: T0_MS + 599_999 } })).toMatchObject({ notifications: 'notified' });
    const [row] = world.outbox.store.claimDue(world.clock.now(), 1);
    expect(row?.event['alarm']).toMatchObject({ active_suppressions: [suppression], scheduled_suppressions: [] });
    expect(row?.event['entity']).toMatchObject({ active_suppressions: [] });
  });
});
