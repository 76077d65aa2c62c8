// Owns condensing one kind's runs (floors, engine) into the numbers the report prints and the targets judge.
import type { EngineResult } from './engine.js';
import { mergeHistograms, type EncodingHistogram } from './encoding-histogram.js';
import type { FloorResult } from './floors.js';
import { medianOf, spreadOf, type Spread } from './spread.js';
import type { ValueKind } from '../src/workload/standard-workload.js';

const MIB = 1024 * 1024;

/** Every run of one value kind. */
export interface KindRuns {
  readonly kind: ValueKind;
  readonly rowFloor: readonly FloorResult[];
  readonly blobFloor: readonly FloorResult[];
  /** Timed runs, batches pre-built. */
  readonly engine: readonly EngineResult[];
  /** The memory run, batches built per write. */
  readonly engineStreamed: EngineResult;
}

/** Latency of one plot over the timed runs (medians of each run's p50 and p99). */
export interface PlotSummary {
  readonly label: string;
  readonly p50Ms: Spread;
  readonly p99Ms: Spread;
  readonly valuesMin: number;
  readonly valuesMax: number;
  readonly complete: boolean;
}

/** One kind, condensed: rates as spreads over runs, the rest as medians. */
export interface KindSummary {
  readonly kind: ValueKind;
  readonly description: string;
  readonly rowFloorPps: Spread;
  readonly blobFloorPps: Spread;
  readonly enginePps: Spread;
  readonly inclFlushPps: Spread;
  readonly sealPps: Spread;
  /** Points per second of compactStore() after flush (issue 14: compaction rewrites every FULL partition). */
  readonly compactPps: Spread;
  readonly rollupPps: Spread;
  /** False when flush() yielded before sealing everything: then "seal" and "rollup" overlap. */
  readonly sealSplitClean: boolean;
  readonly rolledUpSourcePoints: number | null;
  readonly engineOverBlob: number;
  readonly engineOverRow: number;
  readonly plots: readonly PlotSummary[];
  readonly fullBpp: number;
  readonly fullPayloadBpp: number;
  readonly rollupBpp: number;
  readonly rollupBppByRes: Readonly<Record<string, number>>;
  readonly dirBpp: number;
  readonly rowFloorBpp: number;
  readonly blobFloorBpp: number;
  readonly peakRssMbPrebuilt: number;
  readonly workloadRssMbPrebuilt: number;
  readonly peakRssMbStreamed: number;
  readonly workloadRssMbStreamed: number;
  readonly rowFloorRssMb: number;
  readonly blobFloorRssMb: number;
  readonly readBack: string;
  /** The encodings the rows chose, the timed runs pooled (their counts added up). */
  readonly encodings: EncodingHistogram;
  /** Timed runs pooled into `encodings`. */
  readonly encodingRuns: number;
}

function plotSummaries(engine: readonly EngineResult[]): PlotSummary[] {
  const first = engine[0];
  if (first === undefined) return [];
  return first.plots.map((plot, i) => {
    const runs = engine.map((e) => e.plots[i]).filter((p) => p !== undefined);
    return {
      label: plot.label,
      p50Ms: spreadOf(runs.map((p) => p.latency.p50Ms)),
      p99Ms: spreadOf(runs.map((p) => p.latency.p99Ms)),
      valuesMin: Math.min(...runs.map((p) => p.valuesMin)),
      valuesMax: Math.max(...runs.map((p) => p.valuesMax)),
      complete: runs.every((p) => p.complete),
    };
  });
}

/** Condenses a kind's runs. */
export function summariseKind(runs: KindRuns): KindSummary {
  const { engine } = runs;
  const points = engine[0]?.points ?? NaN;
  const enginePps = spreadOf(engine.map((e) => e.ingestPointsPerSecond));
  const blobFloorPps = spreadOf(runs.blobFloor.map((f) => f.pointsPerSecond));
  const rowFloorPps = spreadOf(runs.rowFloor.map((f) => f.pointsPerSecond));
  const rollupBppByRes: Record<string, number> = {};
  for (const res of ['MIN5', 'MIN20', 'MIN60', 'MIN240', 'MIN1440'] as const) {
    rollupBppByRes[res] = medianOf(engine, (e) => e.bytes.byResolution[res].allocatedBytes) / points;
  }
  const readBacks = [...engine, runs.engineStreamed].map((e) => e.readBack);
  return {
    kind: runs.kind,
    description: engine[0]?.description ?? '',
    rowFloorPps,
    blobFloorPps,
    enginePps,
    inclFlushPps: spreadOf(engine.map((e) => e.inclFlushPointsPerSecond)),
    sealPps: spreadOf(engine.map((e) => e.sealPointsPerSecond)),
    compactPps: spreadOf(engine.map((e) => e.points / e.compactSeconds)),
    rollupPps: spreadOf(engine.map((e) => e.rollupPointsPerSecond)),
    sealSplitClean: engine.every((e) => e.flush.sealedSynchronously),
    rolledUpSourcePoints: engine[0]?.flush.rolledUpSourcePoints ?? null,
    engineOverBlob: enginePps.median / blobFloorPps.median,
    engineOverRow: enginePps.median / rowFloorPps.median,
    plots: plotSummaries(engine),
    fullBpp: medianOf(engine, (e) => e.fullBytesPerPoint),
    fullPayloadBpp: medianOf(engine, (e) => e.fullPayloadBytesPerPoint),
    rollupBpp: medianOf(engine, (e) => e.rollupBytesPerPoint),
    rollupBppByRes,
    dirBpp: medianOf(engine, (e) => e.dirBytesPerPoint),
    rowFloorBpp: medianOf(runs.rowFloor, (f) => f.bytesPerPoint),
    blobFloorBpp: medianOf(runs.blobFloor, (f) => f.bytesPerPoint),
    peakRssMbPrebuilt: medianOf(engine, (e) => e.peakRssBytes) / MIB,
    workloadRssMbPrebuilt: medianOf(engine, (e) => e.workloadRssBytes) / MIB,
    peakRssMbStreamed: runs.engineStreamed.peakRssBytes / MIB,
    workloadRssMbStreamed: runs.engineStreamed.workloadRssBytes / MIB,
    rowFloorRssMb: medianOf(runs.rowFloor, (f) => f.peakRssBytes) / MIB,
    blobFloorRssMb: medianOf(runs.blobFloor, (f) => f.peakRssBytes) / MIB,
    readBack: `${readBacks.reduce((s, r) => s + r.exact, 0)}/${readBacks.reduce((s, r) => s + r.checked, 0)}`,
    encodings: mergeHistograms(engine.map((e) => e.encodings)),
    encodingRuns: engine.length,
  };
}
