// Owns the check types Strata accepts (the remote checks and the agent checks), which of them are remote, and their details' defaults.
import { assert } from '../core/assert.js';
import { DNS_CHECK_PORT_DEFAULT, PING_CHECK_COUNT_DEFAULT } from './monitoring-limits.js';

/** The remote check that makes an HTTP(S) request. */
export const REMOTE_HTTP = 'remote.http';
/** The remote check that opens a TCP (or TLS) connection, optionally reading a banner and exchanging a body. */
export const REMOTE_TCP = 'remote.tcp';
/** The remote check that pings its target (ICMP where permitted, else TCP connects). */
export const REMOTE_PING = 'remote.ping';
/** The remote check that asks its target, a DNS server, one query. */
export const REMOTE_DNS = 'remote.dns';

/** The remote check types: run from monitoring zones against an address. */
export const REMOTE_CHECK_TYPE_IDS = [REMOTE_HTTP, REMOTE_TCP, REMOTE_PING, REMOTE_DNS] as const;
/** A remote check type. */
export type RemoteCheckTypeId = (typeof REMOTE_CHECK_TYPE_IDS)[number];

/** The DNS record types a remote.dns check may ask for. */
export const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'PTR', 'SOA', 'SRV', 'TXT'] as const;
/** A DNS record type of a remote.dns check. */
export type DnsRecordType = (typeof DNS_RECORD_TYPES)[number];

/** The agent check types: the agent gathers their metrics on the host. */
export const AGENT_CHECK_TYPE_IDS = [
  'agent.cpu',
  'agent.memory',
  'agent.load_average',
  'agent.disk',
  'agent.filesystem',
  'agent.network',
  'agent.plugin',
  'agent.apache',
  'agent.mysql',
  'agent.redis',
] as const;

/** Every check type Strata accepts. */
export const CHECK_TYPE_IDS = [...REMOTE_CHECK_TYPE_IDS, ...AGENT_CHECK_TYPE_IDS] as const;
/** A check type. */
export type CheckTypeId = (typeof CHECK_TYPE_IDS)[number];
/** An agent check type. */
export type AgentCheckTypeId = (typeof AGENT_CHECK_TYPE_IDS)[number];

/** HTTP methods a remote.http check may use. */
export const HTTP_METHODS = ['HEAD', 'GET', 'POST', 'PUT', 'DELETE', 'INFO'] as const;
/** An HTTP method of a remote.http check. */
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** One value of a check's details: agent checks take scalars, remote.http also string maps (headers). */
export type CheckDetailValue = string | number | boolean | Readonly<Record<string, string>>;
/** The details of a check; which keys a type takes is its details schema's business. */
export type CheckDetails = Readonly<Record<string, CheckDetailValue>>;

/** True for a remote check type (run from monitoring zones, targets an address). */
export function isRemoteType(type: string): boolean {
  return type.startsWith('remote.');
}

/**
 * The details as stored, with the defaults the reference shows on GET: remote.http method GET,
 * follow_redirects true and include_body false; remote.tcp ssl false; remote.ping count 5;
 * remote.dns record_type A and port 53. Agent details are kept as given.
 */
export function detailsWithDefaults(type: CheckTypeId, details: CheckDetails): CheckDetails {
  switch (type) {
    case REMOTE_HTTP: {
      const { url, method = 'GET', follow_redirects = true, include_body = false, ...rest } = details;
      assert(typeof url === 'string', 'remote.http details carry a url (their schema requires one)');
      return { url, method, follow_redirects, include_body, ...rest };
    }
    case REMOTE_TCP: {
      const { port, ssl = false, ...rest } = details;
      assert(typeof port === 'number', 'remote.tcp details carry a port (their schema requires one)');
      return { port, ssl, ...rest };
    }
    case REMOTE_PING: {
      const { count = PING_CHECK_COUNT_DEFAULT, ...rest } = details;
      return { count, ...rest };
    }
    case REMOTE_DNS: {
      const { query, record_type = 'A', port = DNS_CHECK_PORT_DEFAULT, ...rest } = details;
      assert(typeof query === 'string', 'remote.dns details carry a query (their schema requires one)');
      return { query, record_type, port, ...rest };
    }
    default:
      return details;
  }
}
