// Owns what every system under the peer bench offers the measurement: its ingest route, count, plot and raw-read queries, settling and bytes.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchClient } from './http-client.js';
import { allocatedBytes } from './disk-usage.js';
import type { Workload } from '../src/workload/standard-workload.js';

/** The systems the peer bench measures: Strata over HTTP with each body format, VictoriaMetrics, InfluxDB 1.x. */
export type PeerSystemName = 'strata-msgpack' | 'strata-json' | 'vm' | 'influx';

/** Every system, in the order a run measures them (Strata first: its workload ends closest to "now"). */
export const PEER_SYSTEMS: readonly PeerSystemName[] = ['strata-msgpack', 'strata-json', 'vm', 'influx'];

/** How many points a count query saw, against how many were written. */
export interface PointCount {
  readonly counted: number;
  readonly expected: number;
  /** What was counted: every point, or a sample of series (Strata). */
  readonly scope: string;
}

/** Bytes on disk after settling. */
export interface PeerBytes {
  /** du --block-size=1 of the whole data directory. */
  readonly dirAllocatedBytes: number;
  /** Sum of st_size: sparse files (Influx's _series segments) show here. */
  readonly dirApparentBytes: number;
  /** Strata only: the FULL-resolution partition files alone. */
  readonly fullAllocatedBytes?: number;
  /** Anything else worth keeping (Strata's tiers, WAL, the state SIGTERM left). */
  readonly details?: Record<string, unknown>;
}

/** What settling did before the queries. */
export interface SettleResult {
  readonly seconds: number;
  readonly note: string;
}

/** A started system with a fresh data directory, ready for the measurement. */
export interface RunningSystem {
  readonly name: PeerSystemName;
  readonly pid: number;
  readonly dataDir: string;
  /** Keep-alive client with enough sockets for the ingest clients. */
  readonly client: BenchClient;
  /** The exact command that started the server, and its config file text when it has one. */
  readonly command: string;
  readonly config?: string;
  readonly ingestPath: string;
  readonly contentType: string;
  /** The status every ingest POST must answer. */
  readonly ingestOkStatus: number;
  /** True when an acknowledged write is already readable (Strata, InfluxDB): the clock stops at the last ack when the first count after it is complete. */
  readonly readableOnAck: boolean;
  /** Runs once after the last ack, before the first count poll (VictoriaMetrics' force_flush). */
  beforeCount(): Promise<void>;
  /** Counts points (every point for the peers; a sample of series for Strata). */
  countPoints(wl: Workload): Promise<PointCount>;
  /** Brings the server to the state its queries are measured in; `lastAckMs` is performance.now() of the last ack. */
  settle(lastAckMs: number): Promise<SettleResult>;
  /** One 288-bucket plot (mean, min, max per 5 min) of series `s` over [fromMs, toMs) in one request; resolves with the buckets returned. */
  plot(s: number, fromMs: number, toMs: number): Promise<number>;
  /** The raw points of series `s` in [fromMs, toMs), by timestamp. */
  rawPoints(s: number, fromMs: number, toMs: number): Promise<Map<number, number>>;
  /** Measures the bytes on disk in the settled state and stops the server (Strata: stops first, as its seal happens on the way). */
  finish(): Promise<PeerBytes>;
  /** Stops the server if it still runs and deletes its temporary directory; safe to call twice. */
  dispose(): Promise<void>;
}

/** Options of waitDiskStable. */
export interface DiskStableOptions {
  /** Pause between measurements. */
  readonly pollMs: number;
  /** du must not change for this long. */
  readonly stableMs: number;
  /** Never stop before this long has passed since `sinceMs`. */
  readonly minMs: number;
  /** Give up after this long since `sinceMs` (the note then says so). */
  readonly maxMs: number;
  /** performance.now() the durations count from. */
  readonly sinceMs: number;
  /** Runs before every measurement (VictoriaMetrics' force_flush). */
  readonly tick?: () => Promise<void>;
}

/** Waits until du of `dir` stays the same for `stableMs` (and `minMs` has passed); returns how long that took. */
export async function waitDiskStable(dir: string, options: DiskStableOptions): Promise<SettleResult> {
  let last = -1;
  let stableSinceMs = performance.now();
  for (;;) {
    await options.tick?.();
    const bytes = allocatedBytes(dir);
    const now = performance.now();
    if (bytes !== last) {
      last = bytes;
      stableSinceMs = now;
    }
    const elapsedMs = now - options.sinceMs;
    if (elapsedMs >= options.minMs && now - stableSinceMs >= options.stableMs) {
      return { seconds: elapsedMs / 1000, note: `du stable at ${bytes} B for ${options.stableMs / 1000} s` };
    }
    if (elapsedMs >= options.maxMs) return { seconds: elapsedMs / 1000, note: `du still changing after ${options.maxMs / 1000} s (last ${bytes} B)` };
    await sleep(options.pollMs);
  }
}

/** GETs a path and parses its JSON answer, failing on any status but 200. */
export async function getJson<T>(client: BenchClient, path: string): Promise<T> {
  const { status, text } = await client.get(path);
  if (status !== 200) throw new Error(`GET ${path}: HTTP ${status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}
