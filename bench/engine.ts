// Owns measuring the engine on one value kind in its own process: ingest, flush (seal and rollups), plot latency, bytes, the encodings chosen, peak RSS.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compactStore, openStore, type Point, type Store } from '../src/index.js';
import { emitResult, intArg, reportProgress } from './child-io.js';
import { measurePlots, readBack, type PlotMeasurement, type ReadBack } from './engine-queries.js';
import type { EncodingHistogram } from './encoding-histogram.js';
import { measureEncodings, measureStoreBytes, type StoreBytes } from './store-bytes.js';
import { batchAt, batchCount, generateWorkload, metricNames, standardSpec, toBatches, VALUE_KINDS, type ValueKind, type Workload } from '../src/workload/standard-workload.js';

/** Rollup worker threads, as on a 2-core production machine. */
const ENGINE_WORKERS = 1;
/** Progress is reported every this many batches (a message per batch would cost more than it tells). */
const PROGRESS_EVERY_BATCHES = 16;

/**
 * How the batches exist: 'prebuilt' builds every Point object before the clock starts (the timed
 * runs, as the peers pre-built their input); 'streamed' builds each batch just before its write, so
 * the process holds only the workload's columns and peak RSS shows the engine rather than 2.88 M
 * pre-built objects (its ingest rate includes building the objects and is not reported as a result).
 */
export type BatchMode = 'prebuilt' | 'streamed';

/** How flush() split into sealing and rolling up. */
export interface FlushMeasurement {
  /** Seconds from flush() until the head was empty: sealing every head window (in turns). */
  readonly sealSeconds: number;
  /** Seconds from there until flush() resolved: rollups through all five levels (plus catalog commits). */
  readonly rollupSeconds: number;
  /** True when the head was empty before any rollup of the flush ran, i.e. the split above is real. */
  readonly sealedSynchronously: boolean;
  /** Source points/buckets the rollup tasks reported, when the store exposes the count (not public API). */
  readonly rolledUpSourcePoints: number | null;
}

/** Everything measured on one kind. */
export interface EngineResult {
  readonly kind: ValueKind;
  readonly mode: BatchMode;
  readonly description: string;
  readonly series: number;
  readonly points: number;
  readonly t0Ms: number;
  readonly dataEndMs: number;
  readonly batches: number;
  readonly ingestSeconds: number;
  readonly ingestPointsPerSecond: number;
  readonly inclFlushSeconds: number;
  readonly inclFlushPointsPerSecond: number;
  readonly flush: FlushMeasurement;
  /** Seconds compactStore() took after flush (every FULL partition rewritten), and how many partitions it compacted. */
  readonly compactSeconds: number;
  readonly compactedPartitions: number;
  /** FULL chunk payload bytes before and after compaction (sums over the compacted partitions). */
  readonly compactedBytesBefore: number;
  readonly compactedBytesAfter: number;
  readonly sealPointsPerSecond: number;
  readonly rollupPointsPerSecond: number;
  readonly plots: PlotMeasurement[];
  readonly readBack: ReadBack;
  readonly closeSeconds: number;
  readonly bytes: StoreBytes;
  readonly fullBytesPerPoint: number;
  readonly fullPayloadBytesPerPoint: number;
  readonly rollupBytesPerPoint: number;
  readonly dirBytesPerPoint: number;
  /** RSS after the workload (and, prebuilt, its Point batches) was built, before the store opened. */
  readonly workloadRssBytes: number;
  /** Peak RSS up to the byte accounting (taken before the encodings are counted, which decodes every row). */
  readonly peakRssBytes: number;
  /** Which encodings the rows chose after close(), FULL and rollups (issue 14). */
  readonly encodings: EncodingHistogram;
}

/** A source of batches: pre-built, or built on demand from the columns. */
interface BatchSource {
  readonly count: number;
  at(index: number): readonly Point[];
}

function batchSource(wl: Workload, mode: BatchMode): BatchSource {
  if (mode === 'prebuilt') {
    const batches = toBatches(wl);
    return { count: batches.length, at: (b) => batches[b] as Point[] };
  }
  const names = metricNames(wl.spec.series);
  return { count: batchCount(wl), at: (b) => batchAt(wl, b, names) };
}

async function ingest(store: Store, source: BatchSource): Promise<number> {
  let accepted = 0;
  for (let b = 0; b < source.count; b++) {
    const result = await store.write(source.at(b));
    accepted += result.accepted;
    if (result.rejected.length > 0) throw new Error(`batch ${b}: ${result.rejected.length} points rejected, first: ${result.rejected[0]?.message}`);
    if (b % PROGRESS_EVERY_BATCHES === 0) reportProgress('engine ingest', b, source.count);
  }
  reportProgress('engine ingest', source.count, source.count);
  return accepted;
}

