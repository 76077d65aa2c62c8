// Owns the contract between the check runner and the probes: what a probe is given and what it returns.
import type { CheckDoc } from '../check-rules.js';
import type { ResultMetrics } from '../check-result.js';
import type { AddressGuard } from './address-guard.js';

/** Where a remote check connects: an IP address, and the host name it stands for (Host header, SNI, DNS query) when known. */
export interface ProbeTarget {
  /** IPv4 or IPv6 address every connection of the run goes to (redirects excepted: they are resolved and guarded anew). */
  readonly address: string;
  /** The name the target was given by (target_hostname), or null for an entity address (target_alias). */
  readonly hostname: string | null;
}

/** What one probe run gets. */
export interface ProbeContext {
  /** The check, its secrets in plaintext (EntityService.checkWithSecrets). */
  readonly check: CheckDoc;
  readonly target: ProbeTarget;
  /** The check's timeout in ms: the probe must settle within it (the signal also fires then). */
  readonly timeoutMs: number;
  /** Aborted at the timeout or when the runner stops; the probe then returns an unavailable outcome promptly. */
  readonly signal: AbortSignal;
  /** Every address the probe connects to must pass `guard.allows(ip)` first (operator's --check-deny). */
  readonly guard: AddressGuard;
}

/** What a probe returns; probes never throw for a target's failure, they report it. */
export interface ProbeOutcome {
  readonly available: boolean;
  readonly status: string;
  readonly metrics: ResultMetrics;
  /** The response body, when the check asks for it (remote.http include_body). */
  readonly body?: string;
}

/** A probe: runs one check once against its target. */
export type Probe = (context: ProbeContext) => Promise<ProbeOutcome>;
