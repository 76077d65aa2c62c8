// Checks notification secrets through the monitoring API in-process: never in monitoring.sqlite in plaintext, redacted on GET and list, kept or replaced by PUT as documented (docs/monitoring-api.md, "Notification secrets").
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED_SECRET } from '../../../../src/monitoring/detail-secrets.js';
import { startHarness, type Harness } from '../../harness.js';
import { expectMetricsError, inject, tokenOf, type Injected } from '../../inject.js';
import { expectNotOnDisk } from '../../../monitoring/secrets-on-disk.js';

const B = '/monitoring/v1.0/t1';
const N = `${B}/notifications`;
/** A fresh incidentB api_key: a UUID v4. */
const uuid = (): string => crypto.randomUUID();
const serviceKey = (): string => `sk${randomBytes(12).toString('hex')}`;

let h: Harness;
let alice: string;

const send = (method: 'GET' | 'POST' | 'PUT', url: string, json?: unknown): Promise<Injected> =>
  inject(h, method, url, { token: alice, ...(json !== undefined ? { json } : {}) });

async function create(body: Record<string, unknown>): Promise<string> {
  const res = await send('POST', N, body);
  expect(res.status, res.text).toBe(201);
  return String(res.headers['x-object-id']);
}

async function shown(id: string): Promise<Record<string, any>> {
  const res = await send('GET', `${N}/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.json as Record<string, any>;
}

/** The details the notification sender gets: the only reader that decrypts. */
const senderDetails = (id: string): Record<string, string> => h.app.strata.monitoring.notifications.notificationWithSecrets('t1', id).doc.details;

beforeAll(async () => {
  h = await startHarness({});
  alice = await tokenOf(h, 'alice');
});
afterAll(async () => h.close());

describe('notification secrets over HTTP', () => {
  it('are not in monitoring.sqlite; GET and list show them redacted; the sender gets them', async () => {
    const key = uuid();
    const url = `https://hooks.example.com/services/${randomBytes(12).toString('hex')}?token=${randomBytes(8).toString('hex')}`;
    const b = await create({ label: 'incidents', type: 'incidentB', details: { api_key: key, routing_key: 'team_a.web' } });
    const w = await create({ label: 'hook', type: 'webhook', details: { url } });
    expectNotOnDisk(h.dir, key, url);
    expect((await shown(b))['details']).toEqual({ api_key: REDACTED_SECRET, routing_key: 'team_a.web' });
    expect((await shown(w))['details']).toEqual({ url: REDACTED_SECRET });
    const list = await send('GET', `${N}?limit=1000`);
    expect(JSON.stringify(list.json)).not.toContain(key);
    expect(JSON.stringify(list.json)).not.toContain(url);
    expect(list.json['values'].find((n: { id: string }) => n.id === b)['details']).toEqual({ api_key: REDACTED_SECRET, routing_key: 'team_a.web' });
    expect(senderDetails(b)).toEqual({ api_key: key, routing_key: 'team_a.web' });
    expect(senderDetails(w)).toEqual({ url });
  });

  it('PUT without details keeps them, encrypted', async () => {
    const key = serviceKey();
    const id = await create({ label: 'pager', type: 'incidentA', details: { service_key: key } });
    expect((await send('PUT', `${N}/${id}`, { label: 'renamed', metadata: { team: 'ops' } })).status).toBe(204);
    expect(senderDetails(id)).toEqual({ service_key: key });
    expect((await shown(id))).toMatchObject({ label: 'renamed', details: { service_key: REDACTED_SECRET } });
    expectNotOnDisk(h.dir, key);
  });

  it('PUT of what a GET showed ("[redacted]" sent back) keeps the stored secrets', async () => {
    const key = serviceKey();
    const id = await create({ label: 'pager', type: 'incidentA', details: { service_key: key, service_endpoint: 'https://events.example.com/v1' } });
    const { id: _id, created_at: _c, updated_at: _u, ...body } = await shown(id);
    expect((await send('PUT', `${N}/${id}`, { ...body, label: 'echoed' })).status).toBe(204);
    expect(senderDetails(id)).toEqual({ service_key: key, service_endpoint: 'https://events.example.com/v1' });
    const url = `https://hooks.example.com/${randomBytes(12).toString('hex')}`;
    const w = await create({ label: 'hook', type: 'webhook', details: { url } });
    expect((await send('PUT', `${N}/${w}`, { type: 'webhook', details: { url: REDACTED_SECRET } })).status).toBe(204);
    expect(senderDetails(w)).toEqual({ url });
    expectNotOnDisk(h.dir, key, url);
  });

  it('PUT with a new value replaces the secret', async () => {
    const old = uuid();
    const fresh = uuid();
    const id = await create({ label: 'incidents', type: 'incidentB', details: { api_key: old } });
    expect((await send('PUT', `${N}/${id}`, { type: 'incidentB', details: { api_key: fresh, routing_key: 'r' } })).status).toBe(204);
    expect(senderDetails(id)).toEqual({ api_key: fresh, routing_key: 'r' });
    expect((await shown(id))['details']).toEqual({ api_key: REDACTED_SECRET, routing_key: 'r' });
    expectNotOnDisk(h.dir, old, fresh);
  });

  it('"[redacted]" is refused where no secret is stored: on create, and on a change of type', async () => {
    const created = await send('POST', N, { label: 'x', type: 'incidentB', details: { api_key: REDACTED_SECRET } });
    expectMetricsError(created, 400, 'MONITORING_FIELD_INVALID', { key: 'details.api_key' });
    const hook = await create({ label: 'hook', type: 'webhook', details: { url: 'https://hooks.example.com/a' } });
    const retyped = await send('PUT', `${N}/${hook}`, { type: 'incidentA', details: { service_key: REDACTED_SECRET } });
    expectMetricsError(retyped, 400, 'MONITORING_FIELD_INVALID', { key: 'details.service_key' });
    expect(senderDetails(hook)).toEqual({ url: 'https://hooks.example.com/a' });
    // The schema still judges a secret that is not the redacted value.
    expectMetricsError(await send('POST', N, { label: 'x', type: 'incidentB', details: { api_key: 'not-a-uuid' } }), 400, 'MONITORING_FIELD_INVALID', { key: 'details.api_key' });
  });

  it('a webhook url with user:password@ is accepted and sealed whole; an incidentA service_endpoint with one is refused (400 naming it)', async () => {
    const password = randomBytes(12).toString('hex');
    const w = await create({ label: 'hook', type: 'webhook', details: { url: `https://ops:${password}@hooks.example.com/x` } });
    expect((await shown(w))['details']).toEqual({ url: REDACTED_SECRET });
    expect(senderDetails(w)['url']).toBe(`https://ops:${password}@hooks.example.com/x`);
    const res = await send('POST', N, { label: 'pager', type: 'incidentA', details: { service_key: 'k1', service_endpoint: `https://ops:${password}x@events.example.com/` } });
    expectMetricsError(res, 400, 'MONITORING_FIELD_INVALID', { key: 'details.service_endpoint' });
    expect(res.json['details']['problem']).toMatch(/service_key/);
    expectNotOnDisk(h.dir, password);
  });
});
