// Owns the JSON schemas of the domain-listing API's URLs and paging parameters (their value rules are the DNS room's, dns-paging.ts).
import { TENANT_PARAM } from '../../common-schemas.js';
import { DNS_PAGE_DEFAULT, DNS_PAGE_MAX } from '../../../dns/dns-limits.js';


/** URLs naming one domain (an unknown or malformed id is a 404). */
export const DOMAIN_PARAMS_SCHEMA = {
  type: 'object',
  required: ['tenant', 'domainId'],
  properties: { tenant: TENANT_PARAM, domainId: { type: 'string', minLength: 1, description: 'The domain id (a positive integer).' } },
} as const;

/** Paging of spec 8, each parameter at most once: the values' rules (offset a multiple of the limit) are dns-paging.ts's. */
const PAGING_PROPERTIES = {
  limit: { type: 'string', description: `Items per page (default ${DNS_PAGE_DEFAULT}; above ${DNS_PAGE_MAX} means the default).` },
  offset: { type: 'string', description: 'Items to skip: 0 or a multiple of the limit.' },
} as const;

/** A collection's query string. */
export const LIST_QUERY_SCHEMA = {
  type: 'object',
  properties: { ...PAGING_PROPERTIES, name: { type: 'string', description: 'Only the domain of this name (domain list only).' } },
} as const;

/** One domain's query string: paging of its lists, and whether to show them. */
export const DETAIL_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    ...PAGING_PROPERTIES,
    showRecords: { type: 'string', description: "false leaves the records out (default true)." },
    showSubdomains: { type: 'string', description: "false leaves the subdomains out (default true)." },
  },
} as const;
