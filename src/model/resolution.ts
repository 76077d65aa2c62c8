// Owns the resolutions: their names, bucket widths, order, and the on-disk layout windows of each.
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../core/time.js';

/** The six resolutions, finest first. */
export const RESOLUTIONS = ['FULL', 'MIN5', 'MIN20', 'MIN60', 'MIN240', 'MIN1440'] as const;

/** A resolution name. */
export type Resolution = (typeof RESOLUTIONS)[number];

/** The rollup resolutions (every resolution but FULL), finest first. */
export const ROLLUP_RESOLUTIONS = ['MIN5', 'MIN20', 'MIN60', 'MIN240', 'MIN1440'] as const;

/** A rollup resolution name. */
export type RollupResolution = (typeof ROLLUP_RESOLUTIONS)[number];

/** FULL is assumed to hold one point every 30 s when counting expected points (Blueflood). */
export const FULL_ASSUMED_INTERVAL_MS = 30_000;

interface ResolutionLayout {
  /** Width of one bucket; for FULL the assumed collection interval used by the planner. */
  readonly bucketWidthMs: number;
  /** Width of one chunk: one stored blob holds one series over this window. */
  readonly chunkWidthMs: number;
  /** Width of one partition file: retention drops whole files. */
  readonly partitionWidthMs: number;
}

/**
 * Layout per resolution. Every chunk width is a multiple of the next coarser bucket width, every
 * coarser chunk width a multiple of the finer one, and every partition width a multiple of the
 * chunk width: a bucket never straddles chunks or files, and a rollup source chunk always lies in
 * exactly one target chunk. Rollup chunks hold 288 to 336 buckets; FULL chunks 2 h (240 points at
 * 30 s), the block length Gorilla and Prometheus use.
 */
export const LAYOUT: Readonly<Record<Resolution, ResolutionLayout>> = {
  FULL: { bucketWidthMs: FULL_ASSUMED_INTERVAL_MS, chunkWidthMs: 2 * HOUR_MS, partitionWidthMs: 6 * HOUR_MS },
  MIN5: { bucketWidthMs: 5 * MINUTE_MS, chunkWidthMs: DAY_MS, partitionWidthMs: DAY_MS },
  MIN20: { bucketWidthMs: 20 * MINUTE_MS, chunkWidthMs: 4 * DAY_MS, partitionWidthMs: 4 * DAY_MS },
  MIN60: { bucketWidthMs: 60 * MINUTE_MS, chunkWidthMs: 12 * DAY_MS, partitionWidthMs: 12 * DAY_MS },
  MIN240: { bucketWidthMs: 240 * MINUTE_MS, chunkWidthMs: 48 * DAY_MS, partitionWidthMs: 48 * DAY_MS },
  MIN1440: { bucketWidthMs: 1440 * MINUTE_MS, chunkWidthMs: 336 * DAY_MS, partitionWidthMs: 336 * DAY_MS },
};

/** Default retention per resolution (spec section 8). */
export const DEFAULT_RETENTION_MS: Readonly<Record<Resolution, number>> = {
  FULL: 2 * DAY_MS,
  MIN5: 10 * DAY_MS,
  MIN20: 20 * DAY_MS,
  MIN60: 155 * DAY_MS,
  MIN240: 300 * DAY_MS,
  MIN1440: 5 * 365 * DAY_MS,
};

/** A retention table: how long each resolution's data is served. */
export type RetentionTable = Readonly<Record<Resolution, number>>;

/** True when `name` is a resolution name (case-sensitive, as the API spells them). */
export function isResolution(name: unknown): name is Resolution {
  return typeof name === 'string' && (RESOLUTIONS as readonly string[]).includes(name);
}

/** Index of a resolution in finest-first order. */
export function resolutionIndex(resolution: Resolution): number {
  return RESOLUTIONS.indexOf(resolution);
}

/** The next finer resolution of a rollup resolution (its rollup source). */
export function finerOf(resolution: RollupResolution): Resolution {
  return RESOLUTIONS[resolutionIndex(resolution) - 1] as Resolution;
}

/** The next coarser resolution, or undefined for MIN1440. */
export function coarserOf(resolution: Resolution): RollupResolution | undefined {
  return RESOLUTIONS[resolutionIndex(resolution) + 1] as RollupResolution | undefined;
}

/** Bucket width of a resolution (the assumed interval for FULL). */
export function bucketWidthMs(resolution: Resolution): number {
  return LAYOUT[resolution].bucketWidthMs;
}
