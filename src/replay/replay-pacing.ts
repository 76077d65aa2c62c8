// Owns when replay sends each frame: its due time under --speed or --max, the in-flight bound, and the lag it measures.
import * as hdr from 'hdr-histogram-js';
import { assert } from '../core/assert.js';
import { REPLAY_LAG_MS_MAX, REPLAY_WAIT_NOTICE_MS } from './replay-limits.js';

/** `--speed N` (frame at atMs is due at start + atMs / N) or `--max` (each frame as soon as a slot is free). */
export type PacingMode = { readonly kind: 'speed'; readonly speed: number } | { readonly kind: 'max' };

/** The clock pacing runs on (injected: tests run it on virtual time). */
export interface PacingClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** One frame to pace: its place on the recording's timeline and what to send. */
export interface PacedItem<T> {
  /** Recording time of the frame, ms from the start of the replayed timeline (never decreasing). */
  readonly timelineMs: number;
  readonly value: T;
}

/** How late frames went out under --speed; null under --max, where frames have no due time. */
export interface LagSummary {
  /** The largest lag, exact (the histogram behind the p99 saturates at REPLAY_LAG_MS_MAX). */
  readonly maxMs: number;
  readonly p99Ms: number;
  /** Frames sent more than one ms after their due time. */
  readonly lateFrames: number;
}

/** What a paced run did. */
export interface PacingSummary {
  readonly sent: number;
  readonly lag: LagSummary | null;
  /** Most requests ever in flight at once (never above the concurrency). */
  readonly inFlightMax: number;
}

/** Options of runPaced. */
export interface PacingOptions<T> {
  readonly mode: PacingMode;
  readonly concurrency: number;
  readonly clock: PacingClock;
  /** Sends one frame; must not reject (the caller records failures as errors). */
  readonly send: (value: T, sentAtMs: number) => Promise<void>;
  /** Told before a wait for the next frame longer than REPLAY_WAIT_NOTICE_MS, so a quiet stretch of the recording does not look like a hang. */
  readonly onWait?: (waitMs: number) => void;
}

/** When a frame is due: `startMs + timelineMs / speed` (whole ms), or `startMs` under --max. */
export function frameDueMs(mode: PacingMode, startMs: number, timelineMs: number): number {
  return mode.kind === 'max' ? startMs : startMs + Math.floor(timelineMs / mode.speed);
}

/** A counting gate: `enter` waits until fewer than `limit` holders are inside. */
interface SlotGate {
  enter(): Promise<void>;
  leave(): void;
  readonly inside: number;
  /** Resolves once nobody is inside. */
  drained(): Promise<void>;
}

function slotGate(limit: number): SlotGate {
  let inside = 0;
  const waiting: Array<() => void> = [];
  const drainWaiters: Array<() => void> = [];
  return {
    get inside() {
      return inside;
    },
    async enter() {
      if (inside < limit) {
        inside++;
        return;
      }
      // The leaving holder hands its slot over directly, so `inside` never passes the limit.
      await new Promise<void>((resolve) => waiting.push(resolve));
    },
    leave() {
      const next = waiting.shift();
      if (next !== undefined) {
        next();
        return;
      }
      inside--;
      if (inside === 0) for (const resolve of drainWaiters.splice(0)) resolve();
    },
    async drained() {
      if (inside === 0) return;
      await new Promise<void>((resolve) => drainWaiters.push(resolve));
    },
  };
}

function lagHistogram(): hdr.Histogram {
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: REPLAY_LAG_MS_MAX, numberOfSignificantValueDigits: 3, autoResize: false });
}

/**
 * Sends every item in order: waits for a free slot (at most `concurrency` in flight), then for the
 * item's due time, then starts `send` without waiting for it. A slot is taken before the wait, so
 * the order of sends is the order of the items; with concurrency above 1 the target may still
 * finish them in another order. When `items` throws (a damaged recording), the requests in flight
 * are awaited and the error is rethrown.
 */
export async function runPaced<T>(items: AsyncIterable<PacedItem<T>>, options: PacingOptions<T>): Promise<PacingSummary> {
  assert(Number.isInteger(options.concurrency) && options.concurrency >= 1, 'concurrency is a positive integer');
  assert(options.mode.kind === 'max' || options.mode.speed > 0, 'speed is positive');
  const gate = slotGate(options.concurrency);
  const lags = options.mode.kind === 'speed' ? lagHistogram() : null;
  const startMs = options.clock.now();
  let sent = 0;
  let lateFrames = 0;
  let lagMaxMs = 0;
  let inFlightMax = 0;
  let sendFailure: { error: unknown } | undefined;
  try {
    for await (const item of items) {
      await gate.enter();
      const dueMs = frameDueMs(options.mode, startMs, item.timelineMs);
      const waitMs = dueMs - options.clock.now();
      if (waitMs > REPLAY_WAIT_NOTICE_MS) options.onWait?.(waitMs);
      if (waitMs > 0) await options.clock.sleep(waitMs);
      const sentAtMs = options.clock.now();
      if (lags !== null) {
        const lagMs = Math.max(0, sentAtMs - dueMs);
        lags.recordValue(Math.min(lagMs, REPLAY_LAG_MS_MAX));
        lagMaxMs = Math.max(lagMaxMs, lagMs);
        if (lagMs > 1) lateFrames++;
      }
      sent++;
      inFlightMax = Math.max(inFlightMax, gate.inside);
      options.send(item.value, sentAtMs).then(
        () => gate.leave(),
        (error: unknown) => {
          sendFailure ??= { error };
          gate.leave();
        },
      );
    }
  } finally {
    await gate.drained();
  }
  if (sendFailure !== undefined) throw sendFailure.error;
  const lag = lags === null ? null : { maxMs: lagMaxMs, p99Ms: Math.min(lags.getValueAtPercentile(99), lags.maxValue), lateFrames };
  lags?.destroy();
  return { sent, lag, inFlightMax };
}
