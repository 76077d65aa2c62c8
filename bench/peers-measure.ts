// Owns one measured run of one system on one value kind: ingest until readable, settling, plot latency, read-back, peak RSS, bytes per point.
import { setTimeout as sleep } from 'node:timers/promises';
import { mulberry32, uniformInt } from '../src/workload/prng.js';
import { generateWorkload, standardSpec, type ValueKind, type Workload } from '../src/workload/standard-workload.js';
import { TIMED_QUERIES, timeQueries, WARMUP_QUERIES, type LatencySummary } from './latency.js';
import { encodeFor } from './peers-bodies.js';
import { startInflux } from './peers-influx.js';
import { peakRssBytes } from './peers-process.js';
import { startStrata } from './peers-strata.js';
import { startVm } from './peers-vm.js';
import type { PeerBytes, PeerSystemName, PointCount, RunningSystem, SettleResult } from './peers-system.js';

/** Concurrent ingest clients, each on its own keep-alive connection (the reference posted 2 at a time). */
export const INGEST_CLIENTS = 2;
/** Pause between count polls while points are not all readable (the reference polled every 200 ms). */
const COUNT_POLL_MS = 200;
/** Longest wait for every point to become readable; past it the run is recorded as incomplete. */
const READABLE_TIMEOUT_MS = 120_000;
/** Seed of the series the plots pick (as bench/http-ingest.ts). */
const QUERY_SEED = 7;
/** Seed and number of the series read back (as bench/engine-queries.ts and peer-results (g)). */
const READ_BACK_SEED = 9;
const READ_BACK_SERIES = 9;
/** Raw reads ask 12 h at a time: Strata answers at most 1,440 points per query. */
const READ_BACK_SPAN_MS = 12 * 3_600_000;
const DAY_MS = 86_400_000;
/** Ingest progress is reported every this many batches. */
const PROGRESS_EVERY_BATCHES = 8;
/** Plot progress is reported every this many queries. */
const PROGRESS_EVERY_QUERIES = 20;

/** Progress callback: `done` of `total` units of `phase`. */
export type PhaseListener = (phase: string, done: number, total: number) => void;

/** Raw points of the read-back series compared bit for bit with what was sent. */
export interface ReadBackResult {
  readonly checked: number;
  readonly exact: number;
  readonly missing: number;
  readonly maxRelativeError: number;
}

/** Everything one run of one system measured. */
export interface PeerRun {
  readonly system: PeerSystemName;
  readonly kind: ValueKind;
  readonly run: number;
  /** How the workload's values were made. */
  readonly description: string;
  readonly t0Ms: number;
  readonly dataEndMs: number;
  readonly points: number;
  readonly batches: number;
  readonly bodyBytes: number;
  readonly encodeSeconds: number;
  /** From the first send to the last acknowledgement. */
  readonly ackSeconds: number;
  /** From the first send until every point was readable (= ackSeconds when readable on ack). */
  readonly readableSeconds: number;
  readonly pointsPerSecond: number;
  readonly count: PointCount & { readonly complete: boolean; readonly polls: number; readonly readableOnAck: boolean };
  readonly settle: SettleResult;
  readonly plot: LatencySummary & { readonly valuesMin: number; readonly valuesMax: number };
  readonly readBack: ReadBackResult;
  readonly peakRssBytes: number;
  readonly bytes: PeerBytes;
  readonly bytesPerPoint: number;
  /** Strata only: the FULL partition files / points. */
  readonly fullBytesPerPoint: number | null;
  readonly command: string;
  readonly config?: string;
}

function start(system: PeerSystemName): Promise<RunningSystem> {
  if (system === 'strata-msgpack') return startStrata('msgpack', INGEST_CLIENTS);
  if (system === 'strata-json') return startStrata('json', INGEST_CLIENTS);
  return system === 'vm' ? startVm(INGEST_CLIENTS) : startInflux(INGEST_CLIENTS);
}

/** Posts every body in batch order with INGEST_CLIENTS requests in flight. */
async function postAll(sys: RunningSystem, bodies: readonly Buffer[], phase: PhaseListener): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const index = next++;
      const status = await sys.client.post(sys.ingestPath, bodies[index] as Buffer, sys.contentType);
      if (status !== sys.ingestOkStatus) throw new Error(`${sys.name} batch ${index}: HTTP ${status}`);
      if (index % PROGRESS_EVERY_BATCHES === 0) phase('ingest', index, bodies.length);
    }
  };
  await Promise.all(Array.from({ length: INGEST_CLIENTS }, worker));
  phase('ingest', bodies.length, bodies.length);
}

/** How readability was established. */
interface Readable {
  readonly count: PointCount;
  readonly polls: number;
  /** performance.now() from which every point was readable. */
  readonly readyAtMs: number;
}

