// Property tests of the agent's timer randomness: backoff delays stay within their exponential caps, heartbeat jitter within ±10%.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AGENT_RECONNECT_BASE_MS, AGENT_RECONNECT_MAX_MS } from '../../../src/agent/agent-limits.js';
import { backoffCapMs, backoffDelayMs, jitteredIntervalMs, ReconnectBackoff } from '../../../src/agent/client/reconnect-backoff.js';

/** Random sources over [0, 1), edges included. */
const unit = fc.oneof(fc.constant(0), fc.constant(1 - Number.EPSILON), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }));
const bounds = fc
  .tuple(fc.integer({ min: 1, max: 60_000 }), fc.integer({ min: 1, max: 3_600_000 }))
  .map(([a, b]) => ({ baseMs: Math.min(a, b), maxMs: Math.max(a, b) }));

describe('reconnect backoff', () => {
  it('a delay is an integer from 0 to min(max, base × 2^attempt)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), unit, bounds, (attempt, r, { baseMs, maxMs }) => {
        const delayMs = backoffDelayMs(attempt, () => r, baseMs, maxMs);
        const capMs = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 40));
        expect(Number.isSafeInteger(delayMs)).toBe(true);
        expect(delayMs).toBeGreaterThanOrEqual(0);
        expect(delayMs).toBeLessThanOrEqual(capMs);
        expect(backoffCapMs(attempt, baseMs, maxMs)).toBe(capMs);
      }),
    );
  });

  it('caps start at the base, never shrink, and reach the maximum', () => {
    fc.assert(
      fc.property(bounds, ({ baseMs, maxMs }) => {
        expect(backoffCapMs(0, baseMs, maxMs)).toBe(baseMs);
        let previous = 0;
        for (let attempt = 0; attempt < 64; attempt += 1) {
          const capMs = backoffCapMs(attempt, baseMs, maxMs);
          expect(capMs).toBeGreaterThanOrEqual(previous);
          previous = capMs;
        }
        expect(previous).toBe(maxMs);
      }),
    );
  });

  it('full jitter covers the whole range: random 0 gives 0, random near 1 gives the cap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 }), bounds, (attempt, { baseMs, maxMs }) => {
        expect(backoffDelayMs(attempt, () => 0, baseMs, maxMs)).toBe(0);
        expect(backoffDelayMs(attempt, () => 1 - Number.EPSILON, baseMs, maxMs)).toBe(backoffCapMs(attempt, baseMs, maxMs));
        // A source outside its contract (1) still stays within the cap.
        expect(backoffDelayMs(attempt, () => 1, baseMs, maxMs)).toBe(backoffCapMs(attempt, baseMs, maxMs));
      }),
    );
  });

  it('defaults to AGENT_RECONNECT_BASE_MS..AGENT_RECONNECT_MAX_MS', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000 }), unit, (attempt, r) => {
        expect(backoffDelayMs(attempt, () => r)).toBeLessThanOrEqual(Math.min(AGENT_RECONNECT_MAX_MS, AGENT_RECONNECT_BASE_MS * 2 ** Math.min(attempt, 40)));
      }),
    );
  });

  it('ReconnectBackoff doubles its cap per failure and goes back to the base after reset', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(unit.map((r) => ({ kind: 'next' as const, r })), fc.constant({ kind: 'reset' as const, r: 0 })), { maxLength: 80 }), bounds, (steps, { baseMs, maxMs }) => {
        let r = 0;
        const backoff = new ReconnectBackoff({ random: () => r, baseMs, maxMs });
        let failures = 0;
        for (const step of steps) {
          if (step.kind === 'reset') {
            backoff.reset();
            failures = 0;
            continue;
          }
          r = step.r;
          const delayMs = backoff.next();
          expect(delayMs).toBeLessThanOrEqual(backoffCapMs(failures, baseMs, maxMs));
          expect(delayMs).toBeGreaterThanOrEqual(0);
          failures = Math.min(failures + 1, 40);
          expect(backoff.attempts).toBe(failures);
        }
      }),
    );
  });
});

describe('heartbeat jitter', () => {
  it('stays within ±10% of the interval, rounded to whole ms', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 24 * 3_600_000 }), unit, (intervalMs, r) => {
        const delayMs = jitteredIntervalMs(intervalMs, () => r);
        expect(Number.isSafeInteger(delayMs)).toBe(true);
        expect(delayMs).toBeGreaterThanOrEqual(Math.floor(intervalMs * 0.9));
        expect(delayMs).toBeLessThanOrEqual(Math.ceil(intervalMs * 1.1));
      }),
    );
  });

  it('is the interval itself at the middle of the range and never below 1 ms', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), unit, fc.integer({ min: 0, max: 99 }), (intervalMs, r, percent) => {
        expect(jitteredIntervalMs(intervalMs, () => 0.5, percent)).toBe(intervalMs);
        expect(jitteredIntervalMs(intervalMs, () => r, percent)).toBeGreaterThanOrEqual(1);
      }),
    );
  });
});
