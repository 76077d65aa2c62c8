// Property over real HTTP: following next hrefs of the DNS API visits every domain once, totalEntries right, in JSON and XML.
import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startHarness, type Harness } from '../http/harness.js';

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['domain', 'ns2:link'].includes(name) });

interface Collected {
  readonly names: string[];
  readonly totals: number[];
}

async function walk(h: Harness, token: string, firstPath: string, accept: 'application/json' | 'application/xml'): Promise<Collected> {
  const names: string[] = [];
  const totals: number[] = [];
  let path: string | undefined = firstPath;
  for (let guard = 0; path !== undefined && guard < 200; guard++) {
    const res = await call(h, 'GET', path, { token, headers: { accept } });
    expect(res.status).toBe(200);
    let next: string | undefined;
    if (accept === 'application/json') {
      names.push(...res.json.domains.map((d: { name: string }) => d.name));
      totals.push(res.json.totalEntries);
      next = res.json.links.find((l: { rel: string }) => l.rel === 'next')?.href;
    } else {
      const doc = xml.parse(res.text).domains;
      names.push(...(doc.domain ?? []).map((d: { name: string }) => d.name));
      totals.push(Number(doc.totalEntries));
      next = (doc['ns2:link'] ?? []).find((l: { rel: string }) => l.rel === 'next')?.href;
    }
    path = next === undefined ? undefined : new URL(next).pathname + new URL(next).search;
  }
  return { names, totals };
}

describe('DNS paging over HTTP', () => {
  let h: Harness;
  let run = 0;
  beforeAll(async () => {
    h = await startHarness({});
  });
  afterAll(async () => h.close());

  it('visits every domain once and reports the filtered total, for any data and limit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 25 }), fc.integer({ min: 1, max: 9 }), fc.nat(30), async (count, limit, pick) => {
        const tenant = `p${run++}`;
        const apiKey = `key-${tenant}-0123456789abcdef`;
        h.identity.createUser({ username: `u${tenant}`, tenant, role: 'observer', apiKey });
        const names = Array.from({ length: count }, (_, i) => `n${i}.example.net`);
        h.app.strata.dns.importDocument(tenant, { domains: names.map((name) => ({ name, emailAddress: 'a@example.net' })) });
        const auth = await call(h, 'POST', '/v2.0/tokens', { json: { auth: { 'RAX-KSKEY:apiKeyCredentials': { username: `u${tenant}`, apiKey } } } });
        const token = auth.json.access.token.id as string;
        for (const accept of ['application/json', 'application/xml'] as const) {
          const all = await walk(h, token, `/dns/v1.0/${tenant}/domains?limit=${limit}`, accept);
          expect(all.names).toEqual(names);
          expect(all.totals.every((t) => t === count)).toBe(true);
          const target = names[pick % count] as string;
          const one = await walk(h, token, `/dns/v1.0/${tenant}/domains?name=${target}&limit=${limit}`, accept);
          expect(one).toEqual({ names: [target], totals: [1] });
        }
      }),
      { numRuns: 12 },
    );
  });
});
