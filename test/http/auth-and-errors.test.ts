// Tests auth on every API (401, 403, observers, tenants) and the error shapes, 405, 415 and 500.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer } from '../../src/http/server.js';
import { call, startHarness, type Harness } from './harness.js';

const NOW = Date.now();
const VIEW = `/metrics/v2.0/t1/views/cpu?from=${NOW - 60_000}&to=${NOW}&resolution=FULL`;
const POINT = [{ metricName: 'cpu', metricValue: 1, collectionTime: NOW - 1000, ttlInSeconds: 86400 }];

describe('auth rules and error shapes', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({});
  });
  afterEach(async () => h.close());

  it('401 without a token and with an unknown token, in the metrics shape with a txnId', async () => {
    const missing = await call(h, 'GET', VIEW);
    expect(missing.status).toBe(401);
    expect(missing.json).toMatchObject({ type: 'unauthorizedError', code: 401, details: { code: 'AUTH_TOKEN_MISSING' } });
    expect(missing.json.txnId).toBe(missing.headers.get('x-response-id'));
    expect(typeof missing.json.message).toBe('string');
    const unknown = await call(h, 'GET', VIEW, { token: 'f'.repeat(32) });
    expect(unknown.status).toBe(401);
    expect(unknown.json.details.code).toBe('AUTH_TOKEN_INVALID');
  });

  it("403 on another tenant's URL (tenant isolation) and for observer writes; observers read", async () => {
    const alice = await h.token('alice');
    const olga = await h.token('olga');
    const bob = await h.token('bob');
    expect((await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, json: POINT })).status).toBe(200);
    const foreignRead = await call(h, 'GET', VIEW, { token: bob });
    expect(foreignRead.status).toBe(403);
    expect(foreignRead.json).toMatchObject({ type: 'forbiddenError', code: 403, details: { code: 'AUTH_TENANT_FORBIDDEN' } });
    const foreignWrite = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: bob, json: POINT });
    expect(foreignWrite.status).toBe(403);
    expect(foreignWrite.json.errors[0]).toMatchObject({ tenantId: 't1', metricName: '', source: null, code: 'AUTH_TENANT_FORBIDDEN' });
    const observerWrite = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: olga, json: POINT });
    expect(observerWrite.status).toBe(403);
    expect(observerWrite.json.details.code).toBe('AUTH_ROLE_FORBIDDEN');
    const observerMulti = await call(h, 'POST', '/ingest/v2.0/t1/ingest/multi', { token: olga, json: [{ ...POINT[0], tenantId: 't1' }] });
    expect(observerMulti.status).toBe(403);
    const observerRead = await call(h, 'GET', VIEW, { token: olga, headers: { 'x-auth-project-id': 'anything' } });
    expect(observerRead.status).toBe(200);
    expect(observerRead.json.values).toHaveLength(1);
    const search = await call(h, 'GET', '/metrics/v2.0/t2/metrics/search?query=*', { token: bob });
    expect(search.json).toEqual([]);
  });

  it('reads Authorization: Bearer only on routes that allow it (Prometheus, OTLP), and X-Auth-Token first', async () => {
    const alice = await h.token('alice');
    const bearer = await call(h, 'GET', VIEW, { headers: { authorization: `Bearer ${alice}` } });
    expect(bearer.status).toBe(401);
    expect(bearer.json.details.code).toBe('AUTH_TOKEN_MISSING');
    const read = (headers: Record<string, string>) => call(h, 'POST', '/prometheus/t1/api/v1/read', { headers: { 'content-type': 'application/x-protobuf', ...headers } });
    // Past auth, the missing body is what is wrong: 415 (no Content-Encoding), not 401.
    expect((await read({ authorization: `Bearer ${alice}` })).status).toBe(415);
    expect((await read({ authorization: `bearer  ${alice} ` })).status).toBe(415);
    expect((await read({ 'x-auth-token': alice, authorization: 'Bearer unknown' })).status).toBe(415);
    const unknown = await read({ 'x-auth-token': 'unknown', authorization: `Bearer ${alice}` });
    expect(unknown.status).toBe(401);
    expect(unknown.text).toMatch(/^AUTH_TOKEN_INVALID: /);
  });

  it('415 for a body without Content-Type or with an unsupported one, and for an Accept it cannot meet', async () => {
    const alice = await h.token('alice');
    const noType = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, body: JSON.stringify(POINT) });
    expect(noType.status).toBe(415);
    expect(noType.json).toMatchObject({ type: 'unsupportedMediaTypeError', code: 415, details: { code: 'HTTP_CONTENT_TYPE_UNSUPPORTED' } });
    const xml = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token: alice, body: '<x/>', type: 'application/xml' });
    expect(xml.status).toBe(415);
    const accept = await call(h, 'GET', VIEW, { token: alice, headers: { accept: 'text/html' } });
    expect(accept.status).toBe(415);
    expect(accept.json.details.code).toBe('HTTP_ACCEPT_UNSUPPORTED');
    const acceptOk = await call(h, 'GET', VIEW, { token: alice, headers: { accept: 'text/html, application/*;q=0.5' } });
    expect(acceptOk.status).toBe(200);
    expect(acceptOk.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('405 lists the valid methods in Allow, before auth and without reading the body', async () => {
    const views = await call(h, 'DELETE', VIEW);
    expect(views.status).toBe(405);
    expect(views.headers.get('allow')).toBe('GET, HEAD');
    expect(views.json).toMatchObject({ code: 405, type: 'methodNotAllowedError' });
    const ingest = await call(h, 'GET', '/ingest/v2.0/t1/ingest');
    expect(ingest.status).toBe(405);
    expect(ingest.headers.get('allow')).toBe('POST');
    expect(ingest.json.errors).toHaveLength(1);
    const put = await call(h, 'PUT', '/ingest/v2.0/t1/ingest', { body: 'x'.repeat(100_000), type: 'application/octet-stream', headers: { accept: 'text/html' } });
    expect(put.status).toBe(405);
  });

  it('404 in the family shape, and a transaction id on every response', async () => {
    const missing = await call(h, 'GET', '/metrics/v2.0/t1/nothing', { headers: { accept: 'text/html' } });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ type: 'notFoundError', code: 404 });
    for (const res of [missing, await call(h, 'GET', '/healthz'), await call(h, 'GET', '/metrics')]) {
      expect(res.headers.get('x-response-id')).toMatch(/^\.r-[\w-]+\.c-\d+\.ts-\d+\.v-strata$/);
    }
  });
});

