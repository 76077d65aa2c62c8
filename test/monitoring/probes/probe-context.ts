// Owns the probe context the probe tests hand a probe: what the check runner would give it.
import { AddressGuard } from '../../../src/monitoring/probes/address-guard.js';
import type { CheckDoc } from '../../../src/monitoring/check-rules.js';
import type { ProbeContext } from '../../../src/monitoring/probes/probe-types.js';

/** Options of a test probe context. */
export interface ContextOptions {
  readonly address?: string;
  readonly hostname?: string;
  readonly timeoutMs?: number;
  readonly guard?: AddressGuard;
  readonly signal?: AbortSignal;
}

/** The context a runner would give: the target (127.0.0.1 by default), a 5 s timeout, an allow-all guard. */
export function probeContext(check: CheckDoc, options: ContextOptions = {}): ProbeContext {
  return {
    check,
    target: { address: options.address ?? '127.0.0.1', hostname: options.hostname ?? null },
    timeoutMs: options.timeoutMs ?? 5_000,
    signal: options.signal ?? new AbortController().signal,
    guard: options.guard ?? new AddressGuard(),
  };
}
