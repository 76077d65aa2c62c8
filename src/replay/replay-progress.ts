// Owns showing a replay's progress on stderr: a cli-progress bar over the recordings' bytes on a terminal, a plain line every few seconds otherwise.
import cliProgress from 'cli-progress';
import type { ReplayProgressUpdate } from './replay-run.js';

/** Interval between plain progress lines when stderr is not a terminal. */
export const REPLAY_PROGRESS_LINE_INTERVAL_MS = 5000;

/** Progress display of one replay. */
export interface ReplayProgress {
  update(update: ReplayProgressUpdate): void;
  /** A line of its own (e.g. a long wait announced), which a bar is redrawn below. */
  notice(text: string): void;
  stop(): void;
}

/** Where progress goes: a stream (stderr) and whether it is a terminal; the clock is injected. */
export interface ProgressSink {
  readonly stream: NodeJS.WritableStream;
  readonly isTTY: boolean;
  readonly now: () => number;
}

function megabytes(bytes: number): string {
  return (bytes / 1048576).toFixed(1);
}

function barProgress(sink: ProgressSink, bytesTotal: number): ReplayProgress {
  const bar = new cliProgress.SingleBar(
    { format: 'replay [{bar}] {percentage}% | {mb}/{totalMb} MB | {requests} requests, {errors} errors', hideCursor: true, stream: sink.stream, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  bar.start(Math.max(1, bytesTotal), 0, { mb: '0.0', totalMb: megabytes(bytesTotal), requests: 0, errors: 0 });
  return {
    update(u) {
      bar.update(Math.min(u.bytesRead, Math.max(1, bytesTotal)), { mb: megabytes(u.bytesRead), totalMb: megabytes(u.bytesTotal), requests: u.requests, errors: u.errors });
    },
    notice(text) {
      // Clears the bar's line first; the bar draws itself again on its next update.
      sink.stream.write(`\r\x1b[K${text}\n`);
    },
    stop() {
      bar.stop();
    },
  };
}

function lineProgress(sink: ProgressSink): ReplayProgress {
  let lastLineMs = sink.now();
  let latest: ReplayProgressUpdate | undefined;
  const write = (u: ReplayProgressUpdate): void => {
    const percent = u.bytesTotal > 0 ? Math.floor((u.bytesRead / u.bytesTotal) * 100) : 100;
    sink.stream.write(`replay: ${percent}% (${megabytes(u.bytesRead)}/${megabytes(u.bytesTotal)} MB), ${u.requests} requests, ${u.errors} errors\n`);
  };
  return {
    update(u) {
      latest = u;
      // A line per request would drown a log: one every few seconds says the run is alive.
      const nowMs = sink.now();
      if (nowMs - lastLineMs < REPLAY_PROGRESS_LINE_INTERVAL_MS) return;
      lastLineMs = nowMs;
      write(u);
    },
    notice(text) {
      sink.stream.write(`${text}\n`);
    },
    stop() {
      if (latest !== undefined) write(latest);
    },
  };
}

/** A bar when the sink is a terminal, plain lines when it is a file or a pipe. */
export function createReplayProgress(sink: ProgressSink, bytesTotal: number): ReplayProgress {
  return sink.isTTY ? barProgress(sink, bytesTotal) : lineProgress(sink);
}
