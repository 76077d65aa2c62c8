// Checks that names reserved in JavaScript objects (__proto__, constructor, ...) in authentication bodies and token URLs answer the identity fault shape (or authenticate, where they are mere unknown keys), never a 500, and never touch Object.prototype.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startHarness, type Harness } from '../../harness.js';
import { expectIdentityFault, inject, tokenOf } from '../../inject.js';
import { guardPrototypes } from '../../prototype-guard.js';

const CREDENTIAL_KEY = 'RAX-KSKEY:apiKeyCredentials';
const RESERVED = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'] as const;
const MAP_SAFE = ['constructor', 'prototype', 'hasOwnProperty', 'toString'] as const;
const AUTH_BODY_INVALID = 'Invalid request body: unable to parse Auth data. Please review XML or JSON formatting.';
const ALICE = `{"username":"alice","apiKey":"${KEYS.alice}"}`;

let h: Harness;
let alice: string;

const authenticate = (body: string) => inject(h, 'POST', '/v2.0/tokens', { body, type: 'application/json' });

beforeAll(async () => {
  h = await startHarness({});
  alice = await tokenOf(h, 'alice');
});
afterAll(async () => h.close());
guardPrototypes();

describe('POST /v2.0/tokens with reserved names', () => {
  it.each([
    ['__proto__ beside auth', `{"__proto__":{"polluted":"yes"},"auth":{"${CREDENTIAL_KEY}":${ALICE}}}`],
    ['__proto__ inside auth', `{"auth":{"__proto__":{"polluted":"yes"},"${CREDENTIAL_KEY}":${ALICE}}}`],
    ['__proto__ inside the credentials', `{"auth":{"${CREDENTIAL_KEY}":{"__proto__":{"polluted":"yes"},"username":"alice","apiKey":"${KEYS.alice}"}}}`],
    ['the credentials only under __proto__', `{"auth":{"__proto__":{"${CREDENTIAL_KEY}":${ALICE}}}}`],
    ['constructor.prototype beside auth', `{"constructor":{"prototype":{"polluted":"yes"}},"auth":{"${CREDENTIAL_KEY}":${ALICE}}}`],
    ['constructor.prototype inside the credentials', `{"auth":{"${CREDENTIAL_KEY}":{"constructor":{"prototype":{}},"username":"alice","apiKey":"${KEYS.alice}"}}}`],
  ])('%s is the 400 badRequest of an unusable body', async (_name, body) => {
    expectIdentityFault(await authenticate(body), 400, 'badRequest', AUTH_BODY_INVALID);
  });

  it.each(MAP_SAFE)('%s as an extra key at any level is ignored, as any unknown key is: alice authenticates', async (name) => {
    const body = { [name]: 'x', auth: { [name]: { a: 1 }, [CREDENTIAL_KEY]: { username: 'alice', apiKey: KEYS.alice, [name]: 'y' } } };
    const res = await authenticate(JSON.stringify(body));
    expect(res.status, res.text).toBe(200);
    expect(res.json.access.token.tenant.id).toBe('t1');
  });

  it.each(MAP_SAFE)('credentials under %s instead of the credential key are a 400', async (name) => {
    expectIdentityFault(await authenticate(JSON.stringify({ auth: { [name]: { username: 'alice', apiKey: KEYS.alice } } })), 400, 'badRequest', AUTH_BODY_INVALID);
  });

  it.each(RESERVED)('%s as a username, API key or tenant does not authenticate: 401', async (name) => {
    for (const body of [
      { auth: { [CREDENTIAL_KEY]: { username: name, apiKey: KEYS.alice } } },
      { auth: { [CREDENTIAL_KEY]: { username: 'alice', apiKey: name } } },
      { auth: { [CREDENTIAL_KEY]: { username: 'alice', apiKey: KEYS.alice }, tenantId: name } },
      { auth: { [CREDENTIAL_KEY]: { username: 'alice', apiKey: KEYS.alice }, tenantName: name } },
    ]) {
      expectIdentityFault(await authenticate(JSON.stringify(body)), 401, 'unauthorized');
    }
  });
});

describe('token URLs with reserved names', () => {
  it.each(RESERVED)('validating or revoking token %s is a 404; belongsTo=%s is a 404', async (name) => {
    expectIdentityFault(await inject(h, 'GET', `/v2.0/tokens/${name}`, { token: alice }), 404, 'itemNotFound');
    expectIdentityFault(await inject(h, 'DELETE', `/v2.0/tokens/${name}`, { token: alice }), 404, 'itemNotFound');
    expectIdentityFault(await inject(h, 'GET', `/v2.0/tokens/${alice}?belongsTo=${name}`, { token: alice }), 404, 'itemNotFound');
    expect((await inject(h, 'GET', `/v2.0/tokens/${alice}`, { token: alice })).status).toBe(200);
  });

  it.each(RESERVED)('an X-Auth-Token %s is a 401', async (name) => {
    expectIdentityFault(await inject(h, 'GET', `/v2.0/tokens/${alice}`, { token: name }), 401, 'unauthorized');
  });
});
