// Owns running seals in bounded turns: one window at a time, the event loop getting a turn between steps.
import type { StoreLogger } from '../store-types.js';
import { SealRun, type LiveRecords, type SealerDeps } from './sealer.js';

/** Names the next head window to seal (present and not damaged), or undefined when none is due. */
export type SealPick = () => number | undefined;

/** What a seal runner needs; store.ts wires it. */
export interface SealRunnerDeps {
  readonly sealer: SealerDeps;
  readonly live: LiveRecords;
  readonly logger: StoreLogger;
  /** Most head points one synchronous turn covers (SEAL_STEP_POINTS). */
  readonly stepPoints: number;
  /** Most series one synchronous turn covers (SEAL_STEP_SERIES_MAX). */
  readonly stepSeries: number;
  /** Runs the next turn after pending I/O and timers; setImmediate unless a test says otherwise. */
  readonly schedule?: (turn: () => void) => void;
}

/**
 * Seals the windows a pick names, one after another, in turns of at most `stepPoints` head points
 * and `stepSeries` series, yielding the event loop between turns. A small window seals within the
 * turn that starts it, so a maintenance pass that finds one seals it at once; a big one takes as
 * many turns as it needs while writes and queries go on. One run at a time: a second `start`
 * while one is going is refused (the running pick re-reads the head after each window anyway).
 */
export class SealRunner {
  /** The seal in progress, if any: readers merge its frozen window under the head's. */
  current: SealRun | undefined;
  /** Turns run since the store opened (for tests and benchmarks). */
  turns = 0;
  private readonly deps: SealRunnerDeps;
  private readonly schedule: (turn: () => void) => void;
  private pick: SealPick | undefined;
  private idle: Promise<void> = Promise.resolve();
  private wake: () => void = () => {};

  constructor(deps: SealRunnerDeps) {
    this.deps = deps;
    this.schedule = deps.schedule ?? ((turn) => void setImmediate(turn));
  }

  /** True while a run is going (between its first turn and its last). */
  get running(): boolean {
    return this.pick !== undefined;
  }

  /** Starts sealing what `pick` names, the first turn now; false (and nothing done) when a run is going. */
  start(pick: SealPick): boolean {
    if (this.running) return false;
    this.pick = pick;
    this.idle = new Promise((resolve) => (this.wake = resolve));
    this.turn();
    return true;
  }

  /** Resolves when no run is going (at once when none is). Never rejects: errors are logged. */
  settled(): Promise<void> {
    return this.idle;
  }

  private turn(): void {
    let more = false;
    try {
      more = this.work();
    } catch (error) {
      // A turn runs from setImmediate: nothing may escape as an unhandled error. The window goes
      // back into the head with its records live, and this run ends; the next maintenance pass tries again.
      this.deps.logger.error({ err: error, windowStartMs: this.current?.window.startMs }, 'sealing failed; the window stays in the head');
      this.abandonCurrent();
    }
    this.turns++;
    if (more) {
      this.schedule(() => this.turn());
      return;
    }
    this.pick = undefined;
    this.wake();
  }

  /** One turn: steps until the budget is spent; true when the run has more to do. */
  private work(): boolean {
    const { sealer, live, stepPoints, stepSeries } = this.deps;
    let points = 0;
    let series = 0;
    while (points < stepPoints && series < stepSeries) {
      if (this.current === undefined) {
        const start = (this.pick as SealPick)();
        if (start === undefined) return false;
        this.current = SealRun.begin(sealer, start);
        // A pick names only windows that can be sealed; anything else ends the run rather than spin.
        if (this.current === undefined) return false;
        // Freezing costs O(series): a window too big for what is left of this turn starts the next one.
        const { window } = this.current;
        if (points + window.points > stepPoints || series + window.series.size > stepSeries) return true;
      }
      const step = this.current.step(stepPoints - points, stepSeries - series);
      points += step.points;
      series += step.series;
      if (!step.ok) {
        this.abandonCurrent();
      } else if (this.current.written) {
        this.current.finish(live);
        this.current = undefined;
      }
    }
    return true;
  }

  private abandonCurrent(): void {
    this.current?.abandon();
    this.current = undefined;
  }
}
