// Checks the audit trail over real HTTP on 127.0.0.1: every request that may change something is recorded (whatever its status) with who made it, tests included; reads (GET, and POSTs of read-access routes) are not; secrets never appear in GET /audits, paging and tenants, and a failing write only logs.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mayChange } from '../../../../src/http/apis/monitoring/audit-routes.js';
import { createServer } from '../../../../src/http/server.js';
import { sha256 } from '../../../../src/identity/secrets.js';
import { call, startHarness, type Harness } from '../../harness.js';
import { base, create } from '../../../integration/monitoring-client.js';

const t1 = base('t1');
/** Secrets sent in bodies and headers; none may appear in any audit output. */
const SECRETS = {
  serviceKey: 'PDserviceKEY0123456789abcdef',
  apiKey: '0b1f6d2e-8c3a-4e5f-9a7b-1c2d3e4f5a6b',
  password: 'hunter2-Sup3rS3cret!',
  headerCredential: 'Bearer S3cretBearerToken0123',
  webhookToken: 'WebhookTokenABCDEFGH0123456789xy',
  webhookPath: 'T000SECRET/B000SECRET/XXXXSECRETXXXX',
  routingKey: 'routing.KEY.secret-77',
} as const;

const ITEM_KEYS = ['account_id', 'app', 'headers', 'id', 'method', 'payload', 'query', 'statusCode', 'timestamp', 'token_id', 'txnId', 'url', 'user', 'who', 'why'];

/** Every audit record of the tenant in the last 7 days, walking next_href, and the raw text of every page. */
async function allAudits(h: Harness, token: string, tenant = 't1'): Promise<{ items: any[]; raw: string }> {
  // The window ends a minute ahead: every record written so far is in it, whatever the clocks.
  let url: string | null = `${h.url}${base(tenant)}/audits?limit=3&to=${Date.now() + 60_000}`;
  const items: any[] = [];
  let raw = '';
  while (url !== null) {
    const res = await call({ url: '' }, 'GET', url, { token });
    expect(res.status, res.text).toBe(200);
    raw += res.text;
    items.push(...res.json.values);
    url = res.json.metadata.next_href;
  }
  return { items, raw };
}

