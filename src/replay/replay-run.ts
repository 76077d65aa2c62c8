// Owns one replay run: streams the recordings' frames in order with bounded look-ahead, paces, sends, measures, reports.
import { assert } from '../core/assert.js';
import { StrataError, isStrataError } from '../core/errors.js';
import { openRecording } from '../recording/recording-reader.js';
import type { RecordedExchange, RecordingFrame } from '../recording/recording-types.js';
import type { RecordingReader } from '../recording/recording-reader.js';
import { REPLAY_READ_AHEAD_BYTES, REPLAY_READ_AHEAD_FRAMES } from './replay-limits.js';
import { runPaced, type PacedItem, type PacingClock, type PacingMode, type PacingSummary } from './replay-pacing.js';
import { REPLAY_REPORT_KIND, REPLAY_REPORT_VERSION, type ReplayReport } from './replay-report.js';
import { createReplayStats } from './replay-stats.js';
import type { ReplayTarget } from './replay-target.js';
import { matchRoute } from './replay-routes.js';
import { autoShiftMs, createTransformer, type ReplayRequest } from './replay-transform.js';

/** Recorded statuses that mean the recording server refused the request before doing its work; not replayed by default. */
export const REPLAY_REFUSED_STATUSES: readonly number[] = [401, 403, 503];
/** Bytes a frame takes besides its URL, content type and body (prefix, msgpack tags and small fields), for progress. */
const FRAME_OVERHEAD_BYTES = 40;

/** What a run reports as it goes. */
export interface ReplayProgressUpdate {
  /** Bytes of the recordings sent so far (estimated within a file from the frames' sizes). */
  readonly bytesRead: number;
  readonly bytesTotal: number;
  readonly requests: number;
  readonly errors: number;
}

/** Options of runReplay. */
export interface ReplayRunOptions {
  /** Open readers, in replay order (see openRecordings); runReplay closes them. */
  readonly readers: readonly RecordingReader[];
  readonly target: ReplayTarget;
  readonly mode: PacingMode;
  readonly concurrency: number;
  /** Explicit recorded -> target tenant pairs; every other tenant goes to the target user's tenant. */
  readonly tenantPairs: ReadonlyMap<string, string>;
  readonly timeShift: 'auto' | 'none' | number;
  readonly includeRefused: boolean;
  /** Wall clock (ms) and sleep; injected. */
  readonly clock: PacingClock;
  readonly onProgress?: (update: ReplayProgressUpdate) => void;
  /** Told before a wait longer than REPLAY_WAIT_NOTICE_MS for the next recorded request (under --speed). */
  readonly onWait?: (waitMs: number) => void;
}

/** A finished run: its report, and the error that stopped it early (a damaged recording) or null. */
export interface ReplayOutcome {
  readonly report: ReplayReport;
  readonly error: StrataError | null;
}

/**
 * Opens every file and reads its header; on any failure closes the ones already open and throws.
 * Files are ordered by their header (start time, then rotation sequence), so a shell glob of a
 * rotation set (`rec.bin rec.bin.1 rec.bin.2`) replays oldest first; ties keep the given order.
 */
export async function openRecordings(paths: readonly string[]): Promise<RecordingReader[]> {
  const readers: RecordingReader[] = [];
  try {
    for (const path of paths) readers.push(await openRecording(path).catch((error: unknown) => Promise.reject(namingFile(error, path))));
  } catch (error) {
    await Promise.all(readers.map((reader) => reader.close()));
    throw error;
  }
  return readers
    .map((reader, index) => ({ reader, index }))
    .sort((a, b) => a.reader.header.startedAtMs - b.reader.header.startedAtMs || a.reader.header.sequence - b.reader.header.sequence || a.index - b.index)
    .map((entry) => entry.reader);
}

/** A recording error with the file's path in front of its message (the reader's message gives the byte offset). */
function namingFile(error: unknown, path: string): unknown {
  if (!isStrataError(error) || !error.code.startsWith('RECORDING_')) return error;
  return new StrataError(error.code, `${path}: ${error.message}`, { ...error.details, path });
}

interface Pending {
  readonly request: ReplayRequest;
  /** Recording bytes up to and including this frame, for progress. */
  readonly bytesRead: number;
}

interface StreamCounters {
  gapFrames: number;
  dropped: number;
  refused: number;
  /** Exchanges of other routes than the five recorded ones, or with an unsafe URL: never sent. */
  notRecordedRoute: number;
}

function frameBytes(exchange: RecordedExchange): number {
  return FRAME_OVERHEAD_BYTES + exchange.url.length + (exchange.contentType?.length ?? 0) + (exchange.body?.byteLength ?? 0);
}

