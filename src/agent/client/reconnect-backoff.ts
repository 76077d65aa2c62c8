// Owns the agent's timer randomness: reconnect delays (exponential backoff with full jitter) and heartbeat jitter.
import { assert } from '../../core/assert.js';
import { AGENT_HEARTBEAT_JITTER_PERCENT, AGENT_RECONNECT_BASE_MS, AGENT_RECONNECT_MAX_MS } from '../agent-limits.js';
import type { RandomSource } from './agent-deps.js';

/** Doublings after which every cap has reached any sane maximum (2^40 ms is 35 years); keeps 2 ** n finite. */
const DOUBLINGS_MAX = 40;

/** The largest delay of reconnect attempt `attempt` (0 for the first retry): min(maxMs, baseMs × 2^attempt). */
export function backoffCapMs(attempt: number, baseMs: number = AGENT_RECONNECT_BASE_MS, maxMs: number = AGENT_RECONNECT_MAX_MS): number {
  assert(Number.isSafeInteger(attempt) && attempt >= 0, 'attempt is a count');
  assert(Number.isSafeInteger(baseMs) && baseMs > 0 && baseMs <= maxMs, 'backoff base within its maximum');
  return Math.min(maxMs, baseMs * 2 ** Math.min(attempt, DOUBLINGS_MAX));
}

/**
 * The delay before reconnect attempt `attempt` with full jitter (AWS architecture blog, "Exponential Backoff And
 * Jitter"): uniform over the integers 0..cap, so agents that lost the same endpoint do not return in step.
 */
export function backoffDelayMs(attempt: number, random: RandomSource, baseMs?: number, maxMs?: number): number {
  const capMs = backoffCapMs(attempt, baseMs, maxMs);
  // min() keeps a source that returns 1 (outside its contract) within the cap.
  return Math.min(capMs, Math.floor(random() * (capMs + 1)));
}

/** `intervalMs` moved by up to ±`percent` percent at random, rounded to whole ms (never below 1). */
export function jitteredIntervalMs(intervalMs: number, random: RandomSource, percent: number = AGENT_HEARTBEAT_JITTER_PERCENT): number {
  assert(Number.isSafeInteger(intervalMs) && intervalMs > 0, 'interval is a positive integer');
  assert(percent >= 0 && percent < 100, 'jitter is a percentage below 100');
  const spreadMs = (intervalMs * percent) / 100;
  const offsetMs = (Math.min(1, Math.max(0, random())) * 2 - 1) * spreadMs;
  return Math.max(1, Math.round(intervalMs + offsetMs));
}

/** Settings of one backoff. */
export interface ReconnectBackoffOptions {
  readonly random: RandomSource;
  /** First cap (AGENT_RECONNECT_BASE_MS). */
  readonly baseMs?: number;
  /** Largest cap (AGENT_RECONNECT_MAX_MS). */
  readonly maxMs?: number;
}

/** The reconnect delays of one connection: each failure doubles the cap; a successful hello resets it. */
export class ReconnectBackoff {
  private failures = 0;

  constructor(private readonly options: ReconnectBackoffOptions) {}

  /** The delay before the next attempt; counts one more failure. */
  next(): number {
    const delayMs = backoffDelayMs(this.failures, this.options.random, this.options.baseMs, this.options.maxMs);
    // The count stops once the cap is reached: it only decides the exponent.
    if (this.failures < DOUBLINGS_MAX) this.failures += 1;
    return delayMs;
  }

  /** Back to the base delay (after a successful hello). */
  reset(): void {
    this.failures = 0;
  }

  /** Failures since the last reset (at most DOUBLINGS_MAX). */
  get attempts(): number {
    return this.failures;
  }
}
