// Owns the XML views of the domain-listing API, in the reference's namespace, built with a real XML builder.
import { XMLBuilder } from 'fast-xml-parser';
import { ATOM_NS } from '../feeds/atom-view.js';
import { xmlDate } from './dns-dates.js';
import type { LinkedPage } from './dns-json-view.js';
import type { DnsLink } from './dns-paging.js';
import type { DnsRecord, Domain } from './dns-types.js';

/** The namespace of the domain-listing API's XML. */
export const DNS_NS = 'http://docs.rackspacecloud.com/dns/api/v1.0';
/** The Atom namespace, which links are in (prefix ns2, as the reference writes them). */

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', format: true, suppressEmptyNode: true });
const DECLARATION = { '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8', '@_standalone': 'yes' } };
const NAMESPACES = { '@_xmlns': DNS_NS, '@_xmlns:ns2': ATOM_NS };

function domainAttributes(domain: Domain, withTtl: boolean): Record<string, string | number> {
  return {
    '@_id': domain.id,
    '@_accountId': domain.accountId,
    '@_name': domain.name,
    ...(withTtl ? { '@_ttl': domain.ttl } : {}),
    '@_emailAddress': domain.emailAddress,
    '@_updated': xmlDate(domain.updatedMs),
    '@_created': xmlDate(domain.createdMs),
    ...(domain.comment !== undefined ? { '@_comment': domain.comment } : {}),
  };
}

function recordAttributes(record: DnsRecord): Record<string, string | number> {
  return {
    '@_id': `${record.type}-${record.id}`,
    '@_type': record.type,
    '@_name': record.name,
    '@_data': record.data,
    '@_ttl': record.ttl,
    ...(record.priority !== undefined ? { '@_priority': record.priority } : {}),
    '@_updated': xmlDate(record.updatedMs),
    '@_created': xmlDate(record.createdMs),
    ...(record.comment !== undefined ? { '@_comment': record.comment } : {}),
  };
}

function linkNodes(links: readonly DnsLink[]): Record<string, string>[] {
  return links.map((link) => ({ '@_href': link.href, '@_rel': link.rel }));
}

function domainsNode(linked: LinkedPage<Domain>): Record<string, unknown> {
  return { '@_totalEntries': linked.page.totalEntries, domain: linked.page.items.map((d) => domainAttributes(d, false)), 'ns2:link': linkNodes(linked.links) };
}

function recordsNode(linked: LinkedPage<DnsRecord>): Record<string, unknown> {
  return { '@_totalEntries': linked.page.totalEntries, record: linked.page.items.map(recordAttributes), 'ns2:link': linkNodes(linked.links) };
}

/** `<domains totalEntries="n"><domain .../>…<ns2:link .../></domains>`. */
export function domainsXml(linked: LinkedPage<Domain>): string {
  return builder.build({ ...DECLARATION, domains: { ...NAMESPACES, ...domainsNode(linked) } }) as string;
}

/** `<records totalEntries="n"><record .../>…</records>`. */
export function recordsXml(linked: LinkedPage<DnsRecord>): string {
  return builder.build({ ...DECLARATION, records: { ...NAMESPACES, ...recordsNode(linked) } }) as string;
}

/** `<domain ...><recordsList totalEntries>…</recordsList><subdomains totalEntries>…</subdomains></domain>`. */
export function domainDetailXml(domain: Domain, records: LinkedPage<DnsRecord> | undefined, subdomains: LinkedPage<Domain> | undefined): string {
  return builder.build({
    ...DECLARATION,
    domain: {
      ...NAMESPACES,
      ...domainAttributes(domain, true),
      ...(records !== undefined ? { recordsList: recordsNode(records) } : {}),
      ...(subdomains !== undefined ? { subdomains: domainsNode(subdomains) } : {}),
    },
  }) as string;
}
