// Owns the clock abstraction: engine code reads time only through an injected Clock.

/** A source of the current time in integer milliseconds since the epoch. */
export interface Clock {
  now(): number;
}

/** The wall clock; the only place in the engine that calls Date.now(). */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests that run time forward. */
export class ManualClock implements Clock {
  private currentMs: number;

  constructor(startMs: number) {
    this.currentMs = startMs;
  }

  now(): number {
    return this.currentMs;
  }

  /** Moves the clock forward by `deltaMs` (never backward). */
  advance(deltaMs: number): void {
    if (deltaMs < 0) throw new RangeError('ManualClock only moves forward');
    this.currentMs += deltaMs;
  }

  /** Sets the clock to `timeMs`, which must not be in its past. */
  set(timeMs: number): void {
    if (timeMs < this.currentMs) throw new RangeError('ManualClock only moves forward');
    this.currentMs = timeMs;
  }
}
