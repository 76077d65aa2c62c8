// Checks import validation (every problem reported, nothing partial) and what an import assigns.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { readImport } from '../../src/dns/dns-import.js';
import { DNS_TTL_DEFAULT_S } from '../../src/dns/dns-limits.js';
import { openDns } from '../../src/dns/dns-service.js';

const EXAMPLE = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../examples/dns-domains.json'), 'utf8')) as unknown;

function problems(document: unknown): string[] {
  try {
    readImport(document);
  } catch (error) {
    return (error as { details: { messages: string[] } }).details.messages;
  }
  return [];
}

describe('readImport', () => {
  it('reads the shipped example: names lower-cased, default TTL, nested subdomains', () => {
    const domains = readImport(EXAMPLE);
    expect(domains.map((d) => d.name)).toEqual(['example.com', 'example.org']);
    expect(domains[0]?.subdomains.map((d) => d.name)).toEqual(['sub1.example.com', 'sub2.example.com']);
    expect(readImport({ domains: [{ name: 'A.Example.COM', emailAddress: 'a@b.co' }] })[0]).toMatchObject({ name: 'a.example.com', ttl: DNS_TTL_DEFAULT_S });
  });

  it('reports every problem with its place in the file', () => {
    const messages = problems({
      domains: [
        { name: 'ok.com', emailAddress: 'nope', ttl: 10 },
        { emailAddress: 'a@b.co' },
        { name: 'ok.com', emailAddress: 'a@b.co', subdomains: { domains: [{ name: 'x.other.com', emailAddress: 'a@b.co' }] } },
        {
          name: 'r.com',
          emailAddress: 'a@b.co',
          recordsList: {
            records: [
              { name: 'r.com', type: 'A', data: '::1' },
              { name: 'r.com', type: 'MX', data: 'mx.r.com' },
              { name: 'x.com', type: 'TXT', data: 'x' },
              { name: 'r.com', type: 'BOGUS', data: 'x' },
              { name: 'r.com', type: 'A', data: '192.0.2.1', priority: 3 },
            ],
          },
        },
      ],
    });
    expect(messages).toEqual([
      'domains[0].emailAddress: must be an email address of at most 254 characters',
      'domains[0].ttl: must be an integer from 300 to 2147483647',
      'domains[1].name: Must provide a name for each domain',
      'domains[2].name: ok.com appears more than once in the file',
      'domains[2].subdomains.domains[0].name: a subdomain of ok.com must end with .ok.com',
      'domains[3].recordsList.records[0]: data of an A record must be an IPv4 address',
      'domains[3].recordsList.records[1]: a MX record needs a priority from 0 to 65535',
      'domains[3].recordsList.records[2].name: x.com must be r.com or end with .r.com',
      'domains[3].recordsList.records[3]: type must be one of A, AAAA, CNAME, MX, NS, PTR, SRV, TXT',
      'domains[3].recordsList.records[4]: only MX and SRV records have a priority',
    ]);
  });

  it('refuses a document that is not {"domains": [...]}, or holds none', () => {
    expect(() => readImport([])).toThrow(expect.objectContaining({ code: 'DNS_IMPORT_INVALID' }));
    expect(problems({ domains: [] })).toEqual(['domains: must hold at least one domain']);
  });
});

describe('Dns.importDocument', () => {
  it('assigns ids, one accountId per tenant and whole-second times; a clash imports nothing', () => {
    const dns = openDns({ dir: undefined, clock: new ManualClock(1_700_000_000_999) });
    expect(dns.importDocument('t1', EXAMPLE)).toEqual({ domains: 4, records: 8 });
    const page = dns.domains('t1', undefined, { limit: 10, offset: 0 });
    expect(new Set(page.items.map((d) => d.accountId)).size).toBe(1);
    expect(page.items.every((d) => d.createdMs === 1_700_000_000_000 && d.updatedMs === d.createdMs)).toBe(true);
    const clash = { domains: [{ name: 'new.com', emailAddress: 'a@b.co' }, { name: 'example.org', emailAddress: 'a@b.co' }] };
    expect(() => dns.importDocument('t1', clash)).toThrow(expect.objectContaining({ code: 'DNS_IMPORT_INVALID' }));
    expect(dns.domains('t1', 'new.com', { limit: 10, offset: 0 }).totalEntries).toBe(0);
    // The same names are free in another tenant, which gets its own accountId.
    expect(dns.importDocument('t2', clash)).toEqual({ domains: 2, records: 0 });
    expect(dns.domains('t2', undefined, { limit: 10, offset: 0 }).items[0]?.accountId).not.toBe(page.items[0]?.accountId);
    dns.close();
  });
});
