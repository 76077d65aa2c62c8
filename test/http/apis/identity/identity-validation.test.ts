// Tests the identity plugin's validation in process (inject): bad bodies, parameters, media types and methods answer its own fault body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { IDENTITY_BODY_BYTES_MAX } from '../../../../src/http/http-limits.js';
import { KEYS, startHarness, type Harness } from '../../harness.js';
import { expectIdentityFault, inject, tokenOf } from '../../inject.js';

const START_MS = Date.UTC(2026, 0, 1, 12);
const CREDENTIAL_KEY = 'RAX-KSKEY:apiKeyCredentials';
/** Spec section 7, rule 1: every authentication body that cannot be used answers this. */
const AUTH_BODY_INVALID = 'Invalid request body: unable to parse Auth data. Please review XML or JSON formatting.';
const CONTENT_TYPE_UNSUPPORTED = 'The request Content-Type is not supported by this resource.';
const ACCEPT_UNSUPPORTED = 'This resource answers with application/json only.';

function credentials(extra: Record<string, unknown> = {}, fields: Record<string, unknown> = { username: 'alice', apiKey: KEYS.alice }): Record<string, unknown> {
  return { auth: { [CREDENTIAL_KEY]: fields, ...extra } };
}

describe('identity API validation (in process)', () => {
  let h: Harness;
  let alice: string;
  let olga: string;

  beforeAll(async () => {
    h = await startHarness({ clock: new ManualClock(START_MS) });
    alice = await tokenOf(h, 'alice');
    olga = await tokenOf(h, 'olga');
  });
  afterAll(async () => h.close());

  describe('POST /v2.0/tokens', () => {
    it('answers 200 for a valid body, with unknown keys beside the credentials (other credential types may be sent)', async () => {
      const res = await inject(h, 'POST', '/v2.0/tokens', { json: { auth: { [CREDENTIAL_KEY]: { username: 'alice', apiKey: KEYS.alice, note: 1 }, passwordCredentials: {} }, extra: true } });
      expect(res.status).toBe(200);
      expect(res.json.access.token.tenant.id).toBe('t1');
    });

    it.each<[string, unknown]>([
      ['a JSON string', 'alice'],
      ['a JSON number', 42],
      ['JSON null', null],
      ['an array', [credentials()]],
      ['an empty object', {}],
      ['auth null', { auth: null }],
      ['auth an array', { auth: [] }],
      ['auth a string', { auth: 'alice' }],
      ['auth without credentials', { auth: {} }],
      ['another vendor prefix', { auth: { 'ACME-KSKEY:apiKeyCredentials': { username: 'alice', apiKey: KEYS.alice } } }],
      ['credentials a string', { auth: { [CREDENTIAL_KEY]: 'alice' } }],
      ['credentials without apiKey', credentials({}, { username: 'alice' })],
      ['credentials without username', credentials({}, { apiKey: KEYS.alice })],
      ['username a number', credentials({}, { username: 1, apiKey: KEYS.alice })],
      ['apiKey a number', credentials({}, { username: 'alice', apiKey: 123 })],
      ['apiKey null', credentials({}, { username: 'alice', apiKey: null })],
      ['an empty username', credentials({}, { username: '', apiKey: KEYS.alice })],
      ['an empty apiKey', credentials({}, { username: 'alice', apiKey: '' })],
      ['tenantId a number', credentials({ tenantId: 1 })],
      ['tenantId empty', credentials({ tenantId: '' })],
      ['tenantName a boolean', credentials({ tenantName: true })],
      ['both tenantId and tenantName', credentials({ tenantId: 't1', tenantName: 't1' })],
    ])('400 badRequest for %s, and no token is issued', async (_label, body) => {
      const res = await inject(h, 'POST', '/v2.0/tokens', { body: JSON.stringify(body), type: 'application/json' });
      expectIdentityFault(res, 400, 'badRequest', AUTH_BODY_INVALID);
      expect(res.text).not.toContain('access');
    });

    it.each([
      ['an unterminated object', '{"auth": {'],
      ['a trailing comma', '{"auth": {},}'],
      ['single quotes', "{'auth': {}}"],
      ['XML', `<auth><apiKeyCredentials username="alice" apiKey="${KEYS.alice}"/></auth>`],
      ['an empty body', ''],
      ['only whitespace', '   '],
    ])('400 badRequest for unparsable JSON: %s', async (_label, text) => {
      const res = await inject(h, 'POST', '/v2.0/tokens', { body: text, type: 'application/json' });
      expectIdentityFault(res, 400, 'badRequest', AUTH_BODY_INVALID);
    });

    it('400 badRequest for a request with no body at all', async () => {
      expectIdentityFault(await inject(h, 'POST', '/v2.0/tokens'), 400, 'badRequest', AUTH_BODY_INVALID);
    });

    it('accepts application/json with a charset parameter, in any case', async () => {
      const res = await inject(h, 'POST', '/v2.0/tokens', { body: JSON.stringify(credentials()), type: 'Application/JSON; charset=UTF-8' });
      expect(res.status).toBe(200);
    });

    it.each(['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/x-msgpack', 'application/octet-stream'])(
      '415 badMediaType for a %s body',
      async (type) => {
        const res = await inject(h, 'POST', '/v2.0/tokens', { body: JSON.stringify(credentials()), type });
        expectIdentityFault(res, 415, 'badMediaType', CONTENT_TYPE_UNSUPPORTED);
      },
    );

    it('415 badMediaType for a body without Content-Type', async () => {
      const res = await inject(h, 'POST', '/v2.0/tokens', { body: JSON.stringify(credentials()) });
      expectIdentityFault(res, 415, 'badMediaType', CONTENT_TYPE_UNSUPPORTED);
    });

    it('415 badMediaType (HTTP_ACCEPT_UNSUPPORTED) for an Accept that allows no JSON; a JSON-allowing Accept is answered', async () => {
      for (const accept of ['text/html', 'application/xml', 'text/*', 'application/json;q=0, text/html']) {
        const res = await inject(h, 'POST', '/v2.0/tokens', { json: credentials(), accept });
        expectIdentityFault(res, 415, 'badMediaType', ACCEPT_UNSUPPORTED);
      }
      for (const accept of ['application/json', '*/*', 'text/html, application/*;q=0.1', '']) {
        expect((await inject(h, 'POST', '/v2.0/tokens', { json: credentials(), accept })).status).toBe(200);
      }
    });

    it('answers an Accept of application/json with a charset parameter, the very type it sends', async () => {
      const res = await inject(h, 'POST', '/v2.0/tokens', { json: credentials(), accept: 'application/json; charset=utf-8' });
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    });

    it(`413 overLimit for a body over IDENTITY_BODY_BYTES_MAX (${IDENTITY_BODY_BYTES_MAX} bytes)`, async () => {
      const body = JSON.stringify(credentials({ padding: 'x'.repeat(IDENTITY_BODY_BYTES_MAX) }));
      const res = await inject(h, 'POST', '/v2.0/tokens', { body, type: 'application/json' });
      expectIdentityFault(res, 413, 'overLimit');
    });

    it('401 unauthorized for a tenant that is not the user\'s (well-formed, but does not authenticate)', async () => {
      const res = await inject(h, 'POST', '/v2.0/tokens', { json: credentials({ tenantId: 't2' }) });
      expectIdentityFault(res, 401, 'unauthorized', 'Unable to authenticate user with credentials provided.');
    });
  });

  describe('GET and DELETE /v2.0/tokens/{tokenId}', () => {
    it('400 badRequest for belongsTo given twice, or empty', async () => {
      const twice = await inject(h, 'GET', `/v2.0/tokens/${alice}?belongsTo=t1&belongsTo=t1`, { token: alice });
      expectIdentityFault(twice, 400, 'badRequest');
      expect(twice.json.badRequest.message).toContain('belongsTo');
      const empty = await inject(h, 'GET', `/v2.0/tokens/${alice}?belongsTo=`, { token: alice });
      expectIdentityFault(empty, 400, 'badRequest');
      expect(empty.json.badRequest.message).toContain('belongsTo');
    });

    it('400 badRequest for an empty token id', async () => {
      const res = await inject(h, 'GET', '/v2.0/tokens/', { token: alice });
      expectIdentityFault(res, 400, 'badRequest');
      expect(res.json.badRequest.message).toContain('tokenId');
    });

    it('400 badRequest, in the identity shape, for a token id that is not valid percent-encoding', async () => {
      expectIdentityFault(await inject(h, 'GET', '/v2.0/tokens/%zz', { token: alice }), 400, 'badRequest');
    });

    it('answers a token id longer than any URL parameter may be in the identity shape, not fastify\'s', async () => {
      const res = await inject(h, 'GET', `/v2.0/tokens/${'a'.repeat(3000)}`, { token: alice });
      expectIdentityFault(res, 400, 'badRequest');
    });

    it('404 itemNotFound for an unknown token, and for belongsTo another tenant', async () => {
      expectIdentityFault(await inject(h, 'GET', `/v2.0/tokens/${'0'.repeat(32)}`, { token: alice }), 404, 'itemNotFound');
      expectIdentityFault(await inject(h, 'GET', `/v2.0/tokens/${alice}?belongsTo=t2`, { token: alice }), 404, 'itemNotFound');
    });

    it('403 forbidden (IDENTITY_TOKEN_FORBIDDEN) when a non-admin validates or revokes another token, and the refused revoke revokes nothing', async () => {
      const message = 'Only an admin may validate or revoke a token other than its own.';
      expectIdentityFault(await inject(h, 'GET', `/v2.0/tokens/${alice}`, { token: olga }), 403, 'forbidden', message);
      expectIdentityFault(await inject(h, 'DELETE', `/v2.0/tokens/${alice}`, { token: olga }), 403, 'forbidden', message);
      const still = await inject(h, 'GET', `/v2.0/tokens/${alice}`, { token: alice });
      expect(still.status).toBe(200);
      expect(still.json.access.token.id).toBe(alice);
    });

    it('401 unauthorized without X-Auth-Token, before any parameter is looked at', async () => {
      expectIdentityFault(await inject(h, 'GET', `/v2.0/tokens/${alice}?belongsTo=`), 401, 'unauthorized');
      expectIdentityFault(await inject(h, 'DELETE', '/v2.0/tokens'), 401, 'unauthorized');
    });

    it('415 badMediaType (HTTP_ACCEPT_UNSUPPORTED) for an Accept that allows no JSON', async () => {
      expectIdentityFault(await inject(h, 'GET', `/v2.0/tokens/${alice}`, { token: alice, accept: 'text/html' }), 415, 'badMediaType', ACCEPT_UNSUPPORTED);
    });

    it('HEAD validates like GET, without a body', async () => {
      const res = await inject(h, 'HEAD', `/v2.0/tokens/${alice}`, { token: alice });
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
    });
  });

  describe('methods and unknown URLs', () => {
    it.each<[string, 'GET' | 'PUT' | 'PATCH' | 'OPTIONS', string]>([
      ['/v2.0/tokens', 'GET', 'POST, DELETE'],
      ['/v2.0/tokens', 'PUT', 'POST, DELETE'],
      ['/v2.0/tokens', 'PATCH', 'POST, DELETE'],
      ['/v2.0/tokens', 'OPTIONS', 'POST, DELETE'],
      ['/v2.0/tokens/abc', 'PUT', 'GET, HEAD, DELETE'],
      ['/v2.0/tokens/abc', 'PATCH', 'GET, HEAD, DELETE'],
    ])('405 methodNotAllowed with Allow for %s %s', async (url, method, allow) => {
      const res = await inject(h, method, url, { json: credentials() });
      expectIdentityFault(res, 405, 'methodNotAllowed', `${method} is not allowed here; use ${allow}.`);
      expect(res.headers['allow']).toBe(allow);
    });

    it('405 for POST /v2.0/tokens/{id} before auth and without reading the body', async () => {
      const res = await inject(h, 'POST', '/v2.0/tokens/abc', { body: 'not json at all', type: 'text/plain', accept: 'text/html' });
      expectIdentityFault(res, 405, 'methodNotAllowed');
      expect(res.headers['allow']).toBe('GET, HEAD, DELETE');
    });

    it.each(['/v2.0', '/v2.0/', '/v2.0/tenants', '/v2.0/tokens/abc/extra', '/v2.0/users?name=alice'])('404 itemNotFound for GET %s', async (url) => {
      const res = await inject(h, 'GET', url, { token: alice });
      expectIdentityFault(res, 404, 'itemNotFound', `No resource at GET ${url.split('?')[0]}.`);
    });
  });
});
