// Owns the request rate limit of one agent connection: a token bucket over the injected clock's milliseconds, and the refusals since the agent last paused.
import { assert } from '../../core/assert.js';

/** Thousandths of a request: the bucket refills `perSecond` of them each millisecond, so all arithmetic stays in integers. */
const MILLI = 1_000;

/**
 * A token bucket of `burst` requests refilled at `perSecond` requests a second. take() spends one
 * request or refuses; `refusedInRun` counts the refusals since the bucket was last full, which it
 * is again only after the agent paused for burst / perSecond seconds: a burst of refusals that
 * never stops is sustained abuse, whatever requests get served in between.
 */
export class RequestBudget {
  private milliTokens: number;
  private lastMs: number;
  private refused = 0;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    nowMs: number,
  ) {
    assert(Number.isSafeInteger(perSecond) && perSecond > 0 && Number.isSafeInteger(burst) && burst >= 1, 'the request budget takes positive integers');
    this.milliTokens = burst * MILLI;
    this.lastMs = nowMs;
  }

  /** Refusals since the bucket was last full. */
  get refusedInRun(): number {
    return this.refused;
  }

  /** Spends one request at `nowMs`: true when it may be served, false (counted) when the bucket is empty. A clock that steps back refills nothing. */
  take(nowMs: number): boolean {
    const full = this.burst * MILLI;
    if (nowMs > this.lastMs) {
      this.milliTokens = Math.min(full, this.milliTokens + (nowMs - this.lastMs) * this.perSecond);
      this.lastMs = nowMs;
    }
    if (this.milliTokens === full) this.refused = 0;
    if (this.milliTokens >= MILLI) {
      this.milliTokens -= MILLI;
      return true;
    }
    this.refused++;
    return false;
  }
}
