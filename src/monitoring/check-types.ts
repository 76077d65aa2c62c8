// Owns the check types Strata accepts (remote.http and the agent checks), which of them are remote, and their details' defaults.
import { assert } from '../core/assert.js';

/** The remote check type this build runs from monitoring zones. */
export const REMOTE_HTTP = 'remote.http';

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
export const CHECK_TYPE_IDS = [REMOTE_HTTP, ...AGENT_CHECK_TYPE_IDS] as const;
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
 * The details as stored: remote.http gets its defaults (method GET, follow_redirects true,
 * include_body false, as the reference shows them on GET); agent details are kept as given.
 */
export function detailsWithDefaults(type: CheckTypeId, details: CheckDetails): CheckDetails {
  if (type !== REMOTE_HTTP) return details;
  const { url, method = 'GET', follow_redirects = true, include_body = false, ...rest } = details;
  assert(typeof url === 'string', 'remote.http details carry a url (their schema requires one)');
  return { url, method, follow_redirects, include_body, ...rest };
}