/**
 * Polls the count until every point is there (or READABLE_TIMEOUT_MS passes). A system readable
 * on ack (Strata; InfluxDB answers a write once the points are in its WAL and cache) whose first
 * count after the ack is complete was readable at the ack, so the count's own time stays out of
 * the clock; otherwise (VictoriaMetrics, or a first count that falls short) the clock runs until
 * the count is complete.
 */
async function untilReadable(sys: RunningSystem, wl: Workload, ackAtMs: number): Promise<Readable> {
  await sys.beforeCount();
  let polls = 0;
  for (;;) {
    const count = await sys.countPoints(wl);
    const now = performance.now();
    polls++;
    const complete = count.counted >= count.expected;
    if (complete && sys.readableOnAck && polls === 1) return { count, polls, readyAtMs: ackAtMs };
    if (complete || now - ackAtMs > READABLE_TIMEOUT_MS) return { count, polls, readyAtMs: now };
    await sleep(COUNT_POLL_MS);
  }
}

async function measurePlot(sys: RunningSystem, wl: Workload, phase: PhaseListener): Promise<PeerRun['plot']> {
  const pick = mulberry32(QUERY_SEED);
  const from = wl.dataEndMs - DAY_MS;
  let done = 0;
  phase('plot', 0, WARMUP_QUERIES + TIMED_QUERIES);
  const { summary, results } = await timeQueries(async () => {
    const values = await sys.plot(uniformInt(pick, wl.spec.series), from, wl.dataEndMs);
    if (++done % PROGRESS_EVERY_QUERIES === 0) phase('plot', done, WARMUP_QUERIES + TIMED_QUERIES);
    return values;
  });
  return { ...summary, valuesMin: Math.min(...results), valuesMax: Math.max(...results) };
}

async function readBack(sys: RunningSystem, wl: Workload): Promise<ReadBackResult> {
  const pick = mulberry32(READ_BACK_SEED);
  const { series, intervalMs } = wl.spec;
  let checked = 0;
  let exact = 0;
  let missing = 0;
  let maxRelativeError = 0;
  for (let n = 0; n < READ_BACK_SERIES; n++) {
    const s = uniformInt(pick, series);
    for (let from = wl.t0Ms; from < wl.dataEndMs; from += READ_BACK_SPAN_MS) {
      const to = Math.min(from + READ_BACK_SPAN_MS, wl.dataEndMs);
      const got = await sys.rawPoints(s, from, to);
      for (let t = from; t < to; t += intervalMs) {
        const sent = wl.values[((t - wl.t0Ms) / intervalMs) * series + s] as number;
        const back = got.get(t);
        checked++;
        if (back === undefined) missing++;
        else if (Object.is(back, sent)) exact++;
        else maxRelativeError = Math.max(maxRelativeError, Math.abs(back - sent) / Math.max(Math.abs(sent), Number.MIN_VALUE));
      }
    }
  }
  return { checked, exact, missing, maxRelativeError };
}

/** Generates the kind's workload ending 2–7 min before now, encodes it for the system, starts the system and measures it. */
export async function measureRun(system: PeerSystemName, kind: ValueKind, run: number, phase: PhaseListener): Promise<PeerRun> {
  phase('encode', 0, 1);
  const wl = generateWorkload(standardSpec(kind, Date.now()));
  const encoded = encodeFor(system, wl);
  phase('start', 0, 1);
  const sys = await start(system);
  try {
    const started = performance.now();
    await postAll(sys, encoded.bodies, phase);
    const ackAtMs = performance.now();
    phase('until readable', 0, 1);
    const { count, polls, readyAtMs } = await untilReadable(sys, wl, ackAtMs);
    phase('settle', 0, 1);
    const settle = await sys.settle(ackAtMs);
    const plot = await measurePlot(sys, wl, phase);
    phase('read-back', 0, 1);
    const back = await readBack(sys, wl);
    const rss = peakRssBytes(sys.pid);
    phase('bytes', 0, 1);
    const bytes = await sys.finish();
    const readableSeconds = (readyAtMs - started) / 1000;
    return {
      system,
      kind,
      run,
      description: wl.description,
      t0Ms: wl.t0Ms,
      dataEndMs: wl.dataEndMs,
      points: wl.length,
      batches: encoded.bodies.length,
      bodyBytes: encoded.bytes,
      encodeSeconds: encoded.encodeSeconds,
      ackSeconds: (ackAtMs - started) / 1000,
      readableSeconds,
      pointsPerSecond: wl.length / readableSeconds,
      count: { ...count, complete: count.counted === count.expected, polls, readableOnAck: readyAtMs === ackAtMs },
      settle,
      plot,
      readBack: back,
      peakRssBytes: rss,
      bytes,
      bytesPerPoint: bytes.dirAllocatedBytes / wl.length,
      fullBytesPerPoint: bytes.fullAllocatedBytes === undefined ? null : bytes.fullAllocatedBytes / wl.length,
      command: sys.command,
      ...(sys.config !== undefined ? { config: sys.config } : {}),
    };
  } finally {
    await sys.dispose();
  }
}
