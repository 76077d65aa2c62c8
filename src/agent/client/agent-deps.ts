// Owns what the agent's parts are given rather than reach for: timers, randomness and the logger's shape, so tests can drive them.

/** A pending timer, as the scheduler that made it knows it. */
export type TimerHandle = unknown;

/** Schedules callbacks; the agent's parts take one so tests can run them on their own terms. */
export interface AgentScheduler {
  /** Calls `callback` once after `delayMs` (integer ms, >= 0). */
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  /** Cancels a timer this scheduler made; a finished or cancelled one is ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/** The process's own timers. They keep the process alive: a waiting reconnect is the agent's only work at times. */
export const systemScheduler: AgentScheduler = {
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** A source of uniform random numbers in [0, 1) (Math.random's shape). */
export type RandomSource = () => number;

/** The logger the agent's parts use (a pino Logger fits). Tokens and keys are never passed to it. */
export interface AgentLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}