describe('500', () => {
  it('never leaks the stack and logs one line with the transaction id', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter((line) => line !== ''));
        done();
      },
    });
    const h = await startHarness({});
    // Fault injection on the real store: its query fails with an internal detail in the message.
    const store = h.app.strata.store;
    store.query = async () => {
      throw new Error('secret internal detail at /srv/strata/file.ts:42');
    };
    // Rebuild the server with a capturing logger, on the harness's store and identity.
    await h.app.close();
    const app = await createServer({ store, identity: h.identity, logger: pino({ level: 'info' }, sink) });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address() as { port: number };
    const target = { url: `http://127.0.0.1:${address.port}` };
    try {
      const token = await (async () => {
        const res = await call(target, 'POST', '/v2.0/tokens', { json: { auth: { 'RAX-KSKEY:apiKeyCredentials': { username: 'alice', apiKey: 'alice-api-key-0123456789' } } } });
        return res.json.access.token.id as string;
      })();
      lines.length = 0;
      const res = await call(target, 'GET', VIEW, { token });
      expect(res.status).toBe(500);
      expect(res.json).toMatchObject({ type: 'internalError', code: 500, details: { code: 'INTERNAL' } });
      expect(res.text).not.toContain('secret');
      expect(res.text).not.toContain('.ts:');
      const txnId = res.headers.get('x-response-id');
      expect(res.json.txnId).toBe(txnId);
      expect(lines).toHaveLength(1);
      const logged = JSON.parse(lines[0] as string);
      expect(logged.txnId).toBe(txnId);
      expect(logged.level).toBe(50);
      expect(logged.err.message).toContain('secret internal detail');
    } finally {
      await app.close();
      await h.close();
    }
  });
});
