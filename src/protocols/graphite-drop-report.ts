// Owns reporting what one Graphite connection dropped: counts by code, logged as at most one warn line per interval.
import type { Clock } from '../core/clock.js';
import type { StoreLogger } from '../store-types.js';

/** One reason, as the report shows it. */
interface Example {
  readonly code: string;
  readonly message: string;
}

/**
 * Counts the lines and points a connection dropped, by error code, and logs them as one warn line
 * at most every `intervalMs`: the plaintext protocol has no answer channel, so the log is the only
 * place a sender's mistakes show, and a sender repeating one mistake must not flood it. The first
 * drop is logged at once; later ones within the interval are summed into a line when it ends (or
 * when the connection closes).
 */
export class GraphiteDropReport {
  private readonly counts = new Map<string, number>();
  private example: Example | undefined;
  private lastMs = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly logger: StoreLogger,
    private readonly clock: Clock,
    private readonly intervalMs: number,
    /** What every line names: the tenant and the remote address. */
    private readonly fields: Readonly<Record<string, unknown>>,
  ) {}

  /** Counts `count` dropped lines or points for `code`; `message` is kept when it is the first since the last line. */
  note(code: string, message: string, count = 1): void {
    this.counts.set(code, (this.counts.get(code) ?? 0) + count);
    this.example ??= { code, message };
    const sinceMs = this.clock.now() - this.lastMs;
    if (sinceMs >= this.intervalMs) {
      this.flush();
      return;
    }
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.intervalMs - sinceMs);
      // A pending report never keeps the process alive.
      this.timer.unref();
    }
  }

  /** Logs what was counted since the last line, if anything. */
  flush(): void {
    if (this.counts.size === 0) return;
    this.logger.warn(
      { ...this.fields, dropped: Object.fromEntries(this.counts), example: this.example },
      'graphite lines dropped (counts since the last report; the plaintext protocol cannot tell the sender)',
    );
    this.counts.clear();
    this.example = undefined;
    this.lastMs = this.clock.now();
  }

  /** Logs what is left and stops the timer (the connection closed). */
  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.flush();
  }
}
