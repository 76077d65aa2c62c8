// Checks HTTP basic credentials through @fastify/basic-auth and the identity service's key check, on a real fastify instance.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { toErrorView } from '../../src/http/error-view.js';
import { basicChallenge, useBasicAuth } from '../../src/http/basic-auth.js';
import { openIdentity } from '../../src/identity/identity-service.js';

const dir = mkdtempSync(join(tmpdir(), 'strata-basic-'));
const identity = openIdentity({ dir, clock: new ManualClock(1_000_000) });
identity.createUser({ username: 'ann', tenant: 't1', role: 'observer', apiKey: 'ann-key-0123456789abc' });
let app: FastifyInstance;

beforeAll(async () => {
  app = fastify();
  const authenticate = await useBasicAuth(app, identity);
  app.setErrorHandler((error, _request, reply) => {
    const view = toErrorView(error);
    return reply.code(view.status).send({ code: view.code });
  });
  app.get('/who', async (request, reply) => {
    const principal = await authenticate(request, reply);
    return { ...principal.user, expiresMs: principal.expiresMs };
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  identity.close();
  rmSync(dir, { recursive: true, force: true });
});

const encode = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
const who = (authorization?: string) => app.inject({ method: 'GET', url: '/who', headers: authorization === undefined ? {} : { authorization } });

describe('basic credentials', () => {
  it('give the user of a right username and API key, for this request only', async () => {
    const res = await who(encode('ann:ann-key-0123456789abc'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ username: 'ann', tenant: 't1', role: 'observer', expiresMs: 1_000_000 });
    const spaced = await who(`basic  ${Buffer.from('ann:ann-key-0123456789abc').toString('base64')}`);
    expect(spaced.json()).toMatchObject({ username: 'ann' });
  });

  it.each([
    ['no header', undefined],
    ['another scheme', 'Bearer abc'],
    ['a wrong key', encode('ann:wrong-key-0123456789')],
    ['an unknown user', encode('bob:ann-key-0123456789abc')],
    ['no colon', encode('ann')],
    ['an empty username', encode(':ann-key-0123456789abc')],
    ['bad Base64', 'Basic %%%'],
    ['a control character', encode('ann\u0001:ann-key-0123456789abc')],
    ['an oversized key', encode(`ann:${'k'.repeat(2000)}`)],
  ])('refuse %s with AUTH_BASIC_INVALID (401)', async (_name, header) => {
    const res = await who(header);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ code: 'AUTH_BASIC_INVALID' });
  });

  it('challenge with a Basic realm', () => {
    expect(basicChallenge()).toMatch(/^Basic realm="[^"]+", charset="UTF-8"$/);
  });
});
