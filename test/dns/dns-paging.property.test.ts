// Property: for every filter, walking next links from offset 0 visits every item once, and totalEntries is the true count.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { pageLinks, parseWindow } from '../../src/dns/dns-paging.js';
import { DNS_PAGE_MAX } from '../../src/dns/dns-limits.js';
import { openDns, type Dns } from '../../src/dns/dns-service.js';
import type { Page, PageWindow } from '../../src/dns/dns-types.js';

interface Shape {
  readonly records: number;
  readonly subdomains: number;
}

/** An import document with `shapes.length` domains, each with some records and subdomains. */
function document(shapes: readonly Shape[]): unknown {
  return {
    domains: shapes.map((shape, i) => ({
      name: `d${i}.example.com`,
      emailAddress: 'h@example.com',
      recordsList: { records: Array.from({ length: shape.records }, (_, r) => ({ name: `r${r}.d${i}.example.com`, type: 'A', data: '192.0.2.1' })) },
      subdomains: { domains: Array.from({ length: shape.subdomains }, (_, s) => ({ name: `s${s}.d${i}.example.com`, emailAddress: 'h@example.com' })) },
    })),
  };
}

const HREF_BASE = 'http://h/dns/v1.0/t1/x';

/** Walks next links the way a client does (parse each href's query) and collects every item key. */
function walkNext<T>(read: (window: PageWindow) => Page<T>, key: (item: T) => string, limit: number): { keys: string[]; totals: number[] } {
  const keys: string[] = [];
  const totals: number[] = [];
  let window: PageWindow | undefined = parseWindow({ limit: String(limit) });
  for (let guard = 0; window !== undefined && guard < 10_000; guard++) {
    const page = read(window);
    keys.push(...page.items.map(key));
    totals.push(page.totalEntries);
    const links = pageLinks(page as Page<unknown>, (w) => `${HREF_BASE}?limit=${w.limit}&offset=${w.offset}`);
    if (window.offset > 0) expect(links.some((l) => l.rel === 'previous')).toBe(true);
    const next = links.find((l) => l.rel === 'next');
    window = next === undefined ? undefined : parseWindow(Object.fromEntries(new URL(next.href).searchParams));
  }
  return { keys, totals };
}

function check<T>(read: (window: PageWindow) => Page<T>, key: (item: T) => string, limit: number, expected: readonly string[]): void {
  const { keys, totals } = walkNext(read, key, limit);
  expect(keys).toEqual(expected);
  expect(new Set(keys).size).toBe(keys.length);
  expect(totals.every((t) => t === expected.length)).toBe(true);
}

const shapes = fc.array(fc.record({ records: fc.nat(12), subdomains: fc.nat(5) }), { maxLength: 15 });
// Limits beyond the maximum are read as the default (spec 8); include them.
const limits = fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: DNS_PAGE_MAX - 1, max: DNS_PAGE_MAX + 50 }));

describe('domain-listing paging', () => {
  it('visits every item once and reports the right totalEntries for every filter', () => {
    fc.assert(
      fc.property(shapes, limits, fc.nat(20), (domainShapes, limit, pick) => {
        const dns: Dns = openDns({ dir: undefined, clock: new ManualClock(1_700_000_000_123) });
        if (domainShapes.length > 0) dns.importDocument('t1', document(domainShapes));
        dns.importDocument('t2', document([{ records: 2, subdomains: 1 }]));
        const names = domainShapes.flatMap((shape, i) => [`d${i}.example.com`, ...Array.from({ length: shape.subdomains }, (_, s) => `s${s}.d${i}.example.com`)]);
        const byName = (d: { name: string }) => d.name;
        check((w) => dns.domains('t1', undefined, w), byName, limit, names);
        const target = names[pick % Math.max(names.length, 1)] ?? 'absent.example.com';
        check((w) => dns.domains('t1', target, w), byName, limit, names.includes(target) ? [target] : []);
        check((w) => dns.domains('t1', 'absent.example.com', w), byName, limit, []);
        const index = pick % Math.max(domainShapes.length, 1);
        const shape = domainShapes[index];
        if (shape !== undefined) {
          const id = dns.domains('t1', `d${index}.example.com`, { limit: 1, offset: 0 }).items[0]?.id as number;
          check((w) => dns.subdomains('t1', id, w), byName, limit, Array.from({ length: shape.subdomains }, (_, s) => `s${s}.d${index}.example.com`));
          check((w) => dns.records('t1', id, w), (r) => r.name, limit, Array.from({ length: shape.records }, (_, r) => `r${r}.d${index}.example.com`));
        }
        dns.close();
      }),
      { numRuns: 60 },
    );
  });
});
