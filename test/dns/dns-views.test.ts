// Checks the JSON and XML views: spec 2.8 date formats, comment omitted when unset, XML a real parser reads.
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { jsonDate, xmlDate } from '../../src/dns/dns-dates.js';
import { domainJson, recordJson, recordsJson } from '../../src/dns/dns-json-view.js';
import type { DnsRecord, Domain } from '../../src/dns/dns-types.js';
import { domainDetailXml, domainsXml } from '../../src/dns/dns-xml-view.js';

const T = Date.UTC(2011, 5, 23, 3, 9, 34);
const DOMAIN: Domain = { id: 7, accountId: 1, parentId: undefined, name: 'e.com', emailAddress: 'a@e.com', ttl: 3600, comment: undefined, createdMs: T, updatedMs: T };
const RECORD: DnsRecord = { id: 9, domainId: 7, type: 'MX', name: 'e.com', data: 'mx.e.com', ttl: 300, priority: 5, comment: 'a & b', createdMs: T, updatedMs: T };
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', parseAttributeValue: true });

describe('dates', () => {
  it('JSON: YYYY-MM-DDThh:mm:ss.000+0000; XML: ISO 8601 UTC with Z', () => {
    expect(jsonDate(T)).toBe('2011-06-23T03:09:34.000+0000');
    expect(xmlDate(T)).toBe('2011-06-23T03:09:34Z');
  });
});

describe('JSON views', () => {
  it('omits comment when unset and shows record ids as TYPE-number', () => {
    expect(domainJson(DOMAIN)).toEqual({ name: 'e.com', id: 7, updated: '2011-06-23T03:09:34.000+0000', accountId: 1, emailAddress: 'a@e.com', created: '2011-06-23T03:09:34.000+0000' });
    expect(recordJson(RECORD)).toMatchObject({ id: 'MX-9', priority: 5, comment: 'a & b' });
    expect(recordsJson({ page: { items: [RECORD], totalEntries: 1, window: { limit: 1, offset: 0 } }, links: [] })).toMatchObject({ totalEntries: 1, links: [] });
  });
});

describe('XML views', () => {
  it('writes domains in the DNS namespace with ns2 links', () => {
    const links = [{ rel: 'next' as const, href: 'http://h/x?limit=1&offset=1', content: '' as const }];
    const doc = parser.parse(domainsXml({ page: { items: [DOMAIN], totalEntries: 2, window: { limit: 1, offset: 0 } }, links })).domains;
    expect(doc).toMatchObject({ xmlns: 'http://docs.rackspacecloud.com/dns/api/v1.0', 'xmlns:ns2': 'http://www.w3.org/2005/Atom', totalEntries: 2 });
    expect(doc.domain).toEqual({ id: 7, accountId: 1, name: 'e.com', emailAddress: 'a@e.com', updated: '2011-06-23T03:09:34Z', created: '2011-06-23T03:09:34Z' });
    expect(doc['ns2:link']).toEqual({ href: 'http://h/x?limit=1&offset=1', rel: 'next' });
  });

  it('writes a domain detail with its recordsList, escaping attribute text', () => {
    const text = domainDetailXml(DOMAIN, { page: { items: [RECORD], totalEntries: 1, window: { limit: 1, offset: 0 } }, links: [] }, undefined);
    const doc = parser.parse(text).domain;
    expect(doc.ttl).toBe(3600);
    expect(doc.recordsList.record).toMatchObject({ id: 'MX-9', priority: 5, comment: 'a & b' });
    expect(doc.subdomains).toBeUndefined();
  });
});
