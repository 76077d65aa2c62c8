// Owns every limit of the domain-listing service as a named constant; relations are asserted at load.
import { assert } from '../core/assert.js';
import { LIST_ITEMS_MAX } from '../core/limits.js';

/** Most items in one page of a domain-listing collection (spec 8: at most 100 per retrieve). */
export const DNS_PAGE_MAX = LIST_ITEMS_MAX;
/** Items per page when limit is absent, and when it is above the maximum (spec 8). */
export const DNS_PAGE_DEFAULT = 100;
/** Largest import file, in bytes. */
export const DNS_IMPORT_BYTES_MAX = 16 * 1024 * 1024;
/** Most domains (subdomains included) one import may create. */
export const DNS_IMPORT_DOMAINS_MAX = 10_000;
/** Most records one import may create. */
export const DNS_IMPORT_RECORDS_MAX = 100_000;
/** Deepest nesting of subdomains in an import file. */
export const DNS_SUBDOMAIN_DEPTH_MAX = 8;
/** Most validation messages an import failure reports (the rest are counted). */
export const DNS_IMPORT_MESSAGES_MAX = 100;
/** Longest domain or record name, in characters (RFC 1035). */
export const DNS_NAME_LENGTH_MAX = 253;
/** Longest label of a name, in characters (RFC 1035). */
export const DNS_LABEL_LENGTH_MAX = 63;
/** Longest email address (RFC 5321 path limit). */
export const DNS_EMAIL_LENGTH_MAX = 254;
/** Longest domain or record comment, in characters. */
export const DNS_COMMENT_LENGTH_MAX = 160;
/** Longest record data, in characters. */
export const DNS_DATA_LENGTH_MAX = 4096;
/** Shortest TTL accepted, in seconds (the reference service's minimum). */
export const DNS_TTL_MIN_S = 300;
/** Longest TTL accepted, in seconds (a signed 32-bit integer, as DNS stores it). */
export const DNS_TTL_MAX_S = 2_147_483_647;
/** TTL of a domain or record that gives none, in seconds. */
export const DNS_TTL_DEFAULT_S = 3600;
/** Largest MX or SRV priority (16 bits). */
export const DNS_PRIORITY_MAX = 65_535;

assert(DNS_PAGE_DEFAULT <= DNS_PAGE_MAX, 'the default page must fit the largest page');
assert(DNS_TTL_MIN_S <= DNS_TTL_DEFAULT_S && DNS_TTL_DEFAULT_S <= DNS_TTL_MAX_S, 'the default TTL lies in the accepted range');