/**
 * The arrival time of the last exchange of each recording (keyed by its start): header start +
 * the exchange's atMs. `--time-shift auto` needs it before the first request goes out, so this
 * reads every file once more from the start (frames only, nothing kept). Damage stops the reading
 * of that file: the run itself then stops at the same place and reports it.
 */
export async function lastArrivals(readers: readonly RecordingReader[]): Promise<Map<number, number>> {
  const last = new Map<number, number>();
  for (const reader of readers) {
    const startedAtMs = reader.header.startedAtMs;
    // A reader of its own: the run's reader must start at the first frame.
    const again = await openRecording(reader.path);
    try {
      for await (const frame of again.frames()) {
        if (frame.kind === 'exchange') last.set(startedAtMs, Math.max(last.get(startedAtMs) ?? startedAtMs, startedAtMs + frame.atMs));
      }
    } catch (error) {
      if (!isStrataError(error)) throw error;
    } finally {
      await again.close();
    }
  }
  return last;
}

/** The shift of every distinct recording start, in the order the recordings replay. */
async function shiftsOf(options: ReplayRunOptions, nowMs: number): Promise<Map<number, number>> {
  const starts = [...new Set(options.readers.map((reader) => reader.header.startedAtMs))];
  const { timeShift } = options;
  if (timeShift !== 'auto') return new Map(starts.map((start) => [start, timeShift === 'none' ? 0 : timeShift]));
  const last = await lastArrivals(options.readers);
  return new Map(starts.map((start) => [start, autoShiftMs(last.get(start) ?? start, nowMs)]));
}

async function* framesNamingFile(reader: RecordingReader): AsyncGenerator<RecordingFrame> {
  try {
    yield* reader.frames();
  } catch (error) {
    throw namingFile(error, reader.path);
  }
}

/**
 * The frames of every reader as requests on one timeline, which starts at the first request sent:
 * a recording whose first request came an hour after the server started does not wait that hour.
 * Files of one recording (same start) share its timeline; the first request of another recording
 * follows right after the previous recording's last one.
 */
async function* pendingRequests(options: ReplayRunOptions, counters: StreamCounters, shifts: ReadonlyMap<number, number>): AsyncGenerator<PacedItem<Pending>> {
  let bytesBefore = 0;
  let lastTimelineMs = 0;
  /** timeline = atMs + offsetMs for the current recording; unset until its first request. */
  let offsetMs: number | undefined;
  let previousStart: number | undefined;
  for (const reader of options.readers) {
    const header = reader.header;
    if (header.startedAtMs !== previousStart) offsetMs = undefined;
    previousStart = header.startedAtMs;
    const transformer = createTransformer({ tenants: { pairs: options.tenantPairs, fallback: options.target.tenant }, shiftMs: shifts.get(header.startedAtMs) ?? 0 });
    let bytesInFile = 0;
    for await (const frame of framesNamingFile(reader)) {
      if (frame.kind === 'gap') {
        counters.gapFrames++;
        counters.dropped += frame.dropped;
        continue;
      }
      bytesInFile = Math.min(reader.sizeBytes, bytesInFile + frameBytes(frame));
      // Classified before the transform, so a skipped exchange costs no body decoding.
      if (matchRoute(frame.method, frame.url) === null) {
        counters.notRecordedRoute++;
        continue;
      }
      if (!options.includeRefused && REPLAY_REFUSED_STATUSES.includes(frame.status)) {
        counters.refused++;
        continue;
      }
      const request = transformer.transform(frame);
      assert(request !== null, 'the transform refuses exactly the exchanges matchRoute refuses');
      offsetMs ??= lastTimelineMs - frame.atMs;
      // atMs never decreases within a recording; the max guards a hand-made file that breaks the rule.
      lastTimelineMs = Math.max(lastTimelineMs, frame.atMs + offsetMs);
      yield { timelineMs: lastTimelineMs, value: { request, bytesRead: bytesBefore + bytesInFile } };
    }
    bytesBefore += reader.sizeBytes;
  }
}

/**
 * Pulls `source` ahead of its consumer: up to `maxItems` items or `maxBytes` bytes (at least one
 * item), so decoding the next frames overlaps waiting for the target. An error of the source
 * reaches the consumer after the items read before it.
 */
