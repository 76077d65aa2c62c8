// Checks the limit and offset rules of spec 7 rule 4 and 8, and when next and previous links appear.
import { describe, expect, it } from 'vitest';
import { DNS_PAGE_DEFAULT, DNS_PAGE_MAX } from '../../src/dns/dns-limits.js';
import { pageLinks, parseWindow } from '../../src/dns/dns-paging.js';

const href = (w: { limit: number; offset: number }) => `u?limit=${w.limit}&offset=${w.offset}`;

describe('parseWindow', () => {
  it('defaults to limit 100 and offset 0; a limit above the maximum means the default', () => {
    expect(parseWindow({})).toEqual({ limit: DNS_PAGE_DEFAULT, offset: 0 });
    expect(parseWindow({ limit: String(DNS_PAGE_MAX + 1) })).toEqual({ limit: DNS_PAGE_DEFAULT, offset: 0 });
    expect(parseWindow({ limit: '3', offset: '6' })).toEqual({ limit: 3, offset: 6 });
    expect(parseWindow({ limit: '', offset: '' })).toEqual({ limit: DNS_PAGE_DEFAULT, offset: 0 });
  });

  it('refuses an offset that is not 0 or a multiple of the limit (offset 5 with no limit)', () => {
    expect(() => parseWindow({ offset: '5' })).toThrow(expect.objectContaining({ code: 'DNS_OFFSET_INVALID', kind: 'invalid' }));
    expect(() => parseWindow({ limit: '3', offset: '4' })).toThrow(expect.objectContaining({ code: 'DNS_OFFSET_INVALID' }));
    expect(() => parseWindow({ offset: '-100' })).toThrow(expect.objectContaining({ code: 'DNS_OFFSET_INVALID' }));
  });

  it.each(['0', '-1', 'x', '1.5'])('refuses limit %s', (limit) => {
    expect(() => parseWindow({ limit })).toThrow(expect.objectContaining({ code: 'DNS_LIMIT_INVALID' }));
  });
});

describe('pageLinks', () => {
  const page = (total: number, limit: number, offset: number) => ({ items: [], totalEntries: total, window: { limit, offset } });

  it('has no links when everything fits', () => {
    expect(pageLinks(page(3, 3, 0), href)).toEqual([]);
    expect(pageLinks(page(0, 3, 0), href)).toEqual([]);
  });

  it('has next only when more follow and previous only when earlier items exist, with empty content', () => {
    expect(pageLinks(page(7, 3, 0), href)).toEqual([{ rel: 'next', href: 'u?limit=3&offset=3', content: '' }]);
    expect(pageLinks(page(7, 3, 3), href).map((l) => l.rel)).toEqual(['previous', 'next']);
    expect(pageLinks(page(7, 3, 6), href)).toEqual([{ rel: 'previous', href: 'u?limit=3&offset=3', content: '' }]);
  });

  it('points previous from beyond the end at the last page with items', () => {
    expect(pageLinks(page(7, 3, 30), href)).toEqual([{ rel: 'previous', href: 'u?limit=3&offset=6', content: '' }]);
    expect(pageLinks(page(0, 3, 30), href)).toEqual([]);
  });
});
