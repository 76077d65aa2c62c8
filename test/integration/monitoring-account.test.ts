// Checks the default notification and plan and the account settings over real HTTP: first use, protection, the fog scenario, admin-only access, validation, rotation, isolation, nothing in plaintext on disk.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startHarness, type Harness } from '../http/harness.js';
import { expectNotOnDisk } from '../monitoring/secrets-on-disk.js';
import { base, create, expectFault } from './monitoring-client.js';

const NT = 'ntTechnicalContactsEmail';
const NP = 'npTechnicalContactsEmail';
const LABEL = 'Technical Contacts - Email';
const GENERATED = /^[A-Za-z0-9]{32}$/;

/** An admin of a tenant no request has touched yet, and its token. */
async function freshAdmin(h: Harness, tenant: string): Promise<string> {
  const username = `admin-${tenant}`;
  const apiKey = `${tenant}-api-key-0123456789`;
  h.identity.createUser({ username, tenant, role: 'admin', apiKey });
  const res = await call(h, 'POST', '/v2.0/tokens', { json: { auth: { 'RAX-KSKEY:apiKeyCredentials': { username, apiKey } } } });
  expect(res.status, res.text).toBe(200);
  return res.json.access.token.id as string;
}

describe('monitoring defaults over HTTP', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({});
  });
  afterAll(async () => h.close());

  it('lists the default notification and plan for a brand-new tenant and reads each by id', async () => {
    const token = await freshAdmin(h, 'newco');
    const b = base('newco');
    const notifications = await call(h, 'GET', `${b}/notifications`, { token });
    expect(notifications.status).toBe(200);
    expect(notifications.json.values).toEqual([
      { id: NT, label: LABEL, type: 'technicalContactsEmail', details: {}, metadata: null, created_at: expect.any(Number), updated_at: expect.any(Number) },
    ]);
    const plans = await call(h, 'GET', `${b}/notification_plans`, { token });
    expect(plans.json.values).toEqual([
      { id: NP, label: LABEL, critical_state: [NT], warning_state: [NT], ok_state: [NT], metadata: null, created_at: expect.any(Number), updated_at: expect.any(Number) },
    ]);
    expect((await call(h, 'GET', `${b}/notifications/${NT}`, { token })).json).toEqual(notifications.json.values[0]);
    expect((await call(h, 'GET', `${b}/notification_plans/${NP}`, { token })).json).toEqual(plans.json.values[0]);
  });

  it('creates an alarm with notification_plan_id npTechnicalContactsEmail on a tenant that never listed plans (fog)', async () => {
    const token = await freshAdmin(h, 'fogco');
    const b = base('fogco');
    const entity = await create(h, token, `${b}/entities`, { label: 'web', ip_addresses: { web: '192.0.2.7' } });
    const check = await create(h, token, `${b}/entities/${entity}/checks`, { type: 'agent.cpu', label: 'cpu' });
    const alarm = await create(h, token, `${b}/entities/${entity}/alarms`, { check_id: check, notification_plan_id: NP, criteria: 'return new AlarmStatus(OK);' });
    expect((await call(h, 'GET', `${b}/entities/${entity}/alarms/${alarm}`, { token })).json).toMatchObject({ notification_plan_id: NP });
  });

  it('refuses to delete the defaults or change the default notification with 403, and changes nothing', async () => {
    const token = await freshAdmin(h, 'keepco');
    const b = base('keepco');
    const before = [(await call(h, 'GET', `${b}/notifications/${NT}`, { token })).json, (await call(h, 'GET', `${b}/notification_plans/${NP}`, { token })).json];
    const refusals = [
      await call(h, 'DELETE', `${b}/notifications/${NT}`, { token }),
      await call(h, 'DELETE', `${b}/notification_plans/${NP}`, { token }),
      await call(h, 'PUT', `${b}/notifications/${NT}`, { token, json: { label: 'mine now' } }),
    ];
    for (const res of refusals) {
      expectFault(res, 403, 'forbiddenError');
      expect(res.json.details.code).toBe('MONITORING_DEFAULT_OBJECT_PROTECTED');
    }
    const after = [(await call(h, 'GET', `${b}/notifications/${NT}`, { token })).json, (await call(h, 'GET', `${b}/notification_plans/${NP}`, { token })).json];
    expect(after).toEqual(before);
  });

  it("lets an admin add a webhook to the default plan, without touching another tenant's default plan", async () => {
    const one = await freshAdmin(h, 'planco');
    const two = await freshAdmin(h, 'otherco');
    const hook = await create(h, one, `${base('planco')}/notifications`, { label: 'hook', type: 'webhook', details: { url: 'https://hooks.example.com/a' } });
    const put = await call(h, 'PUT', `${base('planco')}/notification_plans/${NP}`, { token: one, json: { critical_state: [NT, hook] } });
    expect(put.status, put.text).toBe(204);
    expect((await call(h, 'GET', `${base('planco')}/notification_plans/${NP}`, { token: one })).json).toMatchObject({ critical_state: [NT, hook], warning_state: [NT], ok_state: [NT] });
    expect((await call(h, 'GET', `${base('otherco')}/notification_plans/${NP}`, { token: two })).json).toMatchObject({ critical_state: [NT], warning_state: [NT], ok_state: [NT] });
    // Another tenant cannot name planco's notification in its default plan.
    const stolen = await call(h, 'PUT', `${base('otherco')}/notification_plans/${NP}`, { token: two, json: { critical_state: [hook] } });
    expectFault(stolen, 400, 'badRequest');
  });
});

