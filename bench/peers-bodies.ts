// Owns the request bodies of the peer bench: the workload's 10,000-point batches encoded per system before any clock starts.
import { influxLines, vmImportLines, type PeerPoint } from '../src/replay/peer-formats.js';
import { BATCH_POINTS, BENCH_TENANT, metricNames, type Workload } from '../src/workload/standard-workload.js';
import { encodeBatches } from './http-ingest.js';
import type { PeerSystemName } from './peers-system.js';

/** The encoded batches of one system, in batch (time-major) order. */
export interface EncodedBodies {
  readonly bodies: readonly Buffer[];
  readonly bytes: number;
  /** Seconds spent encoding (outside every clock). */
  readonly encodeSeconds: number;
}

/** Batch `start..end` of the workload as the peers' points (tenant as a tag, metric as the name). */
function peerPoints(wl: Workload, names: readonly string[], start: number, end: number): PeerPoint[] {
  const points = new Array<PeerPoint>(end - start);
  for (let i = start; i < end; i++) {
    points[i - start] = { tenant: BENCH_TENANT, metric: names[wl.seriesIndex[i] as number] as string, timestampMs: wl.timestampsMs[i] as number, value: wl.values[i] as number };
  }
  return points;
}

/** The peers' bodies through the converter `strata replay --convert` uses, so they receive exactly its output. */
function peerBodies(wl: Workload, encode: (points: readonly PeerPoint[]) => string): Buffer[] {
  const names = metricNames(wl.spec.series);
  const bodies: Buffer[] = [];
  for (let start = 0; start < wl.length; start += BATCH_POINTS) {
    bodies.push(Buffer.from(encode(peerPoints(wl, names, start, Math.min(start + BATCH_POINTS, wl.length)))));
  }
  return bodies;
}

/** Encodes the workload for `system`: Strata's ingest bodies (as bench/http-ingest.ts) or the peers' import formats. */
export function encodeFor(system: PeerSystemName, wl: Workload): EncodedBodies {
  const started = performance.now();
  let bodies: Buffer[];
  if (system === 'strata-msgpack') bodies = encodeBatches(wl, BATCH_POINTS, 'msgpack');
  else if (system === 'strata-json') bodies = encodeBatches(wl, BATCH_POINTS, 'json');
  else if (system === 'vm') bodies = peerBodies(wl, vmImportLines);
  else bodies = peerBodies(wl, influxLines);
  return { bodies, bytes: bodies.reduce((sum, b) => sum + b.length, 0), encodeSeconds: (performance.now() - started) / 1000 };
}
