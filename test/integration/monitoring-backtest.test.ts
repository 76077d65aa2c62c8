// End to end: a real server runs a remote.http check against a real loopback target that goes up, down and up; the alarm backtest over that range reports the same changes as the live changelog, with the webhooks the plan really sent.
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startHarness, type Harness } from '../http/harness.js';
import { base, create } from './monitoring-client.js';

/** A loopback HTTP server that can be stopped and started again on the same port. */
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

/** A webhook receiver recording the state of each delivery. */
async function startReceiver(): Promise<{ url: string; states: string[]; close(): Promise<void> }> {
  const states: string[] = [];
  const server = createHttpServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      states.push(JSON.parse(text).details?.state);
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, states, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, attempts = 400): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('the alarm backtest, end to end', () => {
  let h: Harness;
  let token: string;
  const target = new Target();
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    h = await startHarness({});
    await h.app.strata.runtime.start();
    token = await h.token('alice');
    await target.up();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await h.close();
    await target.down();
    await receiver.close();
  });

  it('replays a check that ran up, down and up: OK, CRITICAL, OK, as the changelog says, with the webhooks that were sent', async () => {
    const b = base('t1');
    const entity = await create(h, token, `${b}/entities`, { label: 'site', ip_addresses: { web: '127.0.0.1' } });
    const hook = await create(h, token, `${b}/notifications`, { label: 'hook', type: 'webhook', details: { url: receiver.url } });
    const plan = await create(h, token, `${b}/notification_plans`, { label: 'ops', critical_state: [hook], ok_state: [hook] });
    const from = Date.now() - 1_000;
    const check = await create(h, token, `${b}/entities/${entity}/checks`, {
      type: 'remote.http',
      details: { url: `http://127.0.0.1:${target.port}/health`, method: 'GET' },
      monitoring_zones_poll: ['mzdfw', 'mziad', 'mzord'],
      target_alias: 'web',
      period: 30,
      timeout: 5,
    });
    const alarm = await create(h, token, `${b}/entities/${entity}/alarms`, {
      check_id: check,
      notification_plan_id: plan,
      criteria: "if (metric['code'] != '200') { return new AlarmStatus(CRITICAL, 'site says #{code}'); } return new AlarmStatus(OK, 'site is up');",
    });
    const runtime = h.app.strata.runtime;
    const changelog = async (): Promise<any[]> => (await call(h, 'GET', `${b}/changelogs/alarms?entityId=${entity}`, { token })).json.values.filter((e: any) => e.alarm_id === alarm);
    const reach = (state: string) => async () => {
      await runtime.runNow('t1', entity, check);
      const entries = await changelog();
      return entries.at(-1)?.state === state ? entries : undefined;
    };
    await until('the first OK', reach('OK'));
    await target.down();
    await until('CRITICAL while the target is down', reach('CRITICAL'));
    await target.up();
    const live = await until('OK once the target is back', reach('OK'));
    await until('both webhooks', () => (receiver.states.length >= 2 ? true : undefined));
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
    expect(receiver.states).toEqual(values.filter((v) => v.notification_status === 'notified').map((v) => v.state));
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
