// Owns one Graphite plaintext connection: lines into batches, one store write at a time with the socket paused until it is durable, retries, idle close.
import type { Socket } from 'node:net';
import type { Clock } from '../core/clock.js';
import { isStrataError, type ErrorCode } from '../core/errors.js';
import { PointColumnsBuilder } from '../model/point-columns.js';
import type { PointRejection, Store, StoreLogger } from '../store-types.js';
import { GraphitePoint, parseGraphiteLine, type GraphiteLineScratch } from '../wire/graphite-line.js';
import { GraphiteDropReport } from './graphite-drop-report.js';
import { GraphiteLineFramer } from './graphite-line-framer.js';

/** The listener's counters, which every connection adds to. */
export class GraphiteCounters {
  pointsAccepted = 0;
  pointsRejected = 0;
  pointsSkipped = 0;
  linesTooLong = 0;
  connectionsRefused = 0;
  /** Points read but never written: the store failed for good, or kept failing until the listener closed. */
  pointsDropped = 0;
}

/** The limits a connection works within (the listener's options, the protocol limits by default). */
export interface GraphiteSettings {
  readonly lineBytesMax: number;
  readonly batchPointsMax: number;
  readonly idleMs: number;
  readonly retryDelayMs: number;
  readonly warnIntervalMs: number;
}

/** What a connection shares with its listener. */
export interface GraphiteConnectionContext {
  readonly store: Store;
  readonly tenant: string;
  readonly clock: Clock;
  readonly logger: StoreLogger;
  /** Shared by the listener's connections: parsing is synchronous. */
  readonly scratch: GraphiteLineScratch;
  readonly counters: GraphiteCounters;
  readonly settings: GraphiteSettings;
}

/** Store failures that mean "not now": the batch is kept and written again after a delay. */
const RETRIED_CODES: ReadonlySet<string> = new Set<ErrorCode>(['STORE_NOT_DURABLE', 'INGEST_HEAD_FULL']);

/**
 * Reads one connection. Every data chunk pauses the socket; its lines are parsed into a batch,
 * written at every `batchPointsMax` points and at the end of the chunk, and the socket resumes
 * only when the last write is durable, so a slow store slows the sender (TCP backpressure) rather
 * than filling memory. The plaintext protocol has no answers: drops are counted and reported.
 */
export class GraphiteConnection {
  /** Resolves once the socket is closed and nothing it sent is still being written. */
  readonly done: Promise<void>;
  private readonly framer: GraphiteLineFramer;
  private readonly columns = new PointColumnsBuilder();
  private readonly point = new GraphitePoint();
  private readonly report: GraphiteDropReport;
  private readonly chunks: Buffer[] = [];
  private pumping: Promise<void> | undefined;
  /** The client sent its last byte; the unterminated tail, if any, is a line. */
  private ended = false;
  private endRead = false;
  private closing = false;
  private socketClosed = false;
  private nowMs = 0;
  /** Cuts a retry delay short (the listener is closing). */
  private wake: (() => void) | undefined;
  private resolveDone: () => void = () => {};

  constructor(
    private readonly socket: Socket,
    private readonly ctx: GraphiteConnectionContext,
  ) {
    const remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    this.report = new GraphiteDropReport(ctx.logger, ctx.clock, ctx.settings.warnIntervalMs, { tenant: ctx.tenant, remote });
    this.framer = new GraphiteLineFramer(ctx.settings.lineBytesMax, () => {
      ctx.counters.linesTooLong++;
      this.report.note('GRAPHITE_LINE_TOO_LONG', `a line is longer than ${ctx.settings.lineBytesMax} bytes; it was dropped up to its newline`);
    });
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    socket.setTimeout(ctx.settings.idleMs);
    socket.on('data', (chunk: Buffer) => {
      // One chunk at a time: nothing more is read until its points are durable.
      socket.pause();
      this.chunks.push(chunk);
      this.kick();
    });
    socket.on('end', () => {
      this.ended = true;
      this.kick();
    });
    socket.on('timeout', () => this.onIdle());
    // A reset or broken pipe only ends the connection; what it sent before is still written.
    socket.on('error', () => {});
    socket.once('close', () => {
      this.socketClosed = true;
      this.settle();
    });
  }

  /** Stops reading, finishes the chunk in hand (one more attempt for a batch being retried), then closes the socket. */
  async close(): Promise<void> {
    this.closing = true;
    this.socket.pause();
    this.wake?.();
    await this.pumping;
    this.socket.destroy();
    await this.done;
  }

