// Property tests of replay pacing on a virtual clock: due times under --speed, --max as soon as a slot frees, the in-flight bound, lag.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPLAY_LAG_MS_MAX, REPLAY_WAIT_NOTICE_MS } from '../../src/replay/replay-limits.js';
import { frameDueMs, runPaced, type PacedItem, type PacingClock, type PacingMode } from '../../src/replay/replay-pacing.js';

interface Timer {
  readonly atMs: number;
  readonly order: number;
  readonly resolve: () => void;
}

/** A clock whose time moves only when every promise chain is idle, straight to the next timer. */
class VirtualClock implements PacingClock {
  private nowMs: number;
  private timers: Timer[] = [];
  private order = 0;

  constructor(startMs: number) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.timers.push({ atMs: this.nowMs + ms, order: this.order++, resolve }));
  }

  /** Runs `task` to its end, firing timers in time order whenever nothing else can run. */
  async run<T>(task: Promise<T>): Promise<T> {
    let settled = false;
    task.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (;;) {
      // Every microtask chain that needs no timer finishes before a macrotask runs.
      await new Promise((resolve) => setImmediate(resolve));
      if (settled) return task;
      this.timers.sort((a, b) => a.atMs - b.atMs || a.order - b.order);
      const next = this.timers.shift();
      if (next === undefined) throw new Error('deadlock: the task waits and no timer is set');
      this.nowMs = Math.max(this.nowMs, next.atMs);
      next.resolve();
    }
  }
}

interface Frame {
  readonly index: number;
  readonly durationMs: number;
}

async function* itemsOf(timeline: readonly number[], durations: readonly number[], failAfter?: number): AsyncGenerator<PacedItem<Frame>> {
  for (let index = 0; index < timeline.length; index++) {
    if (index === failAfter) throw new Error('damaged recording');
    yield { timelineMs: timeline[index] ?? 0, value: { index, durationMs: durations[index] ?? 0 } };
  }
}

/** The schedule the rule promises: frame i goes at max(due, previous send, when fewer than `concurrency` earlier requests are still running). */
function expectedSends(mode: PacingMode, startMs: number, timeline: readonly number[], durations: readonly number[], concurrency: number): number[] {
  const sends: number[] = [];
  const ends: number[] = [];
  timeline.forEach((atMs, i) => {
    const running = [...ends].sort((a, b) => b - a);
    const slotFreeMs = running.length >= concurrency ? (running[concurrency - 1] ?? 0) : startMs;
    const sentMs = Math.max(frameDueMs(mode, startMs, atMs), sends[i - 1] ?? startMs, slotFreeMs);
    sends.push(sentMs);
    ends.push(sentMs + (durations[i] ?? 0));
  });
  return sends;
}

const START_MS = 1_000_000;

function expectWithinHdr(actual: number | undefined, exact: number): void {
  expect(actual).toBeGreaterThanOrEqual(exact);
  expect(actual).toBeLessThanOrEqual(exact < 2048 ? exact : exact * 1.001 + 1);
}
const modeArb: fc.Arbitrary<PacingMode> = fc.oneof(fc.constant({ kind: 'max' } as const), fc.constantFrom(0.5, 1, 2, 3, 10, 1000).map((speed) => ({ kind: 'speed', speed }) as const));
const runArb = fc.integer({ min: 0, max: 60 }).chain((n) =>
  fc.record({
    gaps: fc.array(fc.integer({ min: 0, max: 50 }), { minLength: n, maxLength: n }),
    durations: fc.array(fc.integer({ min: 0, max: 120 }), { minLength: n, maxLength: n }),
    concurrency: fc.integer({ min: 1, max: 6 }),
    mode: modeArb,
  }),
);

function timelineOf(gaps: readonly number[]): number[] {
  let at = 0;
  return gaps.map((gap) => (at += gap));
}

