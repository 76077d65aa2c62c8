// Checks Accept negotiation (negotiator): which requests are refused (415) and which type an answer takes.
import fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerType, essence, negotiate } from '../../src/http/content-negotiation.js';
import { toErrorView } from '../../src/http/error-view.js';
import type { RouteRules } from '../../src/http/route-rules.js';

const DNS: [string, ...string[]] = ['application/json', 'application/xml'];
const FEEDS: [string, ...string[]] = ['application/atom+xml', 'application/xml', 'application/json', 'application/vnd.rackspace.atom+json'];
let app: FastifyInstance;

beforeAll(async () => {
  app = fastify();
  app.addHook('onRequest', async (request) => negotiate(request));
  app.setErrorHandler((error, _request, reply) => reply.code(toErrorView(error).status).send({ code: toErrorView(error).code }));
  const route = (url: string, offered: [string, ...string[]]) =>
    app.get(url, { config: { access: 'public', produces: offered } satisfies RouteRules }, async (request) => ({ type: answerType(request, offered) }));
  route('/json', ['application/json']);
  route('/dns', DNS);
  route('/feeds', FEEDS);
  await app.ready();
});
afterAll(() => app.close());

async function typeFor(url: string, accept?: string): Promise<string> {
  const res = await app.inject({ method: 'GET', url, headers: accept === undefined ? {} : { accept } });
  return res.statusCode === 200 ? (res.json() as { type: string }).type : `refused ${(res.json() as { code: string }).code}`;
}

describe('media types', () => {
  it('takes the essence of a media type', () => {
    expect(essence('Application/JSON; charset=utf-8')).toBe('application/json');
  });

  it('allows JSON for absent, empty, wildcard and JSON Accept headers, in any case; refuses the rest with HTTP_ACCEPT_UNSUPPORTED', async () => {
    for (const accept of [undefined, '', '*/*', 'application/json', 'application/*', 'text/html, application/json;q=0.1', 'APPLICATION/JSON', 'application/json; charset=utf-8', 'application/json;charset=UTF-8;q=0.5']) {
      expect(await typeFor('/json', accept)).toBe('application/json');
    }
    for (const accept of ['text/html', 'application/xml', 'application/json;q=0', 'text/*', 'application/json;Q=0']) {
      expect(await typeFor('/json', accept)).toBe('refused HTTP_ACCEPT_UNSUPPORTED');
    }
  });

  it('answers the first offered type when Accept states no preference', async () => {
    expect(await typeFor('/dns')).toBe('application/json');
    expect(await typeFor('/feeds', '')).toBe('application/atom+xml');
    expect(await typeFor('/feeds', '*/*')).toBe('application/atom+xml');
  });

  it('follows exact types and q values, the most specific entry deciding', async () => {
    expect(await typeFor('/dns', 'application/xml')).toBe('application/xml');
    expect(await typeFor('/dns', 'application/json;q=0.5, application/xml')).toBe('application/xml');
    expect(await typeFor('/dns', 'application/*;q=0.2, application/json;q=0.9')).toBe('application/json');
    expect(await typeFor('/feeds', 'application/vnd.rackspace.atom+json')).toBe('application/vnd.rackspace.atom+json');
    expect(await typeFor('/feeds', 'text/html, application/json;q=0.9, */*;q=0.8')).toBe('application/json');
    expect(await typeFor('/dns', 'application/xml;q=0, */*')).toBe('application/json');
  });
});
