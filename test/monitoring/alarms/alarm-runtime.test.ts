// Checks the alarm runtime end to end over a real monitoring file and outbox: OK → CRITICAL → OK with consecutiveCount 2 and QUORUM over 3 zones, changelog, states, plan lists, payloads.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REDACTED_SECRET } from '../../../src/monitoring/detail-secrets.js';
import { CODE_CRITERIA, PERIOD_MS, result, RuntimeWorld, SECRET, T0_MS, transitions, ZONES, type Tree } from './alarm-runtime-fixture.js';

describe('AlarmRuntime', () => {
  let world: RuntimeWorld;
  let tree: Tree;
  let alarm: string;

  beforeEach(() => {
    world = new RuntimeWorld();
    tree = world.tree();
    alarm = world.alarm(tree);
  });
  afterEach(() => world.close());

  it('moves OK → CRITICAL → OK only on 2 agreeing observations in a majority of zones', () => {
    world.round(tree, 1);
    expect(world.changelog()).toEqual([]);
    // Second agreeing round: the first state, OK, once two zones confirm it (mziad is the second).
    world.round(tree, 2);
    expect(transitions(world.changelog())).toEqual([['OK', null, 'mziad']]);
    // One failing round in two zones: consecutiveCount 2 holds the state.
    world.round(tree, 3, { mzdfw: '503', mziad: '503' });
    expect(world.changelog()).toHaveLength(1);
    // Second failing round: mzdfw alone is one of three (no quorum) ...
    const check = world.check(tree);
    world.runtime.observe('t1', check, result('mzdfw', T0_MS + 4 * PERIOD_MS, '503'));
    expect(world.changelog()).toHaveLength(1);
    // ... mziad makes two of three.
    world.runtime.observe('t1', check, result('mziad', T0_MS + 4 * PERIOD_MS + 1, '503'));
    world.runtime.observe('t1', check, result('mzord', T0_MS + 4 * PERIOD_MS + 2, '200'));
    expect(transitions(world.changelog())).toEqual([
      ['OK', null, 'mziad'],
      ['CRITICAL', 'OK', 'mziad'],
    ]);
    world.round(tree, 5);
    expect(world.changelog()).toHaveLength(2);
    world.round(tree, 6);
    expect(transitions(world.changelog())).toEqual([
      ['OK', null, 'mziad'],
      ['CRITICAL', 'OK', 'mziad'],
      ['OK', 'CRITICAL', 'mzdfw'],
    ]);
    const entries = world.changelog();
    expect(entries.map((e) => e.timestampMs)).toEqual([T0_MS + 2 * PERIOD_MS + 1, T0_MS + 4 * PERIOD_MS + 1, T0_MS + 6 * PERIOD_MS]);
    for (const entry of entries) expect(entry).toMatchObject({ entityId: tree.entity, alarmId: alarm, checkId: tree.check });
    expect(world.runtime.stats()).toMatchObject({ observations: 18, evaluations: 18, transitions: 3, errors: 0 });
  });

  it('queues one delivery per notification of the new state\'s plan list, none for the first OK', () => {
    world.round(tree, 1);
    world.round(tree, 2);
    expect(world.deliveries()).toEqual([]);
    expect(world.wakes).toBe(0);
    world.round(tree, 3, { mzdfw: '503', mziad: '503' });
    world.round(tree, 4, { mzdfw: '503', mziad: '503' });
    const critical = world.deliveries();
    expect(critical.map((d) => [d.notificationId, d.state, d.status])).toEqual(tree.critical.map((id) => [id, 'CRITICAL', 'pending']));
    expect(world.wakes).toBe(1);
    world.round(tree, 5);
    world.round(tree, 6);
    const all = world.deliveries();
    expect(all.map((d) => [d.notificationId, d.state])).toEqual([...tree.critical.map((id) => [id, 'CRITICAL']), [tree.ok, 'OK']]);
    expect(all.every((d) => d.alarmId === alarm && d.entityId === tree.entity && d.checkId === tree.check)).toBe(true);
    expect(all.map((d) => d.notificationId)).not.toContain(tree.warning);
    expect(world.runtime.stats().enqueued).toBe(3);
  });

  it('builds the spec 6.1 payload once per change, with the changelog id, every zone, and no secret', () => {
    for (let i = 1; i <= 4; i++) world.round(tree, i, i >= 3 ? { mzdfw: '503', mziad: '503' } : {});
    const rows = world.outbox.store.claimDue(world.clock.now(), 10);
    expect(rows).toHaveLength(2);
    const [first, second] = rows.map((row) => row.event);
    expect(second).toEqual(first);
    const change = world.changelog()[1];
    const event = first as Record<string, any>;
    expect(event['log_entry_id']).toBe(change?.id);
    expect(event['tenant_id']).toBe('t1');
    expect(event['event_id']).toBe(`t1:${tree.entity}:${alarm}:${tree.check}:${T0_MS + 4 * PERIOD_MS + 1}:CRITICAL`);
    expect(event['details']).toMatchObject({ state: 'CRITICAL', previous_state: 'OK', status: 'HTTP 503', timestamp: T0_MS + 4 * PERIOD_MS + 1 });
    expect(event['details'].metrics.code).toEqual({ type: 's', data: '503', unit: 'unknown' });
    const observed = (event['details'].observations as { monitoring_zone_id: string; state: string }[]).map((o) => [o.monitoring_zone_id, o.state]).sort();
    // mzord had not observed round 4 yet when mziad completed the change.
    expect(observed).toEqual([
      ['mzdfw', 'CRITICAL'],
      ['mziad', 'CRITICAL'],
      ['mzord', 'OK'],
    ]);
    expect(event['check'].details.auth_password).toBe(REDACTED_SECRET);
    expect(event['alarm']).toMatchObject({ id: alarm, criteria: CODE_CRITERIA });
    expect(JSON.stringify(rows)).not.toContain(SECRET);
  });

  it('persists the committed state with its status for the overview', () => {
    for (let i = 1; i <= 4; i++) world.round(tree, i, i >= 3 ? { mzdfw: '503', mziad: '503' } : {});
    expect(world.runtime.states.get('t1', tree.entity, alarm)).toEqual({
      entityId: tree.entity,
      alarmId: alarm,
      checkId: tree.check,
      state: 'CRITICAL',
      previousState: 'OK',
      status: 'HTTP 503',
      zoneId: 'mziad',
      timestampMs: T0_MS + 4 * PERIOD_MS + 1,
    });
  });

  it('notifies the first state of a new alarm when it is not OK', () => {
    world.round(tree, 1, { mzdfw: '500', mziad: '500', mzord: '500' });
    world.round(tree, 2, { mzdfw: '500', mziad: '500', mzord: '500' });
    expect(transitions(world.changelog())).toEqual([['CRITICAL', null, 'mziad']]);
    expect(world.deliveries().map((d) => d.notificationId)).toEqual(tree.critical);
  });

  it('evaluates every enabled alarm of the check on its own, and skips disabled ones', () => {
    const always = world.alarm(tree, "return new AlarmStatus(WARNING, 'always');");
    const disabled = world.monitoring.entities.createAlarm('t1', tree.entity, {
      check_id: tree.check,
      notification_plan_id: tree.plan,
      criteria: "return new AlarmStatus(CRITICAL, 'never evaluated');",
      disabled: true,
    });
    world.round(tree, 1);
    // consecutiveCount 1 (default) and QUORUM: the second zone's WARNING sets the state.
    const rows = world.changelog();
    expect(rows.map((r) => [r.alarmId, r.state])).toEqual([[always, 'WARNING']]);
    expect(world.deliveries().map((d) => d.notificationId)).toEqual([tree.warning]);
    expect(rows.map((r) => r.alarmId)).not.toContain(disabled);
    expect(world.runtime.stats().evaluations).toBe(2 * ZONES.length);
  });

  it('keeps tenants apart', () => {
    const theirs = world.tree('t2');
    const theirAlarm = world.alarm(theirs, CODE_CRITERIA, 't2');
    for (let i = 1; i <= 2; i++) {
      world.round(tree, i);
      world.round(theirs, i, { mzdfw: '500', mziad: '500', mzord: '500' }, 't2');
    }
    expect(world.changelog().map((r) => [r.alarmId, r.state])).toEqual([[alarm, 'OK']]);
    expect(world.changelog('t2').map((r) => [r.alarmId, r.state])).toEqual([[theirAlarm, 'CRITICAL']]);
    expect(world.deliveries()).toEqual([]);
    expect(world.deliveries('t2').map((d) => d.notificationId)).toEqual(theirs.critical);
    expect(world.runtime.states.get('t2', tree.entity, alarm)).toBeUndefined();
  });
});

