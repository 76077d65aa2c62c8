// Owns the endpoint's summary log of failed TLS handshakes: counted per reason, one line at most every AGENT_LOG_SUMMARY_INTERVAL_MS, never a line (nor stack frames) per connection.
import { AGENT_LOG_SUMMARY_INTERVAL_MS, AGENT_LOG_SUMMARY_REASONS_MAX } from '../agent-limits.js';

/** The least a logger must do for the summary (pino-like). */
export interface SummaryLogger {
  info(obj: object, msg: string): void;
}

/** The reason a TLS handshake failed, as logged: the error's code (`other` without one). */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.length <= 64 ? code : 'other';
}

/**
 * Counts failed TLS handshakes (anyone can cause them, so one line each would let anyone fill the
 * log) and logs them as one summary line: the first failure at once, then at most one line per
 * interval with what failed since the last line (count, reasons, the last remote address).
 */
export class TlsFailureLog {
  private total = 0;
  private unlogged = 0;
  private readonly reasons = new Map<string, number>();
  private lastRemote: string | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly logger: SummaryLogger,
    private readonly intervalMs: number = AGENT_LOG_SUMMARY_INTERVAL_MS,
  ) {}

  /** Failed handshakes counted since start. */
  get failures(): number {
    return this.total;
  }

  /** Counts one failed handshake; logs a summary now when none was logged within the interval. */
  note(error: unknown, remote: string | undefined): void {
    this.total++;
    this.unlogged++;
    this.lastRemote = remote;
    const reason = reasonOf(error);
    const key = this.reasons.has(reason) || this.reasons.size < AGENT_LOG_SUMMARY_REASONS_MAX - 1 ? reason : 'other';
    this.reasons.set(key, (this.reasons.get(key) ?? 0) + 1);
    if (this.timer === undefined) this.flush();
  }

  /** Logs what is still unlogged and stops the timer (the endpoint stopping). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.unlogged > 0) this.write();
  }

  /** Logs what failed since the last line, if anything, and waits an interval before the next. */
  private flush(): void {
    if (this.unlogged === 0) {
      this.timer = undefined;
      return;
    }
    this.write();
    this.timer = setTimeout(() => this.flush(), this.intervalMs);
    this.timer.unref();
  }

  private write(): void {
    this.logger.info(
      { failures: this.unlogged, reasons: Object.fromEntries(this.reasons), lastRemote: this.lastRemote, failuresTotal: this.total, summaryIntervalMs: this.intervalMs },
      'agent TLS handshakes failed',
    );
    this.unlogged = 0;
    this.reasons.clear();
  }
}
