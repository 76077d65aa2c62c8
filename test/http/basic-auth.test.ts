// Checks reading HTTP basic credentials and verifying them with the identity service's key check.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { basicChallenge, basicPrincipal } from '../../src/http/basic-auth.js';
import { openIdentity } from '../../src/identity/identity-service.js';

const dir = mkdtempSync(join(tmpdir(), 'strata-basic-'));
const identity = openIdentity({ dir, clock: new ManualClock(1_000_000) });
identity.createUser({ username: 'ann', tenant: 't1', role: 'observer', apiKey: 'ann-key-0123456789abc' });
afterAll(() => {
  identity.close();
  rmSync(dir, { recursive: true, force: true });
});

const request = (authorization?: string) => ({ headers: authorization === undefined ? {} : { authorization } }) as unknown as FastifyRequest;
const encode = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
const refused = expect.objectContaining({ code: 'AUTH_BASIC_INVALID', kind: 'unauthenticated' });

describe('basicPrincipal', () => {
  it('is undefined without basic credentials, so the token rules apply', () => {
    expect(basicPrincipal(request(), identity)).toBeUndefined();
    expect(basicPrincipal(request('Bearer abc'), identity)).toBeUndefined();
  });

  it('gives the user of a right username and API key, for this request only', () => {
    const principal = basicPrincipal(request(encode('ann:ann-key-0123456789abc')), identity);
    expect(principal?.user).toMatchObject({ username: 'ann', tenant: 't1', role: 'observer' });
    expect(principal?.expiresMs).toBe(1_000_000);
    expect(basicPrincipal(request(`basic  ${Buffer.from('ann:ann-key-0123456789abc').toString('base64')}`), identity)?.user.username).toBe('ann');
  });

  it.each([
    ['a wrong key', encode('ann:wrong-key-0123456789')],
    ['an unknown user', encode('bob:ann-key-0123456789abc')],
    ['no colon', encode('ann')],
    ['an empty username', encode(':ann-key-0123456789abc')],
    ['bad Base64', 'Basic %%%'],
    ['an oversized header', encode(`ann:${'k'.repeat(2000)}`)],
  ])('refuses %s with AUTH_BASIC_INVALID', (_name, header) => {
    expect(() => basicPrincipal(request(header), identity)).toThrow(refused);
  });

  it('challenges with a Basic realm', () => {
    expect(basicChallenge()).toMatch(/^Basic realm="[^"]+"/);
  });
});
