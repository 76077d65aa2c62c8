// End to end: a real server runs a remote.http check against a real loopback target going up, down and up; metrics via operations 5 and 6, changelog via operation 9, webhooks with the token header, /metrics.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from '../http/harness.js';
import { base, create } from './monitoring-client.js';
import { createHttpAlarm, monitoringWorldOfFile, reachState } from './monitoring-runtime-fixture.js';
import { until } from './poll-until.js';
import { ensureBuilt, runCli, startServe, tokenFor } from './serve-process.js';

const API_KEY = 'runner-admin-key-0123456789';

// Retries fast, so a failed delivery does not hold the test.
const world = monitoringWorldOfFile({ runtime: { delivery: { retryBaseMs: 50, retryMaxMs: 200 } } });

describe('the monitoring runtime, end to end', () => {
  it('runs a check up, down and up: metrics stored per zone, two changelog entries, two webhooks with the token', async () => {
    const w = world();
    const { h, target, receiver } = w;
    const token = w.tokens.alice;
    const b = base('t1');
    const t = await createHttpAlarm(w, { label: 'web-1', checkLabel: 'site', zones: ['mzdfw', 'mziad', 'mzord'], messages: { critical: 'site says #{code}', ok: 'site is up' } });
    const { entity, check, alarm } = t;
    const runtime = h.app.strata.runtime;

    // Up: the first state of a new alarm is recorded, OK, and notifies nobody.
    await reachState(w, t, 'OK');
    expect(target.requests).toBeGreaterThanOrEqual(3);
    await target.down();
    const afterDown = await reachState(w, t, 'CRITICAL');
    await target.up();
    const afterUp = await reachState(w, t, 'OK');
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
      const { target } = world();
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