export async function* readAhead<T>(source: AsyncIterable<T>, maxItems: number, maxBytes: number, bytesOf: (item: T) => number): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  const buffer: T[] = [];
  let bufferedBytes = 0;
  let finished = false;
  let stopped = false;
  let failure: { error: unknown } | undefined;
  let wakeConsumer: (() => void) | undefined;
  let wakeProducer: (() => void) | undefined;
  const full = (): boolean => buffer.length >= maxItems || (buffer.length > 0 && bufferedBytes >= maxBytes);
  const pump = (async () => {
    try {
      while (!stopped) {
        while (full() && !stopped) await new Promise<void>((resolve) => (wakeProducer = resolve));
        if (stopped) break;
        const next = await iterator.next();
        if (next.done === true) break;
        buffer.push(next.value);
        bufferedBytes += bytesOf(next.value);
        wakeConsumer?.();
      }
    } catch (error) {
      failure = { error };
    } finally {
      finished = true;
      wakeConsumer?.();
    }
  })();
  try {
    for (;;) {
      const item = buffer.shift();
      if (item !== undefined) {
        bufferedBytes -= bytesOf(item);
        wakeProducer?.();
        yield item;
        continue;
      }
      if (failure !== undefined) throw failure.error;
      if (finished) return;
      await new Promise<void>((resolve) => (wakeConsumer = resolve));
    }
  } finally {
    stopped = true;
    wakeProducer?.();
    await pump;
    await iterator.return?.(undefined);
  }
}

/** Replays every reader into the target; returns the report even when the recording turned out damaged part-way. */
export async function runReplay(options: ReplayRunOptions): Promise<ReplayOutcome> {
  const stats = createReplayStats();
  const counters: StreamCounters = { gapFrames: 0, dropped: 0, refused: 0, notRecordedRoute: 0 };
  const bytesTotal = options.readers.reduce((sum, reader) => sum + reader.sizeBytes, 0);
  let shifts: Map<number, number>;
  try {
    shifts = await shiftsOf(options, options.clock.now());
  } catch (caught) {
    await Promise.all(options.readers.map((reader) => reader.close()));
    throw caught;
  }
  const startMs = options.clock.now();
  const items = readAhead(pendingRequests(options, counters, shifts), REPLAY_READ_AHEAD_FRAMES, REPLAY_READ_AHEAD_BYTES, (item) => item.value.request.body?.byteLength ?? 0);
  let error: StrataError | null = null;
  let pacing: PacingSummary | undefined;
  try {
    pacing = await runPaced(items, {
      mode: options.mode,
      concurrency: options.concurrency,
      clock: options.clock,
      ...(options.onWait !== undefined ? { onWait: options.onWait } : {}),
      send: async (pending) => {
        const { request } = pending;
        const outcome = await options.target.send(request);
        stats.record({ route: request.route, points: request.points, bytes: request.body?.byteLength ?? 0, recordedStatus: request.recordedStatus }, outcome);
        options.onProgress?.({ bytesRead: pending.bytesRead, bytesTotal, ...stats.progress() });
      },
    });
    options.onProgress?.({ bytesRead: bytesTotal, bytesTotal, ...stats.progress() });
  } catch (caught) {
    // A damaged recording stops the run; what was sent before is still reported.
    if (!isStrataError(caught)) throw caught;
    error = caught;
  } finally {
    await Promise.all(options.readers.map((reader) => reader.close()));
  }
  const seconds = Math.max(0, options.clock.now() - startMs) / 1000;
  const summary = stats.summarize(seconds);
  const report: ReplayReport = {
    kind: REPLAY_REPORT_KIND,
    version: REPLAY_REPORT_VERSION,
    target: options.target.url,
    recordings: options.readers.map((r) => ({ path: r.path, sizeBytes: r.sizeBytes, producer: r.header.producer, sequence: r.header.sequence, startedAt: new Date(r.header.startedAtMs).toISOString() })),
    startedAt: new Date(startMs).toISOString(),
    seconds: Math.round(seconds * 1000) / 1000,
    options: {
      mode: options.mode.kind,
      speed: options.mode.kind === 'speed' ? options.mode.speed : null,
      concurrency: options.concurrency,
      timeShift: options.timeShift,
      timeShiftsMs: [...shifts.values()],
      tenantMap: Object.fromEntries(options.tenantPairs),
      fallbackTenant: options.target.tenant,
      includeRefused: options.includeRefused,
    },
    totals: summary.totals,
    routes: summary.routes,
    errors: summary.errors,
    skipped: { refused: counters.refused, notRecordedRoute: counters.notRecordedRoute },
    gaps: { frames: counters.gapFrames, dropped: counters.dropped },
    lag: pacing?.lag ?? null,
    complete: error === null,
  };
  return { report, error };
}