describe('audit trail over HTTP', () => {
  let h: Harness;
  let alice: string;
  let olga: string;
  let bob: string;
  let created: { txnId: string | null; entity: string };

  beforeAll(async () => {
    h = await startHarness({});
    [alice, olga, bob] = await Promise.all([h.token('alice'), h.token('olga'), h.token('bob')]);
    const res = await call(h, 'POST', `${t1}/entities?_who=jane&_why=${encodeURIComponent('change 42')}&dry=1`, { token: alice, json: { label: 'web-1', ip_addresses: { web: '192.0.2.10' } } });
    expect(res.status).toBe(201);
    created = { txnId: res.headers.get('x-response-id'), entity: res.headers.get('x-object-id') as string };
    const e = created.entity;
    await create(h, alice, `${t1}/notifications`, { label: 'pd', type: 'incidentA', details: { service_key: SECRETS.serviceKey } });
    await create(h, alice, `${t1}/notifications`, { label: 'vo', type: 'incidentB', details: { api_key: SECRETS.apiKey, routing_key: SECRETS.routingKey } });
    await create(h, alice, `${t1}/notifications`, { label: 'hook', type: 'webhook', details: { url: `https://hooks.example.com/services/${SECRETS.webhookPath}` } });
    await create(h, alice, `${t1}/entities/${e}/checks`, {
      type: 'remote.http',
      details: { url: 'https://example.com/', method: 'GET', auth_user: 'ops', auth_password: SECRETS.password, headers: { Authorization: SECRETS.headerCredential } },
      monitoring_zones_poll: ['mzdfw'],
      target_alias: 'web',
    });
    expect((await call(h, 'PUT', `${t1}/account`, { token: alice, json: { webhook_token: SECRETS.webhookToken } })).status).toBe(204);
    // A refused body is recorded too, and its secret hidden as well.
    expect((await call(h, 'POST', `${t1}/notifications`, { token: alice, json: { label: 'bad', type: 'incidentA', details: { service_key: SECRETS.serviceKey, extra: 1 } } })).status).toBe(400);
    // A POST of a read-access route changes nothing and is not recorded (an alarm example fill); a test is recorded.
    expect((await call(h, 'POST', `${t1}/alarm_examples/remote.http_status_code`, { token: olga, json: { values: {} } })).status).toBe(200);
    const pasted = [{ timestamp: 1, monitoring_zone_id: 'mzdfw', available: true, status: 'x', metrics: {} }];
    expect((await call(h, 'POST', `${t1}/entities/${e}/test-alarm`, { token: alice, json: { criteria: 'return new AlarmStatus(OK);', check_data: pasted } })).status).toBe(200);
    // An observer may not write: the refusal is the account's record too.
    expect((await call(h, 'DELETE', `${t1}/entities/${e}`, { token: olga })).status).toBe(403);
    // Reads are never recorded; another tenant's changes are its own.
    expect((await call(h, 'GET', `${t1}/entities`, { token: alice })).status).toBe(200);
    await create(h, bob, `${base('t2')}/entities`, { label: 'theirs' });
  });

  afterAll(async () => h.close());

  it('records every changing request of the tenant, in order, with method, url, app, status, user, token id, request id, who and why', async () => {
    const { items } = await allAudits(h, alice);
    expect(items.map((item) => `${item.method} ${item.app} ${item.statusCode}`)).toEqual([
      'POST entities 201',
      'POST notifications 201',
      'POST notifications 201',
      'POST notifications 201',
      'POST entities 201',
      'PUT account 204',
      'POST notifications 400',
      'POST entities 200',
      'DELETE entities 403',
    ]);
    for (const item of items) expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
    const first = items[0];
    expect(first).toMatchObject({
      url: `${t1}/entities`,
      txnId: created.txnId,
      account_id: 't1',
      who: 'jane',
      why: 'change 42',
      query: { dry: '1' },
      user: 'alice',
      token_id: sha256(alice).toString('hex').slice(0, 16),
      headers: { 'content-type': 'application/json', 'content-length': expect.any(Number) },
    });
    expect(JSON.parse(first.payload)).toEqual({ label: 'web-1', ip_addresses: { web: '192.0.2.10' } });
    expect(items.at(-1)).toMatchObject({ user: 'olga', payload: null, query: null, who: null, token_id: sha256(olga).toString('hex').slice(0, 16) });
    expect(items.every((item, i) => i === 0 || item.timestamp >= items[i - 1].timestamp)).toBe(true);
    const theirs = await allAudits(h, bob, 't2');
    expect(theirs.items.map((item) => item.user)).toEqual(['bob']);
  });

  it('skips read methods and read-access routes, and records every other route', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) for (const access of ['read', 'write', 'admin', 'token']) expect(mayChange(method, access)).toBe(false);
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      expect(mayChange(method, 'read')).toBe(false);
      for (const access of ['write', 'admin', 'token', 'public']) expect(mayChange(method, access)).toBe(true);
    }
  });

  it('never shows an API key, a service key, a password, a credential header, a webhook token or URL, or the X-Auth-Token', async () => {
    const { items, raw } = await allAudits(h, alice);
    for (const [name, secret] of Object.entries({ ...SECRETS, aliceToken: alice, olgaToken: olga })) expect(raw, name).not.toContain(secret);
    expect(raw).not.toMatch(/x-auth-token/i);
    // The changes are still recorded, with the secrets' places marked.
    const payloads = items.map((item) => item.payload as string | null);
    expect(payloads.filter((p) => p?.includes('"service_key":"[redacted]"'))).toHaveLength(2);
    expect(payloads.some((p) => p?.includes('"api_key":"[redacted]"') && p.includes('"routing_key":"[redacted]"'))).toBe(true);
    expect(payloads.some((p) => p?.includes('"url":"[redacted]"'))).toBe(true);
    expect(payloads.some((p) => p?.includes('"auth_password":"[redacted]"') && p.includes('"Authorization":"[redacted]"') && p.includes('"auth_user":"ops"'))).toBe(true);
    expect(payloads.some((p) => p === '{"webhook_token":"[redacted]"}')).toBe(true);
  });

  it('pages like the other time series, keeping the window in next_href; a window in the past is empty', async () => {
    const page = await call(h, 'GET', `${t1}/audits?limit=2`, { token: alice });
    expect(page.json.metadata).toMatchObject({ count: 2, limit: 2, marker: null, next_marker: expect.any(String) });
    const next = new URL(page.json.metadata.next_href as string);
    expect([...next.searchParams.keys()].sort()).toEqual(['from', 'limit', 'marker', 'to']);
    const second = await call({ url: '' }, 'GET', next.toString(), { token: alice });
    expect(second.json.values[0].id).toBe(page.json.metadata.next_marker);
    const old = await call(h, 'GET', `${t1}/audits?from=0&to=1000`, { token: alice });
    expect(old.json.values).toEqual([]);
    expect((await call(h, 'GET', `${t1}/audits?from=10&to=10`, { token: alice })).status).toBe(400);
    expect((await call(h, 'GET', `${t1}/audits`, { token: olga })).status).toBe(200);
    expect((await call(h, 'GET', `${t1}/audits`, { token: bob })).status).toBe(403);
  });

  it('logs a failing audit write and answers the request as if nothing happened', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter((line) => line !== ''));
        done();
      },
    });
    const monitoring = h.app.strata.monitoring;
    const app = await createServer({ store: h.app.strata.store, identity: h.identity, monitoring, logger: pino({ level: 'info' }, sink) });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const target = { url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
    monitoring.store.db.exec("CREATE TRIGGER audit_fails BEFORE INSERT ON mon_audit BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END");
    try {
      const before = (await allAudits(h, alice)).items.length;
      const res = await call(target, 'POST', `${t1}/entities`, { token: alice, json: { label: 'still made' } });
      expect(res.status).toBe(201);
      expect(monitoring.entities.entity('t1', res.headers.get('x-object-id') as string).doc.label).toBe('still made');
      await app.close();
      const logged = lines.map((line) => JSON.parse(line) as { msg: string; txnId?: string }).filter((line) => line.msg.includes('audit record'));
      expect(logged).toEqual([expect.objectContaining({ txnId: res.headers.get('x-response-id') })]);
      expect((await allAudits(h, alice)).items.length).toBe(before);
    } finally {
      monitoring.store.db.exec('DROP TRIGGER audit_fails');
      if (app.server.listening) await app.close();
    }
  });
});
