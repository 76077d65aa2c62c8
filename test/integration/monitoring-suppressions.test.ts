// End to end over real HTTP: a check against a loopback target flipped down and up, a real webhook receiver; webhook records carry the suppression ids, and a plan's suppression stops a change's webhook while the changelog and the suppression log record it.
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startHarness, type Harness } from '../http/harness.js';
import { startReceiver, type WebhookReceiver } from '../monitoring/delivery/webhook-receiver.js';
import { base, create } from './monitoring-client.js';

const HOUR_MS = 3_600_000;

/** Polls `probe` until it yields a value (not undefined or false). */
async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A loopback HTTP target that can be stopped and started again on the same port. */
class Target {
  private server: Server | undefined;
  port = 0;

  async up(): Promise<void> {
    this.server = createHttpServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/plain' }).end('healthy');
    });
    await new Promise<void>((resolve) => this.server?.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}

describe('suppressions end to end', () => {
  let h: Harness;
  let alice: string;
  let receiver: WebhookReceiver;
  const target = new Target();
  const b = base('t1');

  beforeAll(async () => {
    h = await startHarness({});
    await h.app.strata.runtime.start();
    receiver = await startReceiver();
    await target.up();
    alice = await h.token('alice');
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
    await target.down();
  });

  it('sends the ids in the webhook records, and a plan suppression stops the next change while changelog and suppression log record it', async () => {
    const entity = await create(h, alice, `${b}/entities`, { label: 'web-1', ip_addresses: { web: '127.0.0.1' } });
    const hook = await create(h, alice, `${b}/notifications`, { label: 'hook', type: 'webhook', details: { url: `${receiver.url}/hook` } });
    const plan = await create(h, alice, `${b}/notification_plans`, { label: 'ops', critical_state: [hook], ok_state: [hook] });
    const check = await create(h, alice, `${b}/entities/${entity}/checks`, {
      type: 'remote.http',
      details: { url: `http://127.0.0.1:${target.port}/health`, method: 'GET' },
      monitoring_zones_poll: ['mzdfw'],
      target_alias: 'web',
      period: 30,
      timeout: 5,
    });
    const alarm = await create(h, alice, `${b}/entities/${entity}/alarms`, {
      check_id: check,
      notification_plan_id: plan,
      criteria: "if (metric['code'] != '200') { return new AlarmStatus(CRITICAL, 'down'); } return new AlarmStatus(OK, 'up');",
    });
    const changelog = async (): Promise<any[]> => (await call(h, 'GET', `${b}/changelogs/alarms?entityId=${entity}`, { token: alice })).json.values;
    const reach = (state: string) =>
      until(`the alarm ${state}`, async () => {
        await h.app.strata.runtime.runNow('t1', entity, check);
        return (await changelog()).at(-1)?.state === state;
      });
    await reach('OK');

    // A window on the entity that starts tomorrow: scheduled, not active, so the CRITICAL webhook goes out and names it.
    const tomorrow = await create(h, alice, `${b}/suppressions`, { start_time: Date.now() + 24 * HOUR_MS, end_time: Date.now() + 25 * HOUR_MS, entities: [entity] });
    await target.down();
    await reach('CRITICAL');
    const critical = (await changelog()).at(-1);
    const sent = await until('the CRITICAL webhook', () => receiver.requests.find((r) => r.json?.log_entry_id === critical.id));
    const idsIn = (record: any): unknown => [record.active_suppressions, record.scheduled_suppressions];
    expect([idsIn(sent.json.entity), idsIn(sent.json.check), idsIn(sent.json.alarm)]).toEqual([
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
    expect(receiver.requests.some((r) => r.json?.log_entry_id === recovered.id)).toBe(false);
  });
});
