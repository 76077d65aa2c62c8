// Owns writing a built workload as a recording: its batches as ingest requests paced at a rate, then seeded plot queries.
import { rmSync, statSync } from 'node:fs';
import { pack } from 'msgpackr';
import { StrataError } from '../core/errors.js';
import { RECORDING_FILE_BYTES_MAX, RECORDING_QUEUE_BYTES_MAX } from '../recording/recording-limits.js';
import type { RecordingWriter } from '../recording/recording-types.js';
import { openRecordingWriter } from '../recording/recording-writer.js';
import type { ArrivalBatch } from './arrival-order.js';
import { mulberry32, uniformInt } from './prng.js';
import { metricNames } from './standard-workload.js';
import type { BuiltWorkload } from './workload-kinds.js';
import { WORKLOAD_PLOT_SPACING_MS, WORKLOAD_PLOT_WINDOW_MS, WORKLOAD_TTL_SECONDS } from './workload-limits.js';

/** Wire format of the ingest bodies. */
export type WorkloadFormat = 'json' | 'msgpack';

/** Content-Type of each wire format, as a client sends it. */
export const WORKLOAD_CONTENT_TYPES: Readonly<Record<WorkloadFormat, string>> = { json: 'application/json', msgpack: 'application/x-msgpack' };

/** Mixed into the workload's seed to pick the plotted series, so the picks are not the value draws. */
const PLOT_SEED_SALT = 0x5bd1e995;

/** Where and how to write a workload. */
export interface WorkloadRecordingOptions {
  readonly path: string;
  readonly format: WorkloadFormat;
  /** Tenant segment of every URL (replay maps it to the replaying user's tenant). */
  readonly tenant: string;
  /** Points per second at replay speed 1: batch arrivals are spaced so the ingest runs at this rate. */
  readonly ratePointsPerSecond: number;
  /** Plot queries appended after the ingest. */
  readonly plots: number;
  /** The header's producer, `strata <version> workload generate <kind>`. */
  readonly producer: string;
  /** The header's startedAtMs: every arrival is relative to it. */
  readonly startedAtMs: number;
  /** A body larger than this is refused (the server's body limit), naming --batch-points as the fix. */
  readonly bodyBytesMax: number;
  /** Called after each frame is queued, with frames done and frames in all. */
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
}

/** What was written. */
export interface WorkloadRecordingResult {
  readonly path: string;
  /** Exchange frames after the header: ingest requests plus plot queries. */
  readonly frames: number;
  readonly ingestFrames: number;
  readonly plotFrames: number;
  readonly points: number;
  /** Size of the file on disk. */
  readonly bytes: number;
}

/** One Blueflood metric of an ingest body, keys in the order clients send them. */
interface BluefloodMetric {
  metricName: string;
  metricValue: number;
  collectionTime: number;
  ttlInSeconds: number;
  unit?: string;
}

/** The ingest body of one batch: its points as Blueflood metrics, in send order. */
export function encodeBatchBody(built: BuiltWorkload, batch: ArrivalBatch, names: readonly string[], format: WorkloadFormat): Buffer {
  const { columns, plan, unit } = built;
  const metrics: BluefloodMetric[] = new Array<BluefloodMetric>(batch.end - batch.start);
  for (let j = batch.start; j < batch.end; j++) {
    const i = plan.order[j] as number;
    const metric: BluefloodMetric = {
      metricName: names[columns.seriesIndex[i] as number] as string,
      metricValue: columns.values[i] as number,
      collectionTime: columns.timestampsMs[i] as number,
      ttlInSeconds: WORKLOAD_TTL_SECONDS,
    };
    if (unit !== undefined) metric.unit = unit;
    metrics[j - batch.start] = metric;
  }
  // Copy msgpackr's output: it may be a view on the encoder's reused buffer.
  return format === 'json' ? Buffer.from(JSON.stringify(metrics)) : Buffer.from(pack(metrics));
}

