// End to end: a real server runs a remote.http check against a real loopback target going up, down and up; metrics via operations 5 and 6, changelog via operation 9, webhooks with the token header, /metrics.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { openDns } from '../../src/dns/dns-service.js';
import { openFeeds } from '../../src/feeds/feeds-service.js';
import { createServer, type StrataServer } from '../../src/http/server.js';
import { openIdentity } from '../../src/identity/identity-service.js';
import { openMonitoring } from '../../src/monitoring/monitoring-service.js';
import { openStore } from '../../src/store.js';
import { call } from '../http/harness.js';
import { base, create } from './monitoring-client.js';
import { ensureBuilt, runCli, startServe, tokenFor } from './serve-process.js';

const API_KEY = 'runner-admin-key-0123456789';

/** A loopback HTTP server that can be stopped and started again on the same port. */
class Target {
  private server: Server | undefined;
  port = 0;
  requests = 0;
  readonly paths: string[] = [];

  async up(): Promise<void> {
    this.server = createHttpServer((request, response) => {
      this.requests++;
      this.paths.push(request.url ?? '');
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

/** A webhook receiver recording every delivery's headers and JSON body. */
interface Receiver {
  readonly url: string;
  readonly received: { headers: IncomingHttpHeaders; body: any }[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const received: Receiver['received'] = [];
  const server = createHttpServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: JSON.parse(text) });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

let dir: string;
let app: StrataServer;
let url: string;
let token: string;
let closeAll: () => Promise<void>;
const target = new Target();
let receiver: Receiver;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'strata-runner-it-'));
  const clock = systemClock;
  const store = await openStore({ dir, clock, workers: 0, background: false });
  const identity = openIdentity({ dir, clock });
  identity.createUser({ username: 'ops', tenant: 't1', role: 'admin', apiKey: API_KEY });
  const feeds = openFeeds({ dir, clock, region: 'LOCAL' });
  const dns = openDns({ dir, clock });
  const monitoring = openMonitoring({ dir, clock });
  // Retries fast, so a failed delivery does not hold the test.
  app = await createServer({ store, identity, feeds, dns, monitoring, clock, runtime: { delivery: { retryBaseMs: 50, retryMaxMs: 200 } } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  await app.strata.runtime.start();
  await target.up();
  receiver = await startReceiver();
  const auth = await call({ url }, 'POST', '/v2.0/tokens', { json: { auth: { 'RAX-KSKEY:apiKeyCredentials': { username: 'ops', apiKey: API_KEY } } } });
  token = auth.json.access.token.id;
  closeAll = async () => {
    await app.close();
    await store.close();
    identity.close();
    feeds.close();
    dns.close();
    monitoring.close();
    await target.down();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  };
});

afterAll(async () => {
  await closeAll();
});

describe('the monitoring runtime, end to end', () => {
  it('runs a check up, down and up: metrics stored per zone, two changelog entries, two webhooks with the token', async () => {
    const b = base('t1');
    const h = { url };
    const entity = await create(h, token, `${b}/entities`, { label: 'web-1', ip_addresses: { web: '127.0.0.1' } });
    const notification = await create(h, token, `${b}/notifications`, { label: 'hook', type: 'webhook', details: { url: receiver.url } });
    const plan = await create(h, token, `${b}/notification_plans`, { label: 'ops', critical_state: [notification], ok_state: [notification] });
    const check = await create(h, token, `${b}/entities/${entity}/checks`, {
      label: 'site',
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
    const runtime = app.strata.runtime;
    const changelog = async (): Promise<any[]> => (await call(h, 'GET', `${b}/changelogs/alarms?entityId=${entity}`, { token })).json.values.filter((e: any) => e.alarm_id === alarm);
    const stateIs = (state: string) => async () => {
      await runtime.runNow('t1', entity, check);
      const entries = await changelog();
      return entries.at(-1)?.state === state ? entries : undefined;
    };

    // Up: the first state of a new alarm is recorded, OK, and notifies nobody.
    await until('the first OK', stateIs('OK'));
    expect(target.requests).toBeGreaterThanOrEqual(3);
    await target.down();
    const afterDown = await until('CRITICAL after the target went down', stateIs('CRITICAL'));
    await target.up();
    const afterUp = await until('OK after the target came back', stateIs('OK'));
    expect(afterDown.at(-1)).toMatchObject({ entity_id: entity, check_id: check, state: 'CRITICAL', previous_state: 'OK' });
    expect(afterUp.at(-1)).toMatchObject({ state: 'OK', previous_state: 'CRITICAL' });
    expect(afterUp.map((e) => e.state)).toEqual(['OK', 'CRITICAL', 'OK']);

    // Webhooks: CRITICAL then OK, each with the account's token in x-rax-webhook-token.
    const hooks = await until('two webhooks', () => (receiver.received.length >= 2 ? receiver.received : undefined));
    const account = await call(h, 'GET', `${b}/account`, { token });
    expect(account.status).toBe(200);
    expect(hooks.map((hook) => hook.headers['x-rax-webhook-token'])).toEqual([account.json.webhook_token, account.json.webhook_token]);
    expect(hooks.map((hook) => hook.body.details?.state)).toEqual(['CRITICAL', 'OK']);
    expect(hooks[0]?.body).toMatchObject({ tenant_id: 't1', entity: { id: entity }, check: { id: check }, alarm: { id: alarm } });
    expect(hooks[0]?.body.log_entry_id).toBe(afterUp[1].id);

    // Operation 5: the check's metrics per zone, with types; operation 6: their points.
    const metrics = await call(h, 'GET', `${b}/entities/${entity}/checks/${check}/metrics?limit=100`, { token });
    expect(metrics.status).toBe(200);
    const names = metrics.json.values.map((m: any) => m.name);
    for (const zone of ['mzdfw', 'mziad', 'mzord']) for (const metric of ['bytes', 'code', 'duration', 'tt_connect', 'tt_firstbyte', 'truncated']) expect(names).toContain(`${zone}.${metric}`);
    expect(metrics.json.values.find((m: any) => m.name === 'mzdfw.duration')).toMatchObject({ unit: 'milliseconds' });
    const now = Date.now();
    const plot = await call(h, 'GET', `${b}/entities/${entity}/checks/${check}/metrics/mzdfw.duration/plot?from=${now - 600_000}&to=${now + 1_000}&resolution=FULL`, { token });
    expect(plot.status).toBe(200);
    expect(plot.json.values.length).toBeGreaterThanOrEqual(2);

    // /metrics: runs counted by outcome, the lag gauge, the outbox drained.
    await until('the outbox drained', () => (runtime.stats().delivery?.pending === 0 ? true : undefined));
    const scrape = await call(h, 'GET', '/metrics');
    expect(scrape.text).toMatch(/strata_check_runs_total\{type="remote.http",outcome="available"\} [1-9]/);
    expect(scrape.text).toMatch(/strata_check_runs_total\{type="remote.http",outcome="unavailable"\} [1-9]/);
    expect(scrape.text).toMatch(/strata_check_lag_seconds\{quantile="0.99"\} \d/);
    expect(scrape.text).toContain('strata_delivery_pending 0');
    expect(scrape.text).toContain('strata_delivery_dead 0');
    expect(scrape.text).toMatch(/strata_check_slots 3/);
  });
});

describe('strata serve', () => {
  it('starts the runtime after listening: a new check runs from the zones given by --zones; SIGTERM stops it cleanly', async () => {
    ensureBuilt();
    const data = mkdtempSync(join(tmpdir(), 'strata-runner-serve-'));
    runCli(['user', 'create', '--data', data, '--username', 'ops', '--tenant', 't1', '--api-key', API_KEY, '--role', 'admin']);
    const serve = await startServe(data, ['--zones', 'mziad', '--check-concurrency', '8', '--check-deny', '10.0.0.0/8']);
    try {
      const h = { url: serve.url };
      const auth = await tokenFor(serve.url, 'ops', API_KEY);
      const b = base('t1');
      const entity = await create(h, auth, `${b}/entities`, { label: 'web-2', ip_addresses: { web: '127.0.0.1' } });
      const check = await create(h, auth, `${b}/entities/${entity}/checks`, {
        type: 'remote.http',
        details: { url: `http://127.0.0.1:${target.port}/from-serve`, method: 'GET' },
        monitoring_zones_poll: ['mzdfw', 'mziad'],
        target_alias: 'web',
        period: 30,
        timeout: 5,
      });
      // A new check runs at once, from mziad only; its metrics become readable.
      const names = await until('the first run stored', async () => {
        const listed = await call(h, 'GET', `${b}/entities/${entity}/checks/${check}/metrics`, { token: auth });
        return listed.json?.values?.length > 0 ? listed.json.values.map((m: any) => m.name) : undefined;
      });
      expect(names.every((name: string) => name.startsWith('mziad.'))).toBe(true);
      expect(target.paths.filter((path) => path === '/from-serve')).toHaveLength(1);
      const scrape = await call(h, 'GET', '/metrics');
      expect(scrape.text).toMatch(/strata_check_slots 1/);
    } finally {
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
      rmSync(data, { recursive: true, force: true });
    }
  });
});
