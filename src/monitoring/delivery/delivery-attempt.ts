// Owns one delivery attempt's mechanics and verdict: running a channel under a timeout that always settles, and what its outcome does to the delivery.
import { DELIVERY_ERROR_LENGTH_MAX, DELIVERY_SETTLE_GRACE_MS } from '../monitoring-limits.js';
import { backoffDelayMs } from './backoff.js';
import type { Channel, ChannelOutcome, DeliveryJob } from './channel-types.js';
import type { DeliveryConfig } from './delivery-config.js';
import type { AttemptOutcome, DeliveryStatus } from './outbox-store.js';

/** Text cut to DELIVERY_ERROR_LENGTH_MAX characters. */
export function boundedText(text: string): string {
  return text.length <= DELIVERY_ERROR_LENGTH_MAX ? text : `${text.slice(0, DELIVERY_ERROR_LENGTH_MAX - 1)}…`;
}

/** A thrown value as a short text without its message (a message may quote a URL or a key). */
function thrownText(error: unknown): string {
  if (!(error instanceof Error)) return 'a non-error value';
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${error.name} ${code}` : error.name;
}

/**
 * Runs `channel` once for `job`: its signal aborts after `timeoutMs` or when `stop` aborts; a
 * channel that throws is a retryable failure, and one that has not settled DELIVERY_SETTLE_GRACE_MS
 * after its timeout counts as timed out. 'stopped' when stop cut a failing attempt short (the
 * delivery is neither delivered nor failed: it stays pending).
 */
export async function runAttempt(channel: Channel, job: DeliveryJob, timeoutMs: number, stop: AbortSignal): Promise<ChannelOutcome | 'stopped'> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([timeout, stop]);
  let guard: NodeJS.Timeout | undefined;
  const overdue = new Promise<ChannelOutcome>((resolve) => {
    guard = setTimeout(() => resolve({ ok: false, retryable: true, error: `attempt timed out after ${timeoutMs} ms` }), timeoutMs + DELIVERY_SETTLE_GRACE_MS);
    // A channel stuck past a stop must not keep the process alive.
    guard.unref();
  });
  const sent = (async (): Promise<ChannelOutcome> => {
    try {
      return await channel.deliver(job, signal);
    } catch (error) {
      return { ok: false, retryable: true, error: `channel failed: ${thrownText(error)}` };
    }
  })();
  try {
    const outcome = await Promise.race([sent, overdue]);
    return stop.aborted && !outcome.ok ? 'stopped' : outcome;
  } finally {
    clearTimeout(guard);
  }
}

/** What an attempt's outcome does: the attempt row's outcome and detail, and the delivery's new status, due time and error. */
export interface AttemptVerdict {
  readonly outcome: AttemptOutcome;
  readonly detail: string;
  readonly status: DeliveryStatus;
  readonly nextAttemptMs: number;
  readonly lastError: string | null;
}

/** The position of an attempt: its number within the current retry round (1 for the first). */
export interface AttemptPlace {
  readonly roundAttempt: number;
  readonly nowMs: number;
  /** In [0, 1): where the jittered delay falls. */
  readonly random: number;
}

/**
 * Delivered on success; dead on a failure that is not retryable or that used the round's last
 * attempt; otherwise failed and due again after the backoff of `roundAttempt` failures.
 */
export function attemptVerdict(outcome: ChannelOutcome, place: AttemptPlace, config: DeliveryConfig): AttemptVerdict {
  const { roundAttempt, nowMs } = place;
  if (outcome.ok) return { outcome: 'delivered', detail: boundedText(outcome.detail), status: 'delivered', nextAttemptMs: nowMs, lastError: null };
  const error = boundedText(outcome.error);
  if (!outcome.retryable || roundAttempt >= config.attemptsMax) {
    return { outcome: 'dead', detail: error, status: 'dead', nextAttemptMs: nowMs, lastError: error };
  }
  const delayMs = backoffDelayMs(roundAttempt, config.retryBaseMs, config.retryMaxMs, place.random);
  return { outcome: 'failed', detail: error, status: 'pending', nextAttemptMs: nowMs + delayMs, lastError: error };
}
