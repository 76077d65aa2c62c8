// Owns the field rules of domains and records: names, email addresses, TTLs, comments, record types and data.
import { isIPv4, isIPv6 } from 'node:net';
import {
  DNS_COMMENT_LENGTH_MAX,
  DNS_DATA_LENGTH_MAX,
  DNS_EMAIL_LENGTH_MAX,
  DNS_LABEL_LENGTH_MAX,
  DNS_NAME_LENGTH_MAX,
  DNS_PRIORITY_MAX,
  DNS_TTL_MAX_S,
  DNS_TTL_MIN_S,
} from './dns-limits.js';

/** Record types the service stores. */
export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'PTR', 'SRV', 'TXT'] as const;

/** Record types that need a priority. */
const PRIORITY_TYPES: readonly string[] = ['MX', 'SRV'];
/** Record types whose data is a host name. */
const HOST_DATA_TYPES: readonly string[] = ['CNAME', 'MX', 'NS', 'PTR'];

const LABEL = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
// Record names may have service labels (_sip._tcp.example.com) as SRV and TXT records use them.
const RECORD_LABEL = /^(_?[a-z0-9]([a-z0-9-]*[a-z0-9])?|_[a-z0-9-]+|\*)$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const CONTROL = /[\u0000-\u001f\u007f]/;

function nameProblem(name: string, label: RegExp, minLabels: number): string | undefined {
  if (name.length === 0 || name.length > DNS_NAME_LENGTH_MAX) return `must be 1 to ${DNS_NAME_LENGTH_MAX} characters`;
  const labels = name.split('.');
  if (labels.length < minLabels) return `must have at least ${minLabels} labels`;
  const bad = labels.find((l) => l.length === 0 || l.length > DNS_LABEL_LENGTH_MAX || !label.test(l));
  return bad === undefined ? undefined : `has an invalid label "${bad}" (letters, digits and inner hyphens, at most ${DNS_LABEL_LENGTH_MAX})`;
}

/** Why a (lower-cased) domain name is invalid, or undefined when it is valid. */
export function domainNameProblem(name: string): string | undefined {
  return nameProblem(name, LABEL, 2);
}

/** Why a (lower-cased) record name is invalid for `domain`, or undefined when it is valid. */
export function recordNameProblem(name: string, domain: string): string | undefined {
  const problem = nameProblem(name, RECORD_LABEL, 2);
  if (problem !== undefined) return problem;
  return name === domain || name.endsWith(`.${domain}`) ? undefined : `must be ${domain} or end with .${domain}`;
}

/** Why an email address is invalid, or undefined. */
export function emailProblem(email: string): string | undefined {
  return email.length <= DNS_EMAIL_LENGTH_MAX && EMAIL.test(email) ? undefined : `must be an email address of at most ${DNS_EMAIL_LENGTH_MAX} characters`;
}

/** Why a TTL is invalid, or undefined. */
export function ttlProblem(ttl: number): string | undefined {
  return Number.isSafeInteger(ttl) && ttl >= DNS_TTL_MIN_S && ttl <= DNS_TTL_MAX_S ? undefined : `must be an integer from ${DNS_TTL_MIN_S} to ${DNS_TTL_MAX_S}`;
}

/** Why a comment is invalid, or undefined. */
export function commentProblem(comment: string): string | undefined {
  return comment.length <= DNS_COMMENT_LENGTH_MAX && !CONTROL.test(comment) ? undefined : `must be at most ${DNS_COMMENT_LENGTH_MAX} characters without control characters`;
}

/** Why a record's type, data and priority do not fit together, or undefined. */
export function recordDataProblem(type: string, data: string, priority: number | undefined): string | undefined {
  if (!(RECORD_TYPES as readonly string[]).includes(type)) return `type must be one of ${RECORD_TYPES.join(', ')}`;
  if (data.length === 0 || data.length > DNS_DATA_LENGTH_MAX || CONTROL.test(data)) return `data must be 1 to ${DNS_DATA_LENGTH_MAX} characters without control characters`;
  if (type === 'A' && !isIPv4(data)) return 'data of an A record must be an IPv4 address';
  if (type === 'AAAA' && !isIPv6(data)) return 'data of an AAAA record must be an IPv6 address';
  if (HOST_DATA_TYPES.includes(type) && domainNameProblem(data.toLowerCase()) !== undefined) return `data of a ${type} record must be a host name`;
  if (PRIORITY_TYPES.includes(type)) {
    if (priority === undefined || !Number.isInteger(priority) || priority < 0 || priority > DNS_PRIORITY_MAX) {
      return `a ${type} record needs a priority from 0 to ${DNS_PRIORITY_MAX}`;
    }
  } else if (priority !== undefined) {
    return `only ${PRIORITY_TYPES.join(' and ')} records have a priority`;
  }
  return undefined;
}