async function timedFlush(store: Store): Promise<FlushMeasurement> {
  const started = performance.now();
  // flush() seals in turns that yield the event loop, then waits for the rollups it starts only
  // after the last seal: sealing is done once the head is empty (a turn away at most).
  const pending = store.flush();
  while (store.stats().headPoints > 0) await new Promise((resolve) => setImmediate(resolve));
  const sealedAt = performance.now();
  const sealedSynchronously = store.stats().headPoints === 0;
  await pending;
  const done = performance.now();
  return { sealSeconds: (sealedAt - started) / 1000, rollupSeconds: (done - sealedAt) / 1000, sealedSynchronously, rolledUpSourcePoints: store.stats().rolledUpSources };
}

/** Runs the whole engine measurement for one kind on a fresh temp data dir (call in its own process). */
export async function measureEngine(kind: ValueKind, endMs: number, mode: BatchMode): Promise<EngineResult> {
  reportProgress('generate workload', 0, 1);
  const wl = generateWorkload(standardSpec(kind, endMs));
  // Released after ingest, so flush and queries do not run beside 2.88 M dead Point objects an embedder would not keep.
  let batches: BatchSource | undefined = batchSource(wl, mode);
  const batchTotal = batches.count;
  reportProgress('generate workload', 1, 1);
  const workloadRssBytes = process.memoryUsage().rss;
  const dir = mkdtempSync(join(tmpdir(), `strata-bench-${kind}-`));
  try {
    const store = await openStore({ dir, workers: ENGINE_WORKERS });
    const started = performance.now();
    const accepted = await ingest(store, batches);
    const ingestSeconds = (performance.now() - started) / 1000;
    batches = undefined;
    if (accepted !== wl.length) throw new Error(`accepted ${accepted} of ${wl.length} points`);
    reportProgress('engine flush', 0, 1);
    const flush = await timedFlush(store);
    const inclFlushSeconds = (performance.now() - started) / 1000;
    reportProgress('engine flush', 1, 1);
    // Compaction (issue 14) as the background would do it once the partitions are quiet; timed on its own.
    reportProgress('engine compaction', 0, 1);
    const compactStarted = performance.now();
    const compactions = await compactStore(store);
    const compactSeconds = (performance.now() - compactStarted) / 1000;
    reportProgress('engine compaction', 1, 1);
    reportProgress('engine queries', 0, 1);
    const plots = await measurePlots(store, wl);
    const checked = await readBack(store, wl);
    reportProgress('engine queries', 1, 1);
    const closeStarted = performance.now();
    await store.close();
    const closeSeconds = (performance.now() - closeStarted) / 1000;
    const bytes = measureStoreBytes(dir);
    const peakRssBytes = process.resourceUsage().maxRSS * 1024;
    reportProgress('engine encodings', 0, 1);
    const encodings = measureEncodings(dir);
    reportProgress('engine encodings', 1, 1);
    const n = wl.length;
    return {
      kind,
      mode,
      description: wl.description,
      series: wl.spec.series,
      points: n,
      t0Ms: wl.t0Ms,
      dataEndMs: wl.dataEndMs,
      batches: batchTotal,
      ingestSeconds,
      ingestPointsPerSecond: n / ingestSeconds,
      inclFlushSeconds,
      inclFlushPointsPerSecond: n / inclFlushSeconds,
      flush,
      compactSeconds,
      compactedPartitions: compactions.length,
      compactedBytesBefore: compactions.reduce((sum, c) => sum + c.bytesBefore, 0),
      compactedBytesAfter: compactions.reduce((sum, c) => sum + c.bytesAfter, 0),
      sealPointsPerSecond: n / flush.sealSeconds,
      rollupPointsPerSecond: n / flush.rollupSeconds,
      plots,
      readBack: checked,
      closeSeconds,
      bytes,
      fullBytesPerPoint: bytes.fullAllocatedBytes / n,
      fullPayloadBytesPerPoint: bytes.byResolution.FULL.payloadBytes / n,
      rollupBytesPerPoint: bytes.rollupAllocatedBytes / n,
      dirBytesPerPoint: bytes.dirAllocatedBytes / n,
      workloadRssBytes,
      peakRssBytes,
      encodings,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const kind = process.argv[2] as ValueKind;
  const mode = (process.argv[4] ?? 'prebuilt') as BatchMode;
  if (!VALUE_KINDS.includes(kind) || (mode !== 'prebuilt' && mode !== 'streamed')) {
    throw new Error('usage: node dist/bench/engine.js walk|rounded|nab END_MS [prebuilt|streamed]');
  }
  emitResult(await measureEngine(kind, intArg(1, 'END_MS'), mode));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
