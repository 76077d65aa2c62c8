// Owns turning a remote check's target (target_alias or target_hostname with target_resolver) into the address its probe connects to.
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { CheckDoc } from '../check-rules.js';
import type { EntityDoc } from '../entity-rules.js';
import { PROBE_RESOLVE_TIMEOUT_MS } from '../monitoring-limits.js';
import type { TargetResolver } from '../schemas/check-schema.js';
import type { ProbeTarget } from './probe-types.js';

/** A target that could not be resolved, with why in words (it becomes the unavailable result's status). */
export interface TargetError {
  readonly error: string;
}

/** Bounds on one resolution. */
export interface ResolveOptions {
  /** Longest wait for the DNS answer; PROBE_RESOLVE_TIMEOUT_MS when left out. */
  readonly timeoutMs?: number;
  /** Stops waiting when aborted (the run's timeout or the runner stopping). */
  readonly signal?: AbortSignal;
}

/** The address family a target_resolver asks for: 4 or 6, or 0 (any, IPv4 preferred) when none is set. */
function familyOf(resolver: TargetResolver | null): 0 | 4 | 6 {
  if (resolver === 'IPv4') return 4;
  if (resolver === 'IPv6') return 6;
  return 0;
}

/** The address to use among a lookup's answers: the first of the wanted family, IPv4 first when any will do. */
function pick(addresses: readonly LookupAddress[], family: 0 | 4 | 6): string | undefined {
  if (family !== 0) return addresses.find((entry) => entry.family === family)?.address;
  return (addresses.find((entry) => entry.family === 4) ?? addresses[0])?.address;
}

/** The code of a lookup failure (ENOTFOUND, EAI_AGAIN...), never its message (which repeats the name and says little more). */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? code : 'EUNKNOWN';
}

/** Waits for `promise`, or gives `fallback()` at the timeout or when the signal aborts, whichever comes first; clears its timer. */
function bounded<T>(promise: Promise<T>, timeoutMs: number, signal: AbortSignal | undefined, fallback: () => T): Promise<T> {
  return new Promise<T>((resolve) => {
    let done = false;
    const settle = (value: T): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = (): void => settle(fallback());
    const timer = setTimeout(onAbort, timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted === true) onAbort();
    promise.then(settle, () => settle(fallback()));
  });
}

/**
 * The address `hostname` resolves to through the system resolver (getaddrinfo, as every client on
 * the host would), of the family `resolver` asks for. An IP literal (brackets allowed) is itself.
 * Never throws: a failure is `{ error: 'could not resolve <host>: <code>' }`, a timeout's code ETIMEOUT.
 */
export async function resolveHostAddress(hostname: string, resolver: TargetResolver | null, options: ResolveOptions = {}): Promise<ProbeTarget | TargetError> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const family = familyOf(resolver);
  const literal = isIP(host);
  if (literal !== 0) {
    if (family !== 0 && literal !== family) return { error: `could not resolve ${host}: not an ${resolver ?? ''} address` };
    return { address: host, hostname: host };
  }
  const failed = (code: string): TargetError => ({ error: `could not resolve ${host}: ${code}` });
  const answer = lookup(host, { all: true, family }).then(
    (addresses): ProbeTarget | TargetError => {
      const address = pick(addresses, family);
      return address === undefined ? failed('ENODATA') : { address, hostname: host };
    },
    (error: unknown) => failed(codeOf(error)),
  );
  return bounded(answer, options.timeoutMs ?? PROBE_RESOLVE_TIMEOUT_MS, options.signal, () => failed('ETIMEOUT'));
}

/**
 * Where a remote check connects: target_alias names one of the entity's ip_addresses (hostname
 * null); target_hostname is looked up honouring target_resolver (IPv4, IPv6, or either with IPv4
 * preferred). Never throws: a target that cannot be resolved is `{ error }` with why in words.
 */
export async function resolveProbeTarget(check: CheckDoc, entity: EntityDoc, options: ResolveOptions = {}): Promise<ProbeTarget | TargetError> {
  if (check.target_alias !== null) {
    const address = entity.ip_addresses[check.target_alias];
    if (address === undefined) return { error: `target_alias ${JSON.stringify(check.target_alias)} names no address of the entity` };
    if (isIP(address) === 0) return { error: `target_alias ${JSON.stringify(check.target_alias)} is not an IP address` };
    return { address, hostname: null };
  }
  if (check.target_hostname !== null) return resolveHostAddress(check.target_hostname, check.target_resolver, options);
  return { error: 'the check has neither target_alias nor target_hostname' };
}
