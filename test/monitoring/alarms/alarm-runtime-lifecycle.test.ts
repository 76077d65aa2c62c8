// Checks the alarm runtime across restarts and configuration changes, and that one alarm's failure never stops another.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CODE_CRITERIA, RuntimeWorld, T0_MS, transitions, type Tree } from './alarm-runtime-fixture.js';

const DOWN = { mzdfw: '503', mziad: '503', mzord: '503' } as const;

describe('AlarmRuntime lifecycle', () => {
  let world: RuntimeWorld;
  let tree: Tree;
  let alarm: string;

  beforeEach(() => {
    world = new RuntimeWorld();
    tree = world.tree();
    alarm = world.alarm(tree);
  });
  afterEach(() => world.close());

  /** Rounds 1-2 OK, 3-4 down: the alarm is CRITICAL after round 4. */
  function toCritical(): void {
    world.round(tree, 1);
    world.round(tree, 2);
    world.round(tree, 3, DOWN);
    world.round(tree, 4, DOWN);
    expect(transitions(world.changelog()).map(([state]) => state)).toEqual(['OK', 'CRITICAL']);
  }

  it('starts from the persisted state after a restart: no second entry or notification for the same state', () => {
    toCritical();
    const deliveries = world.deliveries().length;
    world.restart();
    world.round(tree, 5, DOWN);
    world.round(tree, 6, DOWN);
    expect(world.changelog()).toHaveLength(2);
    expect(world.deliveries()).toHaveLength(deliveries);
    world.round(tree, 7);
    world.round(tree, 8);
    // Every zone was down: the second zone to see OK twice (mziad) completes the change.
    expect(transitions(world.changelog()).at(-1)).toEqual(['OK', 'CRITICAL', 'mziad']);
    expect(world.deliveries().at(-1)?.notificationId).toBe(tree.ok);
  });

  it('drops the memory and the state of a deleted alarm', () => {
    toCritical();
    expect(world.runtime.stats().alarmsInMemory).toBe(1);
    world.monitoring.entities.deleteAlarm('t1', tree.entity, alarm);
    expect(world.runtime.stats().alarmsInMemory).toBe(0);
    expect(world.runtime.states.get('t1', tree.entity, alarm)).toBeUndefined();
    world.round(tree, 5);
    world.round(tree, 6);
    expect(world.changelog()).toHaveLength(2);
    expect(world.runtime.stats()).toMatchObject({ alarmsInMemory: 0, errors: 0 });
  });

  it('recompiles an updated alarm and restarts its memory from the committed state', () => {
    world.round(tree, 1);
    world.round(tree, 2);
    // Old criteria: a 404 is CRITICAL. New ones: only 5xx is, and one observation in one zone is enough.
    world.monitoring.entities.updateAlarm('t1', tree.entity, alarm, {
      criteria: ":set consecutiveCount=1\n:set consistencyLevel=ONE\nif (metric['code'] regex '^5') { return CRITICAL; } return OK;",
    });
    world.round(tree, 3, { mzdfw: '404', mziad: '404', mzord: '404' });
    world.round(tree, 4, { mzdfw: '404', mziad: '404', mzord: '404' });
    expect(world.changelog()).toHaveLength(1);
    world.round(tree, 5, { mzord: '502' });
    expect(transitions(world.changelog())).toEqual([
      ['OK', null, 'mziad'],
      ['CRITICAL', 'OK', 'mzord'],
    ]);
  });

  it('starts evaluating an alarm created after the check was first observed', () => {
    const other = world.tree();
    world.round(other, 1);
    const late = world.alarm(other, "return new AlarmStatus(WARNING, 'late');");
    world.round(other, 2);
    expect(world.changelog().map((r) => [r.alarmId, r.state])).toEqual([[late, 'WARNING']]);
  });

  it('records a change without notifications when the plan is gone, and says so', () => {
    // A plan an alarm names cannot be deleted through the service; remove its row underneath.
    world.monitoring.store.docs.delete('mon_plan', { tenant: 't1' }, tree.plan);
    toCritical();
    expect(world.deliveries()).toEqual([]);
    expect(world.logs.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([expect.stringContaining('plan unreadable')]);
    expect(world.runtime.states.get('t1', tree.entity, alarm)?.state).toBe('CRITICAL');
  });

  it('skips an alarm whose criteria do not compile, logs it once, and evaluates the others', () => {
    // Stored underneath the rules, as an older version might have: an unsafe pattern.
    const bad = 'alBadRegex1';
    const doc = { check_id: tree.check, notification_plan_id: tree.plan, criteria: "if (metric['code'] regex '(a+)+$') { return CRITICAL; } return OK;", label: null, disabled: false, metadata: null };
    world.monitoring.store.docs.insert('mon_alarm', { tenant: 't1', entityId: tree.entity }, bad, doc, T0_MS, { checkId: tree.check, planId: tree.plan });
    toCritical();
    expect(world.changelog().every((r) => r.alarmId === alarm)).toBe(true);
    const errors = world.logs.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.obj).toMatchObject({ alarmId: bad });
    expect(world.runtime.stats().errors).toBe(1);
  });

  it('writes nothing of a change whose transaction fails, and records it at the next observation', () => {
    world.round(tree, 1);
    world.round(tree, 2);
    world.round(tree, 3, DOWN);
    // The outbox table is away: the enqueue, and with it the whole transaction, fails.
    world.monitoring.store.db.exec('ALTER TABLE mon_outbox RENAME TO mon_outbox_away');
    world.round(tree, 4, DOWN);
    expect(world.changelog()).toHaveLength(1);
    expect(world.runtime.states.get('t1', tree.entity, alarm)?.state).toBe('OK');
    // mziad's observation completed the change and mzord's did again: both failed, both logged.
    expect(world.runtime.stats().errors).toBe(2);
    expect(world.logs.filter((l) => l.level === 'error').map((l) => (l.obj as { alarmId?: string }).alarmId)).toEqual([alarm, alarm]);
    world.monitoring.store.db.exec('ALTER TABLE mon_outbox_away RENAME TO mon_outbox');
    // The zones' verdicts were kept: mzdfw's next observation records the change.
    world.round(tree, 5, DOWN);
    expect(transitions(world.changelog())).toEqual([
      ['OK', null, 'mziad'],
      ['CRITICAL', 'OK', 'mzdfw'],
    ]);
    expect(world.deliveries().map((d) => d.notificationId)).toEqual(tree.critical);
    expect(world.runtime.states.get('t1', tree.entity, alarm)?.state).toBe('CRITICAL');
  });

  it('keeps its caches bounded: memory holds one entry per observed alarm', () => {
    const more = world.alarm(tree, CODE_CRITERIA);
    world.round(tree, 1);
    expect(world.runtime.stats().alarmsInMemory).toBe(2);
    world.monitoring.entities.deleteAlarm('t1', tree.entity, more);
    expect(world.runtime.stats().alarmsInMemory).toBe(1);
  });
});