describe('runPaced', () => {
  it('sends every frame in order, at the promised time, never more than `concurrency` at once', async () => {
    await fc.assert(
      fc.asyncProperty(runArb, async ({ gaps, durations, concurrency, mode }) => {
        const timeline = timelineOf(gaps);
        const clock = new VirtualClock(START_MS);
        const sent: Array<{ index: number; atMs: number }> = [];
        let inFlight = 0;
        let inFlightMax = 0;
        const summary = await clock.run(
          runPaced(itemsOf(timeline, durations), {
            mode,
            concurrency,
            clock,
            send: async (frame, sentAtMs) => {
              expect(sentAtMs).toBe(clock.now());
              sent.push({ index: frame.index, atMs: sentAtMs });
              inFlight++;
              inFlightMax = Math.max(inFlightMax, inFlight);
              await clock.sleep(frame.durationMs);
              inFlight--;
            },
          }),
        );
        expect(inFlightMax).toBeLessThanOrEqual(concurrency);
        expect(summary.inFlightMax).toBe(inFlightMax);
        expect(summary.sent).toBe(timeline.length);
        expect(sent.map((s) => s.index)).toEqual(timeline.map((_, i) => i));
        expect(sent.map((s) => s.atMs)).toEqual(expectedSends(mode, START_MS, timeline, durations, concurrency));
        // Every request had finished when runPaced returned.
        expect(inFlight).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it('under --speed never sends before the due time and reports the lag as send - due', async () => {
    await fc.assert(
      fc.asyncProperty(runArb.filter((r) => r.mode.kind === 'speed' && r.gaps.length > 0), async ({ gaps, durations, concurrency, mode }) => {
        const timeline = timelineOf(gaps);
        const clock = new VirtualClock(START_MS);
        const lags: number[] = [];
        const summary = await clock.run(
          runPaced(itemsOf(timeline, durations), {
            mode,
            concurrency,
            clock,
            send: async (frame, sentAtMs) => {
              const lag = sentAtMs - frameDueMs(mode, START_MS, timeline[frame.index] ?? 0);
              expect(lag).toBeGreaterThanOrEqual(0);
              lags.push(lag);
              await clock.sleep(frame.durationMs);
            },
          }),
        );
        const sorted = [...lags].sort((a, b) => a - b);
        expect(summary.lag?.lateFrames).toBe(lags.filter((lag) => lag > 1).length);
        // A 3-digit HdrHistogram is exact below 2048 and within 0.1% above; p99 is the nearest-rank (ceiling) value.
        const rank = Math.max(1, Math.ceil((99 * lags.length) / 100));
        expectWithinHdr(summary.lag?.maxMs, sorted[sorted.length - 1] ?? 0);
        expectWithinHdr(summary.lag?.p99Ms, sorted[rank - 1] ?? 0);
      }),
      { numRuns: 100 },
    );
  });

  it('announces exactly the waits longer than REPLAY_WAIT_NOTICE_MS, with their length', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 3 * REPLAY_WAIT_NOTICE_MS }), { minLength: 1, maxLength: 20 }), async (gaps) => {
        const timeline = timelineOf(gaps);
        const clock = new VirtualClock(START_MS);
        const waits: number[] = [];
        // Instant sends, concurrency 1: each wait is exactly the gap to the next frame.
        await clock.run(runPaced(itemsOf(timeline, timeline.map(() => 0)), { mode: { kind: 'speed', speed: 1 }, concurrency: 1, clock, send: async () => {}, onWait: (ms) => waits.push(ms) }));
        const expected = timeline.map((at, i) => at - (timeline[i - 1] ?? 0)).filter((gap) => gap > REPLAY_WAIT_NOTICE_MS);
        expect(waits).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('reports the exact largest lag, even past the lag histogram', async () => {
    const clock = new VirtualClock(START_MS);
    const late = REPLAY_LAG_MS_MAX + 12_345;
    // The first request holds the only slot far past the second one's due time.
    const summary = await clock.run(runPaced(itemsOf([0, 1], [late + 1, 0]), { mode: { kind: 'speed', speed: 1 }, concurrency: 1, clock, send: (frame) => clock.sleep(frame.durationMs) }));
    expect(summary.lag?.maxMs).toBe(late);
    expect(summary.lag?.lateFrames).toBe(1);
  });

  it('has no lag figures under --max', async () => {
    const clock = new VirtualClock(START_MS);
    const summary = await clock.run(runPaced(itemsOf([0, 5, 9], [3, 3, 3]), { mode: { kind: 'max' }, concurrency: 1, clock, send: (frame) => clock.sleep(frame.durationMs) }));
    expect(summary.lag).toBeNull();
    expect(summary.sent).toBe(3);
    // Back to back: each frame as soon as the one before finished.
    expect(clock.now()).toBe(START_MS + 9);
  });

  it('when the frames fail part-way, waits for the requests in flight, sends nothing more, and rethrows', async () => {
    await fc.assert(
      fc.asyncProperty(runArb.filter((r) => r.gaps.length > 1), fc.nat(), async ({ gaps, durations, concurrency, mode }, seed) => {
        const timeline = timelineOf(gaps);
        const failAfter = 1 + (seed % (timeline.length - 1));
        const clock = new VirtualClock(START_MS);
        let finished = 0;
        let sentCount = 0;
        const run = runPaced(itemsOf(timeline, durations, failAfter), {
          mode,
          concurrency,
          clock,
          send: async (frame) => {
            sentCount++;
            await clock.sleep(frame.durationMs);
            finished++;
          },
        });
        await expect(clock.run(run)).rejects.toThrow('damaged recording');
        expect(sentCount).toBe(failAfter);
        expect(finished).toBe(failAfter);
      }),
      { numRuns: 80 },
    );
  });
});

describe('frameDueMs', () => {
  it('is start + atMs / speed in whole ms, and the start under --max', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: 0, max: 1e9 }), fc.double({ min: 0.01, max: 1000, noNaN: true }), (start, at, speed) => {
        const due = frameDueMs({ kind: 'speed', speed }, start, at);
        expect(Number.isInteger(due)).toBe(true);
        expect(due).toBeLessThanOrEqual(start + at / speed + 1e-3);
        // The division is floating point: allow it a rounding error well below a millisecond (the sum is near 1e12).
        expect(due).toBeGreaterThan(start + at / speed - 1 - 1e-3);
        expect(frameDueMs({ kind: 'max' }, start, at)).toBe(start);
      }),
    );
  });

  it('never decreases along a timeline', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1e6 })), fc.constantFrom(0.5, 1, 7, 1000), (gaps, speed) => {
        const dues = timelineOf(gaps).map((at) => frameDueMs({ kind: 'speed', speed }, START_MS, at));
        dues.forEach((due, i) => expect(due).toBeGreaterThanOrEqual(dues[i - 1] ?? START_MS));
      }),
    );
  });
});
