// Owns a faster time for the agent's tests over real sockets: a clock and a scheduler on which `speedup` ms pass for every real ms.
import type { Clock } from '../../../src/core/clock.js';
import type { AgentScheduler } from '../../../src/agent/client/agent-deps.js';

/** A clock and a scheduler that agree with each other, both running `speedup` times faster than the wall clock. */
export interface FastTime {
  readonly clock: Clock;
  readonly scheduler: AgentScheduler;
}

/**
 * Real timers and the real wall clock, sped up: the clock starts at the wall clock's now and moves `speedup` ms per
 * real ms, and a timer of `delayMs` fires after delayMs / speedup real ms (rounded up). Schedules bounded to whole
 * seconds (check periods) then run in tenths of a second, with the agent's timing rules unchanged.
 */
export function fastTime(speedup: number): FastTime {
  const startMs = Date.now();
  return {
    clock: { now: () => startMs + Math.floor((Date.now() - startMs) * speedup) },
    scheduler: {
      setTimeout: (callback, delayMs) => setTimeout(callback, Math.ceil(delayMs / speedup)),
      clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
    },
  };
}
