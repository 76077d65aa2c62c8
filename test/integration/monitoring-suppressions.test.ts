// End to end over real HTTP: a check against a loopback target flipped down and up, a real webhook receiver; webhook records carry the suppression ids, and a plan's suppression stops a change's webhook while the changelog and the suppression log record it.
import { describe, expect, it } from 'vitest';
import { call } from '../http/harness.js';
import { base, create } from './monitoring-client.js';
import { alarmChangelog, createHttpAlarm, monitoringWorldOfFile, reachState } from './monitoring-runtime-fixture.js';
import { until } from './poll-until.js';

const HOUR_MS = 3_600_000;

const world = monitoringWorldOfFile();

describe('suppressions end to end', () => {
  const b = base('t1');

  it('sends the ids in the webhook records, and a plan suppression stops the next change while changelog and suppression log record it', async () => {
    const w = world();
    const { h, target, receiver } = w;
    const alice = w.tokens.alice;
    const t = await createHttpAlarm(w, { label: 'web-1', zones: ['mzdfw'], messages: { critical: 'down', ok: 'up' } });
    const { entity, check, alarm, plan } = t;
    const changelog = (): Promise<any[]> => alarmChangelog(w, t);
    const reach = (state: string): Promise<any[]> => reachState(w, t, state);
    await reach('OK');

    // A window on the entity that starts tomorrow: scheduled, not active, so the CRITICAL webhook goes out and names it.
    const tomorrow = await create(h, alice, `${b}/suppressions`, { start_time: Date.now() + 24 * HOUR_MS, end_time: Date.now() + 25 * HOUR_MS, entities: [entity] });
    await target.down();
    await reach('CRITICAL');
    const critical = (await changelog()).at(-1);
    const sent = await until('the CRITICAL webhook', () => receiver.received.find((r) => r.body?.log_entry_id === critical.id));
    const idsIn = (record: any): unknown => [record.active_suppressions, record.scheduled_suppressions];
    expect([idsIn(sent.body.entity), idsIn(sent.body.check), idsIn(sent.body.alarm)]).toEqual([
      [[], [tomorrow]],
      [[], [tomorrow]],
      [[], [tomorrow]],
    ]);

    // A window on the plan, active now: the recovery is recorded but not sent; a suppression log names the plan.
    const onPlan = await create(h, alice, `${b}/suppressions`, { start_time: 0, end_time: Date.now() + HOUR_MS, notification_plans: [plan] });
    const alarmRead = await call(h, 'GET', `${b}/entities/${entity}/alarms/${alarm}`, { token: alice });
    expect(idsIn(alarmRead.json)).toEqual([[onPlan], [tomorrow]]);
    await target.up();
    await reach('OK');
    const recovered = (await changelog()).at(-1);
    expect(recovered).toMatchObject({ state: 'OK', previous_state: 'CRITICAL', alarm_id: alarm });
    const logs = await call(h, 'GET', `${b}/suppression_logs`, { token: alice });
    expect(logs.json.values.filter((log: any) => log.alarm_id === alarm)).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        entity_id: entity,
        alarm_id: alarm,
        check_id: check,
        notification_plan_id: plan,
        suppressions: [onPlan],
        state: 'OK',
        previous_state: 'CRITICAL',
        timestamp: recovered.timestamp,
        transaction_id: expect.any(String),
      },
    ]);
    // Nothing was queued for the suppressed change: the outbox holds no row of it, and no webhook names it.
    const queued = h.app.strata.runtime.outbox.list('t1', { limit: 100 }).values;
    expect(queued.filter((row) => row.alarmId === alarm).map((row) => row.state)).toEqual(['CRITICAL']);
    expect(receiver.received.some((r) => r.body?.log_entry_id === recovered.id)).toBe(false);
  });
});
