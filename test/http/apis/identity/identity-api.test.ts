// Tests the identity API over real HTTP: tokens, the catalog, and every identity error body.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { DEFAULT_TOKEN_TTL_MS } from '../../../../src/identity/identity-service.js';
import { call, KEYS, startHarness, type Harness } from '../../harness.js';

const START_MS = Date.UTC(2026, 0, 1, 12);

function credentials(username: string, apiKey: string, vendor = 'RAX'): unknown {
  return { auth: { [`${vendor}-KSKEY:apiKeyCredentials`]: { username, apiKey } } };
}

describe('identity API', () => {
  let h: Harness;
  let clock: ManualClock;

  beforeEach(async () => {
    clock = new ManualClock(START_MS);
    h = await startHarness({ clock, config: { region: 'IAD', publicUrl: 'https://strata.example' } });
  });
  afterEach(async () => h.close());

  it('POST /v2.0/tokens returns token, catalog and user', async () => {
    const res = await call(h, 'POST', '/v2.0/tokens', { json: credentials('alice', KEYS.alice) });
    expect(res.status).toBe(200);
    const access = res.json.access;
    expect(access.token.id).toMatch(/^[0-9a-f]{32}$/);
    expect(access.token.expires).toBe(new Date(START_MS + DEFAULT_TOKEN_TTL_MS).toISOString());
    expect(access.token.tenant).toEqual({ id: 't1', name: 't1' });
    expect(access.token['RAX-AUTH:authenticatedBy']).toEqual(['APIKEY']);
    expect(access.user).toMatchObject({ name: 'alice', 'RAX-AUTH:defaultRegion': 'IAD' });
    expect(access.user.roles[0]).toMatchObject({ name: 'admin', tenantId: 't1' });
    const byName = Object.fromEntries(access.serviceCatalog.map((s: any) => [s.name, s]));
    expect(byName.cloudMetrics.endpoints[0]).toEqual({ region: 'IAD', tenantId: 't1', publicURL: 'https://strata.example/metrics/v2.0/t1' });
    expect(byName.cloudMetricsIngest.endpoints[0].publicURL).toBe('https://strata.example/ingest/v2.0/t1');
    expect(byName.cloudMonitoring.endpoints[0]).toEqual({ tenantId: 't1', publicURL: 'https://strata.example/monitoring/v1.0/t1' });
    expect(byName.cloudDNS.type).toBe('rax:dns');
    expect(byName.cloudFeeds.endpoints[0].region).toBe('IAD');
    expect(res.headers.get('x-response-id')).toMatch(/^\.r-/);
  });

  it('answers 400 badRequest for unparsable and wrong-shaped bodies', async () => {
    const bodies: unknown[] = ['{not json', JSON.stringify({ auth: {} }), JSON.stringify([1]), JSON.stringify(credentials('alice', '')),
      JSON.stringify({ auth: { ...(credentials('alice', KEYS.alice) as any).auth, tenantId: 't1', tenantName: 't1' } }),
      JSON.stringify(credentials('alice', KEYS.alice, 'ACME'))];
    for (const body of bodies) {
      const res = await call(h, 'POST', '/v2.0/tokens', { body: body as string, type: 'application/json' });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ badRequest: { code: 400, message: 'Invalid request body: unable to parse Auth data. Please review XML or JSON formatting.' } });
    }
  });

  it('answers 401 unauthorized for wrong credentials', async () => {
    for (const body of [credentials('alice', 'wrong-key-0000000000'), credentials('nobody', KEYS.alice)]) {
      const res = await call(h, 'POST', '/v2.0/tokens', { json: body });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ unauthorized: { code: 401, message: 'Unable to authenticate user with credentials provided.' } });
    }
  });

  it('answers 415 badMediaType without a JSON content type, 405 methodNotAllowed with Allow, 404 itemNotFound', async () => {
    const noType = await call(h, 'POST', '/v2.0/tokens', { body: JSON.stringify(credentials('alice', KEYS.alice)), type: 'text/plain' });
    expect(noType.status).toBe(415);
    expect(noType.json.badMediaType.code).toBe(415);
    const wrongMethod = await call(h, 'PUT', '/v2.0/tokens', { json: {} });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST, DELETE');
    expect(wrongMethod.json.methodNotAllowed.code).toBe(405);
    const missing = await call(h, 'GET', '/v2.0/tenants');
    expect(missing.status).toBe(404);
    expect(missing.json.itemNotFound.code).toBe(404);
  });

  it('honours the configured vendor prefix', async () => {
    const acme = await startHarness({ config: { vendorPrefix: 'ACME' } });
    try {
      const res = await call(acme, 'POST', '/v2.0/tokens', { json: credentials('alice', KEYS.alice, 'ACME') });
      expect(res.status).toBe(200);
      expect(res.json.access.token['ACME-AUTH:authenticatedBy']).toEqual(['APIKEY']);
      expect(res.json.access.user['ACME-AUTH:defaultRegion']).toBe('LOCAL');
      const rax = await call(acme, 'POST', '/v2.0/tokens', { json: credentials('alice', KEYS.alice, 'RAX') });
      expect(rax.status).toBe(400);
    } finally {
      await acme.close();
    }
  });

  it('validates tokens: own token, admin of the same tenant, never another tenant', async () => {
    const alice = await h.token('alice');
    const olga = await h.token('olga');
    const bob = await h.token('bob');
    const own = await call(h, 'GET', `/v2.0/tokens/${olga}`, { token: olga });
    expect(own.status).toBe(200);
    expect(own.json.access.token.id).toBe(olga);
    expect(own.json.access.serviceCatalog).toBeUndefined();
    expect((await call(h, 'GET', `/v2.0/tokens/${olga}`, { token: alice })).status).toBe(200);
    expect((await call(h, 'GET', `/v2.0/tokens/${alice}?belongsTo=t1`, { token: alice })).status).toBe(200);
    expect((await call(h, 'GET', `/v2.0/tokens/${alice}?belongsTo=t2`, { token: alice })).status).toBe(404);
    const forbidden = await call(h, 'GET', `/v2.0/tokens/${alice}`, { token: olga });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json).toEqual({ forbidden: { code: 403, message: 'Only an admin may validate or revoke a token other than its own.' } });
    const foreign = await call(h, 'GET', `/v2.0/tokens/${bob}`, { token: alice });
    expect(foreign.status).toBe(404);
    expect(foreign.json.itemNotFound.code).toBe(404);
    const noToken = await call(h, 'GET', `/v2.0/tokens/${bob}`);
    expect(noToken.status).toBe(401);
    expect(noToken.json.unauthorized.code).toBe(401);
  });

  it('revokes a token: 204, then 401 everywhere, and a new authentication gives a new token', async () => {
    const first = await h.token('alice');
    expect((await call(h, 'GET', '/metrics/v2.0/t1/metrics/search?query=*', { token: first })).status).toBe(200);
    expect((await call(h, 'DELETE', `/v2.0/tokens/${first}`, { token: first })).status).toBe(204);
    const after = await call(h, 'GET', '/metrics/v2.0/t1/metrics/search?query=*', { token: first });
    expect(after.status).toBe(401);
    expect(after.json).toMatchObject({ type: 'unauthorizedError', code: 401 });
    expect((await call(h, 'GET', `/v2.0/tokens/${first}`, { token: first })).status).toBe(401);
    const second = await h.token('alice');
    expect(second).not.toBe(first);
    expect((await call(h, 'DELETE', '/v2.0/tokens', { token: second })).status).toBe(204);
    expect((await call(h, 'GET', '/metrics/v2.0/t1/metrics/search?query=*', { token: second })).status).toBe(401);
  });

  it('expires tokens at their expires time (injected clock)', async () => {
    const token = await h.token('alice');
    clock.advance(DEFAULT_TOKEN_TTL_MS - 1);
    expect((await call(h, 'GET', '/metrics/v2.0/t1/metrics/search?query=*', { token })).status).toBe(200);
    clock.advance(1);
    expect((await call(h, 'GET', '/metrics/v2.0/t1/metrics/search?query=*', { token })).status).toBe(401);
    expect((await call(h, 'GET', `/v2.0/tokens/${token}`, { token })).status).toBe(401);
    const fresh = await h.token('alice');
    expect((await call(h, 'GET', '/metrics/v2.0/t1/metrics/search?query=*', { token: fresh })).status).toBe(200);
  });
});
