// Tests of writing a workload as a recording: header, paced ingest requests whose bodies are exactly the plan's points, plot queries, determinism, refusals.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unpack } from 'msgpackr';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/core/errors.js';
import type { RecordedExchange } from '../../src/recording/recording-types.js';
import { metricName } from '../../src/workload/standard-workload.js';
import { buildWorkload, type BuiltWorkload, type WorkloadKind } from '../../src/workload/workload-kinds.js';
import { WORKLOAD_PLOT_SPACING_MS, WORKLOAD_TTL_SECONDS } from '../../src/workload/workload-limits.js';
import { arrivalMs, writeWorkloadRecording, type WorkloadFormat, type WorkloadRecordingOptions } from '../../src/workload/workload-recording.js';
import { readRecordingFile } from '../support/read-recording.js';

const END_MS = 1_763_990_000_000;
const RATE = 1_000;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-workload-rec-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function build(kind: WorkloadKind): BuiltWorkload {
  return buildWorkload({ kind, series: 7, points: 30, intervalMs: 30_000, seed: 9, endMs: END_MS, batchPoints: 40 });
}

function optionsFor(path: string, format: WorkloadFormat, plots = 5): WorkloadRecordingOptions {
  return { path, format, tenant: 't1', ratePointsPerSecond: RATE, plots, producer: 'strata 0.0.0 workload generate test', startedAtMs: END_MS, bodyBytesMax: 16 * 1024 * 1024 };
}

/** The Blueflood metrics a batch of the plan must carry. */
function expectedMetrics(built: BuiltWorkload, start: number, end: number): unknown[] {
  return [...built.plan.order.subarray(start, end)].map((i) => ({
    metricName: metricName(built.columns.seriesIndex[i] as number),
    metricValue: built.columns.values[i],
    collectionTime: built.columns.timestampsMs[i],
    ttlInSeconds: WORKLOAD_TTL_SECONDS,
    ...(built.unit === undefined ? {} : { unit: built.unit }),
  }));
}

describe('writeWorkloadRecording', () => {
  for (const [kind, format] of [
    ['walk', 'json'],
    ['counter', 'msgpack'],
    ['late', 'json'],
    ['out-of-order', 'msgpack'],
    ['burst', 'json'],
  ] as const) {
    it(`${kind} as ${format}: one request per batch, paced at the rate, bodies exactly the plan's points, then the plots`, async () => {
      const built = build(kind);
      const path = join(dir, `${kind}.rec`);
      const progress: number[] = [];
      const result = await writeWorkloadRecording(built, { ...optionsFor(path, format), onProgress: (done, total) => progress.push(done, total) });
      const { header, frames } = await readRecordingFile(path);
      expect(header).toMatchObject({ kind: 'header', version: 1, sequence: 0, startedAtMs: END_MS, producer: 'strata 0.0.0 workload generate test', description: built.description });
      const batches = built.plan.batches;
      expect(frames).toHaveLength(batches.length + 5);
      expect(result).toMatchObject({ path, frames: batches.length + 5, ingestFrames: batches.length, plotFrames: 5, points: 7 * 30 });
      expect(result.bytes).toBe(readFileSync(path).length);
      expect(progress.slice(-2)).toEqual([batches.length + 5, batches.length + 5]);
      const exchanges = frames as RecordedExchange[];
      batches.forEach((batch, j) => {
        const frame = exchanges[j] as RecordedExchange;
        expect(frame).toMatchObject({ kind: 'exchange', method: 'POST', url: '/ingest/v2.0/t1/ingest', tenant: 't1', status: 200, durationMs: 0 });
        expect(frame.contentType).toBe(format === 'json' ? 'application/json' : 'application/x-msgpack');
        expect(frame.atMs).toBe(arrivalMs(batch.atPoints, RATE));
        const body = Buffer.from(frame.body ?? []);
        expect(format === 'json' ? JSON.parse(body.toString('utf8')) : unpack(body)).toEqual(expectedMetrics(built, batch.start, batch.end));
      });
      const plots = exchanges.slice(batches.length);
      const lastIngestMs = exchanges[batches.length - 1]?.atMs ?? 0;
      plots.forEach((plot, j) => {
        expect(plot).toMatchObject({ method: 'GET', tenant: 't1', contentType: null, body: null, status: 200, durationMs: 0 });
        expect(plot.atMs).toBe(Math.max(lastIngestMs, arrivalMs(7 * 30, RATE)) + j * WORKLOAD_PLOT_SPACING_MS);
        const url = new URL(plot.url, 'http://x');
        expect(url.pathname).toMatch(/^\/metrics\/v2\.0\/t1\/views\/bench\.s000[0-6]$/);
        expect(Object.fromEntries(url.searchParams)).toEqual({ from: String(built.columns.t0Ms), to: String(built.columns.dataEndMs), resolution: 'MIN5', select: 'average,min,max' });
      });
    });
  }

  it('writes the same bytes for the same workload and options', async () => {
    const a = join(dir, 'a.rec');
    const b = join(dir, 'b.rec');
    await writeWorkloadRecording(build('late'), optionsFor(a, 'msgpack'));
    await writeWorkloadRecording(build('late'), optionsFor(b, 'msgpack'));
    expect(readFileSync(a).equals(readFileSync(b))).toBe(true);
  });

  it('plots the last 24 hours of a longer workload and replaces an existing file', async () => {
    const built = buildWorkload({ kind: 'walk', series: 2, points: 4 * 288, intervalMs: 300_000, seed: 1, endMs: END_MS, batchPoints: 1_000 });
    const path = join(dir, 'long.rec');
    await writeWorkloadRecording(built, optionsFor(path, 'json', 2));
    await writeWorkloadRecording(built, optionsFor(path, 'json', 1));
    const { frames } = await readRecordingFile(path);
    expect(frames).toHaveLength(built.plan.batches.length + 1);
    const url = new URL((frames.at(-1) as RecordedExchange).url, 'http://x');
    expect(Number(url.searchParams.get('to')) - Number(url.searchParams.get('from'))).toBe(86_400_000);
  });

  it('refuses a batch whose body passes the body limit, naming --batch-points, and leaves no file', async () => {
    const path = join(dir, 'big.rec');
    const error = await writeWorkloadRecording(build('walk'), { ...optionsFor(path, 'json'), bodyBytesMax: 1_000 }).catch((e: unknown) => e);
    expect(isStrataError(error) && error.code).toBe('CONFIG_INVALID');
    expect((error as Error).message).toMatch(/--batch-points/);
    expect(existsSync(path)).toBe(false);
  });
});
