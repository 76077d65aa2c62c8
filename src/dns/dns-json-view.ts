// Owns the JSON views of the domain-listing API: domain and record objects and their paged collections.
import { jsonDate } from './dns-dates.js';
import type { DnsLink } from './dns-paging.js';
import type { DnsRecord, Domain, Page } from './dns-types.js';

/** A collection page with its links, ready to render. */
export interface LinkedPage<T> {
  readonly page: Page<T>;
  readonly links: readonly DnsLink[];
}

/** A domain as a list entry: comment only when set (spec 2.8). */
export function domainJson(domain: Domain): Record<string, unknown> {
  return {
    name: domain.name,
    id: domain.id,
    ...(domain.comment !== undefined ? { comment: domain.comment } : {}),
    updated: jsonDate(domain.updatedMs),
    accountId: domain.accountId,
    emailAddress: domain.emailAddress,
    created: jsonDate(domain.createdMs),
  };
}

/** A record; its id is "<type>-<number>" as the reference shows record ids. */
export function recordJson(record: DnsRecord): Record<string, unknown> {
  return {
    name: record.name,
    id: `${record.type}-${record.id}`,
    type: record.type,
    data: record.data,
    ...(record.priority !== undefined ? { priority: record.priority } : {}),
    ...(record.comment !== undefined ? { comment: record.comment } : {}),
    updated: jsonDate(record.updatedMs),
    ttl: record.ttl,
    created: jsonDate(record.createdMs),
  };
}

/** `{"domains": [...], "links": [...], "totalEntries": n}`. */
export function domainsJson(linked: LinkedPage<Domain>): Record<string, unknown> {
  return { domains: linked.page.items.map(domainJson), links: linked.links, totalEntries: linked.page.totalEntries };
}

/** `{"records": [...], "links": [...], "totalEntries": n}`. */
export function recordsJson(linked: LinkedPage<DnsRecord>): Record<string, unknown> {
  return { records: linked.page.items.map(recordJson), links: linked.links, totalEntries: linked.page.totalEntries };
}

/** One domain with its ttl and, when shown, its paged recordsList and subdomains. */
export function domainDetailJson(domain: Domain, records: LinkedPage<DnsRecord> | undefined, subdomains: LinkedPage<Domain> | undefined): Record<string, unknown> {
  return {
    ...domainJson(domain),
    ttl: domain.ttl,
    ...(records !== undefined ? { recordsList: recordsJson(records) } : {}),
    ...(subdomains !== undefined ? { subdomains: domainsJson(subdomains) } : {}),
  };
}
