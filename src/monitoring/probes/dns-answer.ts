// Owns asking one DNS server one question with node:dns and putting the records it returns, or its error, in words.
import type { Resolver } from 'node:dns/promises';
import type { DnsRecordType } from '../check-types.js';
import { DNS_CHECK_ANSWER_LENGTH_MAX } from '../monitoring-limits.js';

/** The records of an answer as text, one entry per record, and the lowest TTL when the resolver reports TTLs (A and AAAA). */
export interface DnsAnswer {
  readonly records: readonly string[];
  readonly ttlS: number | null;
}

/** Asks `resolver` for the `type` records of `name` and renders each record as one string; rejects with the resolver's error. */
export async function resolveRecords(resolver: Resolver, name: string, type: DnsRecordType): Promise<DnsAnswer> {
  const plain = (records: readonly string[]): DnsAnswer => ({ records, ttlS: null });
  switch (type) {
    case 'A':
    case 'AAAA': {
      const records = type === 'A' ? await resolver.resolve4(name, { ttl: true }) : await resolver.resolve6(name, { ttl: true });
      return { records: records.map((record) => record.address), ttlS: records.length === 0 ? null : Math.min(...records.map((record) => record.ttl)) };
    }
    case 'CNAME':
      return plain(await resolver.resolveCname(name));
    case 'NS':
      return plain(await resolver.resolveNs(name));
    case 'PTR':
      return plain(await resolver.resolvePtr(name));
    case 'MX':
      return plain((await resolver.resolveMx(name)).map((record) => `${record.priority} ${record.exchange}`));
    case 'TXT':
      // A TXT record is a list of strings of at most 255 bytes; together they are its text.
      return plain((await resolver.resolveTxt(name)).map((chunks) => chunks.join('')));
    case 'SRV':
      return plain((await resolver.resolveSrv(name)).map((record) => `${record.priority} ${record.weight} ${record.port} ${record.name}`));
    case 'SOA': {
      const soa = await resolver.resolveSoa(name);
      return plain([`${soa.nsname} ${soa.hostmaster} ${soa.serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minttl}`]);
    }
  }
}

/** The records joined by spaces, as the reference's `answer` metric shows them, cut to DNS_CHECK_ANSWER_LENGTH_MAX characters. */
export function answerText(records: readonly string[]): string {
  const joined = records.join(' ');
  return joined.length > DNS_CHECK_ANSWER_LENGTH_MAX ? joined.slice(0, DNS_CHECK_ANSWER_LENGTH_MAX) : joined;
}

/**
 * The response code a resolver error stands for when the server did answer: NXDOMAIN, an empty
 * NOERROR answer, SERVFAIL, REFUSED, NOTIMP or FORMERR. Null when no answer came (a timeout, a
 * refused or unreachable port, a malformed reply, a cancelled query).
 */
export function rcodeOf(code: string): string | null {
  switch (code) {
    case 'ENOTFOUND':
      return 'NXDOMAIN';
    case 'ENODATA':
      return 'NOERROR';
    case 'ESERVFAIL':
      return 'SERVFAIL';
    case 'EREFUSED':
      return 'REFUSED';
    case 'ENOTIMP':
      return 'NOTIMP';
    case 'EFORMERR':
      return 'FORMERR';
    default:
      return null;
  }
}

/** Words for a query that got no answer, from the resolver's error code. */
export function noAnswerText(code: string, port: number, aborted: boolean): string {
  if (aborted || code === 'ETIMEOUT' || code === 'ECANCELLED') return `no answer from the DNS server on port ${port} before the timeout`;
  if (code === 'ECONNREFUSED') return `DNS server refused the connection on port ${port}`;
  if (code === 'EBADRESP') return 'the DNS server sent a malformed reply';
  return `query failed (${code})`;
}
