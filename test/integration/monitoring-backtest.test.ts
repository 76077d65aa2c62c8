// End to end: a real server runs a remote.http check against a real loopback target that goes up, down and up; the alarm backtest over that range reports the same changes as the live changelog, with the webhooks the plan really sent.
import { describe, expect, it } from 'vitest';
import { call } from '../http/harness.js';
import { base } from './monitoring-client.js';
import { createHttpAlarm, monitoringWorldOfFile, reachState } from './monitoring-runtime-fixture.js';
import { until } from './poll-until.js';

const world = monitoringWorldOfFile();

describe('the alarm backtest, end to end', () => {
  it('replays a check that ran up, down and up: OK, CRITICAL, OK, as the changelog says, with the webhooks that were sent', async () => {
    const w = world();
    const { h, target, receiver } = w;
    const token = w.tokens.alice;
    const b = base('t1');
    const from = Date.now() - 1_000;
    const t = await createHttpAlarm(w, { label: 'site', zones: ['mzdfw', 'mziad', 'mzord'], messages: { critical: 'site says #{code}', ok: 'site is up' } });
    const { entity, check, alarm } = t;
    const [hook] = t.hooks;
    await reachState(w, t, 'OK');
    await target.down();
    await reachState(w, t, 'CRITICAL');
    await target.up();
    const live = await reachState(w, t, 'OK');
    const states = (): unknown[] => receiver.received.map((r) => r.body.details?.state);
    await until('both webhooks', () => states().length >= 2);
    const to = Date.now() + 1_000;

    const res = await call(h, 'POST', `${b}/entities/${entity}/alarms/${alarm}/backtest`, { token, json: { from, to } });
    expect(res.status, res.text).toBe(200);
    const values = res.json.values as any[];
    expect(values.map((v) => [v.previous_state, v.state])).toEqual([
      [null, 'OK'],
      ['OK', 'CRITICAL'],
      ['CRITICAL', 'OK'],
    ]);
    expect(live.map((e) => [e.previous_state, e.state])).toEqual(values.map((v) => [v.previous_state, v.state]));
    // The down runs were stored as such: their failure status is what the alarm says.
    expect(values[1].status).toMatch(/^Check failed: .+/);
    expect(values[2].status).toBe('site is up');
    for (const value of values) expect(['mzdfw', 'mziad', 'mzord']).toContain(value.zone_id);
    // What the plan would have sent is what it sent: nothing for the first OK, the webhook for CRITICAL and OK.
    expect(values.map((v) => [v.notification_status, v.notifications])).toEqual([
      ['silent', []],
      ['notified', [{ notification_id: hook, notification_type: 'webhook' }]],
      ['notified', [{ notification_id: hook, notification_type: 'webhook' }]],
    ]);
    expect(states()).toEqual(values.filter((v) => v.notification_status === 'notified').map((v) => v.state));
    expect(res.json.totals).toMatchObject({ OK: 2, WARNING: 0, CRITICAL: 1 });
    expect(res.json.totals.observations).toBeGreaterThanOrEqual(9);
    expect(res.json.replayed).toEqual({ from, to });

    // Operation 5 lists the check's metrics, not its run series.
    const metrics = await call(h, 'GET', `${b}/entities/${entity}/checks/${check}/metrics?limit=100`, { token });
    const names = metrics.json.values.map((m: any) => m.name) as string[];
    expect(names).toContain('mzdfw.code');
    expect(names.filter((name) => name.includes('@run'))).toEqual([]);
  });
});
