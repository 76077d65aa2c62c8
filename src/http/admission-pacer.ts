// Owns pacing heavy work: starting it at most once every few turns of the event loop, so new connections are still accepted.
/**
 * Lets work start at most once every few turns of the event loop. Node (libuv 1.45 and later) accepts one
 * new connection per turn, and reads new requests' headers only between turns: when one turn runs
 * every ingest batch whose body just completed (decode and WAL write, 5 to 40 ms each), turns last
 * hundreds of milliseconds, new connections wait unseen in the kernel's accept queue and admission
 * never hears of them (measured: 2 accepts a second under the issue-10 flood, 200 waiting).
 */
export class TurnPacer {
  private readonly waiting: (() => void)[] = [];
  /** Turns since the last start, while fewer than `turnsPerStart`; undefined when the pacer is at rest. */
  private turnsSinceStart: number | undefined;

  /** `turnsPerStart`: turns of the loop from one start to the next (the ones between do no paced work). */
  constructor(private readonly turnsPerStart: number) {}

  /**
   * Resolves when the caller may start: at once when nothing started in the last `turnsPerStart`
   * turns (a quiet server pays nothing), else `turnsPerStart` turns after the previous start, one
   * caller at a time, in call order.
   */
  turn(): Promise<void> {
    if (this.turnsSinceStart === undefined && this.waiting.length === 0) {
      this.started();
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private started(): void {
    this.turnsSinceStart = 0;
    this.tick();
  }

  private tick(): void {
    // An immediate scheduled while immediates run waits for the next turn, after its poll phase.
    setImmediate(() => {
      this.turnsSinceStart = (this.turnsSinceStart ?? 0) + 1;
      if (this.turnsSinceStart < this.turnsPerStart) {
        this.tick();
        return;
      }
      const next = this.waiting.shift();
      if (next === undefined) {
        this.turnsSinceStart = undefined;
        return;
      }
      this.started();
      next();
    });
  }
}