  private kick(): void {
    if (this.pumping !== undefined) return;
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      this.afterPump();
    });
  }

  private async pump(): Promise<void> {
    for (;;) {
      const chunk = this.chunks.shift();
      if (chunk !== undefined) {
        await this.consume(chunk);
      } else if (this.ended && !this.endRead) {
        this.endRead = true;
        this.nowMs = this.ctx.clock.now();
        if (this.framer.finish()) this.takeLine();
        await this.flush();
      } else {
        return;
      }
    }
  }

  private afterPump(): void {
    if (this.chunks.length > 0 || (this.ended && !this.endRead)) {
      this.kick();
      return;
    }
    if (this.closing || this.ended) this.socket.destroy();
    else this.socket.resume();
    this.settle();
  }

  /** Resolves `done` once the socket is closed and no write is in flight. */
  private settle(): void {
    if (!this.socketClosed || this.pumping !== undefined || this.chunks.length > 0) return;
    this.report.close();
    this.resolveDone();
  }

  private onIdle(): void {
    // A connection waiting on the store is not idle: it is held back on purpose.
    if (this.pumping !== undefined) {
      this.socket.setTimeout(this.ctx.settings.idleMs);
      return;
    }
    this.socket.destroy();
  }

  /** Parses every whole line of `chunk`, writing a batch each time it fills and at the end. */
  private async consume(chunk: Buffer): Promise<void> {
    const batchMax = this.ctx.settings.batchPointsMax;
    this.nowMs = this.ctx.clock.now();
    let pos = 0;
    for (;;) {
      const next = this.framer.next(chunk, pos);
      if (next < 0) break;
      this.takeLine();
      pos = next;
      if (this.columns.length >= batchMax) {
        await this.flush();
        this.nowMs = this.ctx.clock.now();
      }
    }
    await this.flush();
  }

  /** Parses the framer's current line into the batch, or counts why not. */
  private takeLine(): void {
    const { framer, ctx, point } = this;
    const outcome = parseGraphiteLine(framer.lineBuf, framer.lineStart, framer.lineEnd, this.nowMs, ctx.scratch, point);
    if (outcome === 'point') {
      const i = this.columns.add(ctx.tenant, point.metric, undefined);
      this.columns.timestampsMs[i] = point.timestampMs;
      this.columns.values[i] = point.value;
    } else if (outcome === 'skipped') {
      ctx.counters.pointsSkipped++;
    } else if (outcome !== 'blank') {
      ctx.counters.pointsRejected++;
      this.report.note(outcome.code, outcome.message);
    }
  }

  /** Writes the batch (retrying while the store is unavailable), counts the outcome and empties it. */
  private async flush(): Promise<void> {
    if (this.columns.length === 0) return;
    try {
      await this.write();
    } finally {
      this.columns.reset();
    }
  }

  private async write(): Promise<void> {
    const { store, counters, logger, settings } = this.ctx;
    const points = this.columns.length;
    let lastWarnMs = Number.NEGATIVE_INFINITY;
    for (;;) {
      try {
        const result = await store.writeColumns(this.columns);
        counters.pointsAccepted += result.accepted;
        this.noteRejections(result.rejected);
        return;
      } catch (error) {
        if (isStrataError(error) && error.code === 'INGEST_POINTS_REJECTED') {
          this.noteRejections((error.details.rejected as readonly PointRejection[] | undefined) ?? [], points);
          return;
        }
        const retried = isStrataError(error) && RETRIED_CODES.has(error.code);
        if (!retried || this.closing) {
          counters.pointsDropped += points;
          const why = retried ? 'the store stayed unavailable until the listener closed' : 'the store failed';
          logger.error({ tenant: this.ctx.tenant, points, err: error }, `graphite points dropped: ${why}`);
          return;
        }
        const nowMs = this.ctx.clock.now();
        if (nowMs - lastWarnMs >= settings.warnIntervalMs) {
          lastWarnMs = nowMs;
          logger.warn({ tenant: this.ctx.tenant, points, code: error.code, retryDelayMs: settings.retryDelayMs }, 'the store cannot take a graphite batch now; retrying it, the connection reads nothing meanwhile');
        }
        await this.pauseFor(settings.retryDelayMs);
      }
    }
  }

  /** Counts the store's rejections (`total` when the store refused the batch whole without listing them all). */
  private noteRejections(rejected: readonly PointRejection[], total = rejected.length): void {
    this.ctx.counters.pointsRejected += Math.max(total, rejected.length);
    for (const rejection of rejected) {
      const metric = this.columns.metrics[rejection.index] ?? '?';
      this.report.note(rejection.code, `${metric}: ${rejection.message}`);
    }
    if (total > rejected.length) this.report.note('INGEST_POINTS_REJECTED', 'the store refused a batch whole', total - rejected.length);
  }

  /** Waits `delayMs`, or less when close() wakes it. */
  private async pauseFor(delayMs: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.wake?.(), delayMs);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }
}