/** The plot query URLs: seeded series, MIN5 over the last day of the data (or all of it when shorter). */
export function plotUrls(built: BuiltWorkload, tenant: string, count: number): string[] {
  const { columns, options } = built;
  const pick = mulberry32((options.seed ^ PLOT_SEED_SALT) >>> 0);
  const names = metricNames(options.series);
  const fromMs = Math.max(columns.t0Ms, columns.dataEndMs - WORKLOAD_PLOT_WINDOW_MS);
  return Array.from({ length: count }, () => {
    const metric = encodeURIComponent(names[uniformInt(pick, options.series)] as string);
    return `/metrics/v2.0/${tenant}/views/${metric}?from=${fromMs}&to=${columns.dataEndMs}&resolution=MIN5&select=average,min,max`;
  });
}

/** Arrival of a batch, ms after the recording's start, at the replay rate. */
export function arrivalMs(atPoints: number, ratePointsPerSecond: number): number {
  return Math.floor((atPoints * 1000) / ratePointsPerSecond);
}

async function appendIngest(writer: RecordingWriter, built: BuiltWorkload, options: WorkloadRecordingOptions, done: () => void): Promise<number> {
  const names = metricNames(built.options.series);
  const url = `/ingest/v2.0/${options.tenant}/ingest`;
  const contentType = WORKLOAD_CONTENT_TYPES[options.format];
  let lastMs = 0;
  for (const batch of built.plan.batches) {
    const body = encodeBatchBody(built, batch, names, options.format);
    if (body.length > options.bodyBytesMax) {
      throw new StrataError('CONFIG_INVALID', `a batch of ${batch.end - batch.start} points encodes to ${body.length} bytes, over the server's body limit of ${options.bodyBytesMax}: lower --batch-points`, {
        option: 'batchPoints',
        bodyBytes: body.length,
        max: options.bodyBytesMax,
      });
    }
    lastMs = arrivalMs(batch.atPoints, options.ratePointsPerSecond);
    await writer.append({ arrivedAtMs: options.startedAtMs + lastMs, method: 'POST', url, tenant: options.tenant, contentType, body, status: 200, durationMs: 0 });
    done();
  }
  // The plots follow once every point has been sent at the rate.
  return Math.max(lastMs, arrivalMs(built.columns.length, options.ratePointsPerSecond));
}

/**
 * Writes the workload as one recording file; removes the file again if writing fails. A previous
 * recording at the path is replaced (the writer keeps one file); anything else there (a database,
 * a link, a directory) is refused by the writer, never deleted.
 */
export async function writeWorkloadRecording(built: BuiltWorkload, options: WorkloadRecordingOptions): Promise<WorkloadRecordingResult> {
  const writer = await openRecordingWriter({
    path: options.path,
    // One file that never rotates: the largest workload is far below the cap (asserted in workload-limits.ts).
    fileBytesMax: RECORDING_FILE_BYTES_MAX,
    files: 1,
    queueBytesMax: RECORDING_QUEUE_BYTES_MAX,
    producer: options.producer,
    description: built.description,
    now: () => options.startedAtMs,
  });
  const ingestFrames = built.plan.batches.length;
  const total = ingestFrames + options.plots;
  let frames = 0;
  const done = (): void => options.onProgress?.(++frames, total);
  try {
    const plotsFromMs = await appendIngest(writer, built, options, done);
    const urls = plotUrls(built, options.tenant, options.plots);
    for (const [j, url] of urls.entries()) {
      const arrivedAtMs = options.startedAtMs + plotsFromMs + j * WORKLOAD_PLOT_SPACING_MS;
      await writer.append({ arrivedAtMs, method: 'GET', url, tenant: options.tenant, contentType: null, body: null, status: 200, durationMs: 0 });
      done();
    }
    await writer.close();
  } catch (error) {
    await writer.close().catch(() => undefined);
    rmSync(options.path, { force: true });
    throw error;
  }
  return { path: options.path, frames, ingestFrames, plotFrames: options.plots, points: built.columns.length, bytes: statSync(options.path).size };
}
