// Checks check secrets through the monitoring API in-process: never in monitoring.sqlite in plaintext, redacted on GET and list, kept or replaced by PUT as documented (docs/monitoring-api.md, "Check secrets").
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED_SECRET } from '../../../../src/monitoring/detail-secrets.js';
import { startHarness, type Harness } from '../../harness.js';
import { expectMetricsError, inject, tokenOf, type Injected } from '../../inject.js';
import { expectNotOnDisk } from '../../../monitoring/secrets-on-disk.js';

const B = '/monitoring/v1.0/t1';
const secret = (name: string): string => `${name}-${randomBytes(12).toString('hex')}`;

let h: Harness;
let alice: string;
let entity = '';

const send = (method: 'GET' | 'POST' | 'PUT', url: string, json?: unknown): Promise<Injected> =>
  inject(h, method, url, { token: alice, ...(json !== undefined ? { json } : {}) });

const checks = (): string => `${B}/entities/${entity}/checks`;

function httpCheck(details: Record<string, unknown>): Record<string, unknown> {
  return { label: 'site', type: 'remote.http', details: { url: 'https://example.com/', ...details }, monitoring_zones_poll: ['mzdfw'], target_alias: 'web' };
}

async function create(body: Record<string, unknown>): Promise<string> {
  const res = await send('POST', checks(), body);
  expect(res.status, res.text).toBe(201);
  return String(res.headers['x-object-id']);
}

async function details(id: string): Promise<Record<string, any>> {
  const res = await send('GET', `${checks()}/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.json['details'] as Record<string, any>;
}

/** The details the check runner gets: the only reader that decrypts. */
function runnerDetails(id: string): Record<string, unknown> {
  return h.app.strata.monitoring.entities.checkWithSecrets('t1', entity, id).doc.details;
}

beforeAll(async () => {
  h = await startHarness({});
  alice = await tokenOf(h, 'alice');
  const res = await send('POST', `${B}/entities`, { label: 'host', ip_addresses: { web: '192.0.2.1' } });
  entity = String(res.headers['x-object-id']);
});
afterAll(async () => h.close());

describe('remote.http credentials', () => {
  it('are not in monitoring.sqlite; GET and list show them redacted; the runner gets them', async () => {
    const password = secret('pw');
    const bearer = `Bearer ${secret('tok')}`;
    const id = await create(httpCheck({ auth_user: 'ops', auth_password: password, headers: { Authorization: bearer, Accept: 'text/html' } }));
    expectNotOnDisk(h.dir, password, bearer);
    const shown = { auth_user: 'ops', auth_password: REDACTED_SECRET, headers: { Authorization: REDACTED_SECRET, Accept: 'text/html' } };
    expect(await details(id)).toMatchObject(shown);
    const listed = (await send('GET', `${checks()}?limit=1000`)).json['values'].find((c: { id: string }) => c.id === id);
    expect(listed['details']).toMatchObject(shown);
    expect(JSON.stringify(listed)).not.toContain(password);
    expect(runnerDetails(id)).toMatchObject({ auth_user: 'ops', auth_password: password, headers: { Authorization: bearer, Accept: 'text/html' } });
  });

  it('PUT without details keeps them, encrypted', async () => {
    const password = secret('keep');
    const id = await create(httpCheck({ auth_password: password }));
    expect((await send('PUT', `${checks()}/${id}`, { label: 'renamed', period: 120 })).status).toBe(204);
    expect(runnerDetails(id)['auth_password']).toBe(password);
    expect((await details(id))['auth_password']).toBe(REDACTED_SECRET);
    expectNotOnDisk(h.dir, password);
  });

  it('PUT of the details a GET showed (secrets redacted) keeps the stored secrets', async () => {
    const password = secret('echo');
    const token = secret('hdr');
    const id = await create(httpCheck({ auth_user: 'ops', auth_password: password, headers: { 'X-Auth-Token': token } }));
    const got = (await send('GET', `${checks()}/${id}`)).json as Record<string, any>;
    const { id: _id, entity_id: _entity, created_at: _c, updated_at: _u, active_suppressions: _as, scheduled_suppressions: _ss, ...body } = got;
    expect((await send('PUT', `${checks()}/${id}`, { ...body, label: 'echoed' })).status).toBe(204);
    expect(runnerDetails(id)).toMatchObject({ auth_password: password, headers: { 'X-Auth-Token': token } });
    expect(await details(id)).toMatchObject({ auth_password: REDACTED_SECRET, headers: { 'X-Auth-Token': REDACTED_SECRET } });
    expectNotOnDisk(h.dir, password, token);
  });

  it('PUT with a new password replaces it; PUT of details without it removes it', async () => {
    const old = secret('old');
    const fresh = secret('new');
    const id = await create(httpCheck({ auth_user: 'ops', auth_password: old }));
    expect((await send('PUT', `${checks()}/${id}`, { details: { url: 'https://example.com/', auth_user: 'ops', auth_password: fresh } })).status).toBe(204);
    expect(runnerDetails(id)['auth_password']).toBe(fresh);
    expect((await details(id))['auth_password']).toBe(REDACTED_SECRET);
    expectNotOnDisk(h.dir, old, fresh);
    expect((await send('PUT', `${checks()}/${id}`, { details: { url: 'https://example.com/', auth_user: 'ops' } })).status).toBe(204);
    expect(runnerDetails(id)).not.toHaveProperty('auth_password');
    expect(await details(id)).not.toHaveProperty('auth_password');
  });

  it('the redacted value is refused where no secret is stored, and nothing changes', async () => {
    const before = (await send('GET', `${checks()}?limit=1000`)).json;
    const created = await send('POST', checks(), httpCheck({ auth_password: REDACTED_SECRET }));
    expectMetricsError(created, 400, 'MONITORING_FIELD_INVALID', { key: 'details.auth_password' });
    const id = before['values'][0]['id'] as string;
    const updated = await send('PUT', `${checks()}/${id}`, { details: { url: 'https://example.com/', headers: { Cookie: REDACTED_SECRET } } });
    expectMetricsError(updated, 400, 'MONITORING_FIELD_INVALID', { key: 'details.headers' });
    expect((await send('GET', `${checks()}?limit=1000`)).json).toEqual(before);
  });

  it('a url holding a password is refused (400 naming details.url): it belongs in auth_password', async () => {
    const password = secret('url');
    const res = await send('POST', checks(), httpCheck({ url: `https://ops:${password}@example.com/` }));
    expectMetricsError(res, 400, 'MONITORING_FIELD_INVALID', { key: 'details.url' });
    expect(res.json['details']['problem']).toMatch(/auth_password/);
    expectNotOnDisk(h.dir, password);
  });
});

describe('agent check parameters named like credentials', () => {
  it('are encrypted and redacted too; the others are shown as given', async () => {
    const password = secret('mysql');
    const id = await create({ type: 'agent.mysql', details: { username: 'monitor', password, port: 3306 } });
    expect(await details(id)).toEqual({ username: 'monitor', password: REDACTED_SECRET, port: 3306 });
    expect(runnerDetails(id)).toEqual({ username: 'monitor', password, port: 3306 });
    expectNotOnDisk(h.dir, password);
  });
});