describe('AlarmRuntime with an agent check', () => {
  let world: RuntimeWorld;
  afterEach(() => world.close());

  it('gives rate() the previous result of the agent check whichever zone endpoint carried either one', () => {
    world = new RuntimeWorld();
    const tree = world.tree();
    const m = world.monitoring;
    const agentCheck = m.entities.createCheck('t1', tree.entity, { type: 'agent.network', details: { target: 'eth0' }, period: 60 });
    m.entities.createAlarm('t1', tree.entity, {
      check_id: agentCheck,
      notification_plan_id: tree.plan,
      criteria: "if (rate(metric['rx_bytes']) > 1000) { return new AlarmStatus(CRITICAL, 'busy'); }\nreturn new AlarmStatus(OK, 'quiet');",
    });
    const check = m.entities.checkWithSecrets('t1', tree.entity, agentCheck);
    const post = (zone: string, i: number, bytes: number) => {
      world.clock.set(T0_MS + i * PERIOD_MS);
      world.runtime.observe('t1', check, { ...result(zone, T0_MS + i * PERIOD_MS, '200'), metrics: { rx_bytes: { type: 'L', data: bytes, unit: 'bytes' } } });
    };
    post('mzdfw', 1, 0); // no previous result: rate() is unknown, the alarm says OK
    expect(transitions(world.changelog())).toEqual([['OK', null, 'mzdfw']]);
    post('mzord', 2, 60_000); // 1000 bytes/s over mzdfw's result: not above 1000
    expect(world.changelog()).toHaveLength(1);
    // Only a previous result from another zone exists for mziad: rate() must still see it.
    post('mziad', 3, 60_000 + 120_000);
    expect(transitions(world.changelog())).toEqual([
      ['OK', null, 'mzdfw'],
      ['CRITICAL', 'OK', 'mziad'],
    ]);
  });
});
