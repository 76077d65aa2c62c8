// Checks names reserved in JavaScript objects (__proto__, constructor, ...) against the domain listing: it takes no HTTP body (a body-carrying method is its 405), its URLs answer its own faults, and the CLI's import reader treats them as data.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readImport } from '../../../../src/dns/dns-import.js';
import { isStrataError } from '../../../../src/core/errors.js';
import { DNS_TTL_DEFAULT_S } from '../../../../src/dns/dns-limits.js';
import { startHarness, type Harness } from '../../harness.js';
import { tokenOf } from '../../inject.js';
import { guardPrototypes } from '../../prototype-guard.js';

const BASE = '/dns/v1.0/t1';
const RESERVED = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'] as const;
const POLLUTING = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"domains":[]}';

let h: Harness;
let alice: string;

async function send(method: 'GET' | 'POST' | 'PUT', url: string, body?: string): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { 'x-auth-token': alice, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return h.app.inject({ method, url, headers, ...(body !== undefined ? { payload: body } : {}) });
}

/** Asserts the unwrapped JSON DNS fault {message, code, details} with the version header. */
function expectDnsFault(res: LightMyRequestResponse, status: number, code: string): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['x-api-version']).toBe('1.0.0');
  const body = res.json() as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'details', 'message']);
  expect(body['code']).toBe(status);
  expect(body['details']).toBe(code);
}

/** The messages of the DNS_IMPORT_INVALID a document raises, or [] when it imports. */
function importProblems(document: unknown): string[] {
  try {
    readImport(document);
    return [];
  } catch (error) {
    if (!isStrataError(error) || error.code !== 'DNS_IMPORT_INVALID') throw error;
    return error.details['messages'] as string[];
  }
}

beforeAll(async () => {
  h = await startHarness({});
  alice = await tokenOf(h, 'alice');
});
afterAll(async () => h.close());
guardPrototypes();

describe('the domain listing over HTTP', () => {
  it('takes no body: POST and PUT of a polluting JSON body are its 405, and the listing is unchanged', async () => {
    const before = (await send('GET', `${BASE}/domains`)).body;
    for (const method of ['POST', 'PUT'] as const) {
      for (const path of ['/domains', '/domains/1']) {
        const res = await send(method, `${BASE}${path}`, POLLUTING);
        expectDnsFault(res, 405, 'HTTP_METHOD_NOT_ALLOWED');
        expect(res.headers['allow']).toBeDefined();
      }
    }
    expect((await send('GET', `${BASE}/domains`)).body).toBe(before);
  });

  it.each(RESERVED)('%s as a domain id is a 404 and as a name filter an empty page', async (name) => {
    expectDnsFault(await send('GET', `${BASE}/domains/${name}`), 404, 'DNS_DOMAIN_NOT_FOUND');
    const filtered = await send('GET', `${BASE}/domains?name=${name}`);
    expect(filtered.statusCode, filtered.body).toBe(200);
    expect((filtered.json() as { domains: unknown[] }).domains).toEqual([]);
  });
});

describe('the import reader (dns import, from a JSON file)', () => {
  const domain = (extra: Record<string, unknown> = {}) => ({ name: 'example.com', emailAddress: 'hostmaster@example.com', ...extra });

  it('a file with its domains only under __proto__ has no domains: DNS_IMPORT_INVALID', () => {
    expect(importProblems(JSON.parse('{"__proto__":{"domains":[{"name":"example.com","emailAddress":"a@example.com"}]}}'))).toEqual(['domains: must be an array']);
  });

  it('__proto__ and constructor.prototype keys inside a domain or record are ignored, as unknown keys are', () => {
    const text = `{"domains":[{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"name":"example.com","emailAddress":"a@example.com",
      "recordsList":{"records":[{"__proto__":{"ttl":1},"name":"www.example.com","type":"A","data":"192.0.2.1"}]}}]}`;
    const [read] = readImport(JSON.parse(text));
    expect(read).toMatchObject({ name: 'example.com', records: [{ name: 'www.example.com', type: 'A', data: '192.0.2.1', ttl: DNS_TTL_DEFAULT_S }] });
  });

  it.each(RESERVED)('%s as a record type, list key or domain name is refused with its place', (name) => {
    expect(importProblems({ domains: [domain({ recordsList: { records: [{ name: 'example.com', type: name, data: 'x' }] } })] })).not.toEqual([]);
    expect(importProblems({ domains: [domain({ recordsList: { [name]: [] } })] })).toEqual(['domains[0].recordsList: must be {"records": [...]}']);
    expect(importProblems({ domains: [domain({ name })] })[0]).toMatch(/^domains\[0\]\.name: /);
  });

  it.each(RESERVED)('%s as a comment is plain text', (name) => {
    expect(readImport({ domains: [domain({ comment: name })] })[0]?.comment).toBe(name);
  });
});
