// Owns the request recorder's Prometheus metrics on the server's registry: the writer's counters and queue, read once per scrape.
import { Gauge, type Registry } from 'prom-client';
import { addStatsCounters, type StatsCounter } from './stats-counters.js';
import type { RecordingWriterStats } from '../recording/recording-types.js';

/** Counter name and help of each monotonic field of the writer's stats. */
const COUNTERS: readonly StatsCounter<RecordingWriterStats>[] = [
  ['framesWritten', 'strata_recording_frames_total', 'Recording frames written to disk: recorded requests and gap frames (file headers are not counted).'],
  ['bytesWritten', 'strata_recording_bytes_total', 'Bytes written to recording files, headers included.'],
  ['dropped', 'strata_recording_dropped_total', 'Requests not recorded because the recorder queue was full (each run of them is marked by a gap frame).'],
  ['rotations', 'strata_recording_rotations_total', 'Times the recording moved on to a new file because the current one reached --record-max-bytes.'],
];

/**
 * Adds the recorder's metrics to `registry`: one counter per monotonic field of the writer's stats
 * and a gauge of the bytes waiting for the disk. `stats` is read once per scrape (the first metric
 * collected reads it; the rest reuse that reading).
 */
export function addRecordingMetrics(registry: Registry, stats: () => RecordingWriterStats): void {
  let reading: RecordingWriterStats | undefined;
  const read = (): RecordingWriterStats => (reading ??= stats());
  new Gauge({
    name: 'strata_recording_queued_bytes',
    help: 'Bytes of recorded requests encoded and not yet written to disk (over the queue bound, requests are dropped).',
    registers: [registry],
    collect() {
      // The first metric of a scrape takes a fresh reading.
      reading = undefined;
      this.set(read().queuedBytes);
    },
  });
  addStatsCounters(registry, COUNTERS, read);
}