describe('account settings over HTTP', () => {
  let h: Harness;
  let alice: string;
  let olga: string;
  let bob: string;
  const b = base('t1');

  beforeAll(async () => {
    h = await startHarness({});
    [alice, olga, bob] = await Promise.all([h.token('alice'), h.token('olga'), h.token('bob')]);
  });
  afterAll(async () => h.close());

  it('GET shows the account, made on first use with a generated token', async () => {
    const res = await call(h, 'GET', `${b}/account`, { token: alice });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      id: expect.stringMatching(/^ac[A-Za-z0-9]{8}$/),
      technical_contacts: [],
      webhook_token: expect.stringMatching(GENERATED),
      metadata: null,
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    expect((await call(h, 'GET', `${b}/account`, { token: alice })).json).toEqual(res.json);
  });

  it('is for admins of the tenant only', async () => {
    for (const [method, path, json] of [
      ['GET', 'account', undefined],
      ['PUT', 'account', { technical_contacts: ['x@example.com'] }],
      ['POST', 'account/webhook_token', undefined],
    ] as const) {
      const observer = await call(h, method, `${b}/${path}`, { token: olga, ...(json === undefined ? {} : { json }) });
      expectFault(observer, 403, 'forbiddenError');
      expect(observer.json.details.code).toBe('AUTH_ROLE_FORBIDDEN');
      const other = await call(h, method, `${b}/${path}`, { token: bob, ...(json === undefined ? {} : { json }) });
      expectFault(other, 403, 'forbiddenError');
      expect(other.json.details.code).toBe('AUTH_TENANT_FORBIDDEN');
      expectFault(await call(h, method, `${b}/${path}`), 401, 'unauthorizedError');
    }
    expect((await call(h, 'GET', `${b}/account`, { token: alice })).json.technical_contacts).toEqual([]);
    const del = await call(h, 'DELETE', `${b}/account`, { token: alice });
    expectFault(del, 405, 'methodNotAllowedError');
    expect(del.headers.get('allow')).toBe('GET, HEAD, PUT');
  });

  it('PUT changes the fields given (204 with Location) and keeps the others', async () => {
    const before = (await call(h, 'GET', `${b}/account`, { token: alice })).json;
    const put = await call(h, 'PUT', `${b}/account`, { token: alice, json: { technical_contacts: ['ops@example.com', 'oncall@example.org', 'ops@example.com'], metadata: { team: 'web' } } });
    expect(put.status, put.text).toBe(204);
    expect(put.text).toBe('');
    expect(put.headers.get('location')).toBe(`${h.url}${b}/account`);
    const after = (await call(h, 'GET', `${b}/account`, { token: alice })).json;
    expect(after).toEqual({ ...before, technical_contacts: ['ops@example.com', 'oncall@example.org'], metadata: { team: 'web' }, updated_at: after.updated_at });
    const token = await call(h, 'PUT', `${b}/account`, { token: alice, json: { webhook_token: 'AdminChosenToken12345' } });
    expect(token.status).toBe(204);
    expect((await call(h, 'GET', `${b}/account`, { token: alice })).json).toMatchObject({ webhook_token: 'AdminChosenToken12345', technical_contacts: ['ops@example.com', 'oncall@example.org'] });
  });

  it('refuses invalid bodies with 400 naming the key, and changes nothing', async () => {
    const before = (await call(h, 'GET', `${b}/account`, { token: alice })).json;
    const cases: [unknown, string][] = [
      [{ technical_contacts: ['not an email'] }, 'technical_contacts'],
      [{ technical_contacts: ['ok@example.com', 'bad@'] }, 'technical_contacts'],
      [{ technical_contacts: Array.from({ length: 33 }, (_, i) => `u${i}@example.com`) }, 'technical_contacts'],
      [{ technical_contacts: 'ops@example.com' }, 'technical_contacts'],
      [{ webhook_token: 'short0123456789' }, 'webhook_token'],
      [{ webhook_token: 'has-a-dash-0123456789' }, 'webhook_token'],
      [{ webhook_token: 'x'.repeat(65) }, 'webhook_token'],
      [{ metadata: { k: 1 } }, 'metadata'],
      [{ id: 'acStolen01' }, 'id'],
      [{ webhook_token: 'AValidToken0123456789', colour: 'red' }, 'colour'],
      [[], 'body'],
    ];
    for (const [json, key] of cases) {
      const res = await call(h, 'PUT', `${b}/account`, { token: alice, json });
      expectFault(res, 400, 'badRequest');
      expect(res.json.details, JSON.stringify(json)).toMatchObject({ code: 'MONITORING_FIELD_INVALID', key });
      expect(res.text).not.toContain(before.webhook_token);
    }
    expect((await call(h, 'GET', `${b}/account`, { token: alice })).json).toEqual(before);
  });

  it('POST /account/webhook_token rotates the token and answers the account with it', async () => {
    const before = (await call(h, 'GET', `${b}/account`, { token: alice })).json;
    const res = await call(h, 'POST', `${b}/account/webhook_token`, { token: alice });
    expect(res.status, res.text).toBe(200);
    expect(res.json.webhook_token).toMatch(GENERATED);
    expect(res.json.webhook_token).not.toBe(before.webhook_token);
    expect(res.json).toEqual({ ...before, webhook_token: res.json.webhook_token, updated_at: res.json.updated_at });
    expect((await call(h, 'GET', `${b}/account`, { token: alice })).json).toEqual(res.json);
  });

  it("keeps each tenant's account apart", async () => {
    const mine = (await call(h, 'GET', `${b}/account`, { token: alice })).json;
    const theirs = (await call(h, 'GET', `${base('t2')}/account`, { token: bob })).json;
    expect(theirs.id).not.toBe(mine.id);
    expect(theirs.webhook_token).not.toBe(mine.webhook_token);
    expect(theirs.technical_contacts).toEqual([]);
    await call(h, 'POST', `${base('t2')}/account/webhook_token`, { token: bob });
    expect((await call(h, 'GET', `${b}/account`, { token: alice })).json).toEqual(mine);
  });

  it('never writes a webhook token to monitoring.sqlite in plaintext', async () => {
    const chosen = 'OnDiskCheckToken0123456789';
    expect((await call(h, 'PUT', `${b}/account`, { token: alice, json: { webhook_token: chosen } })).status).toBe(204);
    const rotated = (await call(h, 'POST', `${base('t2')}/account/webhook_token`, { token: bob })).json.webhook_token as string;
    const generated = (await call(h, 'GET', `${base('t2')}/account`, { token: bob })).json.webhook_token as string;
    expect(generated).toBe(rotated);
    expectNotOnDisk(h.dir, chosen, rotated);
  });
});
