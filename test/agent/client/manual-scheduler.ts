// Owns a scheduler for the agent's unit tests: timers fire only when the test moves its ManualClock forward.
import type { ManualClock } from '../../../src/core/clock.js';
import type { AgentScheduler, TimerHandle } from '../../../src/agent/client/agent-deps.js';

interface Timer {
  readonly dueMs: number;
  readonly order: number;
  readonly callback: () => void;
}

/** Lets pending promise callbacks (and what they schedule) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** Timers on a ManualClock: `advance` fires those that fall due, in due order, each with the clock at its due time. */
export class ManualScheduler implements AgentScheduler {
  private readonly timers = new Map<number, Timer>();
  private nextId = 1;

  constructor(readonly clock: ManualClock) {}

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const id = this.nextId++;
    this.timers.set(id, { dueMs: this.clock.now() + Math.max(0, delayMs), order: id, callback });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle as number);
  }

  /** Timers waiting. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves the clock forward by `deltaMs`, firing what falls due on the way (promise callbacks run between timers). */
  async advance(deltaMs: number): Promise<void> {
    const targetMs = this.clock.now() + deltaMs;
    await settle();
    for (;;) {
      const next = [...this.timers.entries()].filter(([, t]) => t.dueMs <= targetMs).sort(([, a], [, b]) => a.dueMs - b.dueMs || a.order - b.order)[0];
      if (next === undefined) break;
      const [id, timer] = next;
      this.timers.delete(id);
      this.clock.set(Math.max(this.clock.now(), timer.dueMs));
      timer.callback();
      await settle();
    }
    this.clock.set(targetMs);
    await settle();
  }
}
