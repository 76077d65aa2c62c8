// Owns finalizing UTC days on the ClickHouse backend: once a day can no longer change, its rollups are computed from its raw points with the engine's math and stored on each shard.
import { CLICKHOUSE_FINALIZE_STEP_POINTS } from '../core/limits.js';
import { alignDown, DAY_MS } from '../core/time.js';
import { LAYOUT, ROLLUP_RESOLUTIONS, type RetentionTable } from '../model/resolution.js';
import { bucketsFromSamples } from '../model/rollup-math.js';
import { expiryCutoffMs } from '../retention/policy.js';
import { RowBinaryWriter } from './row-binary.js';
import { decodeSeriesSamples, encodeBuckets, SERIES_SAMPLE_COLUMNS } from './row-codecs.js';
import { POINTS_LOCAL, RAW_PARTITION_WIDTH_MS, rollupLocalTable } from './schema.js';
import type { ShardClient } from './shard-client.js';
import type { ShardSet } from './shard-set.js';
import { sqlString } from './sql-text.js';
import type { WriteVersions } from './write-versions.js';

/** 2^64: the series ids' range, split into equal slices when a day is read in steps. */
const SERIES_ID_SPACE = 1n << 64n;

/**
 * The end of the days that can no longer change at `nowMs`: a day whose end is at or before the
 * oldest timestamp a write accepts (the FULL retention back) takes no more points.
 */
export function closedDaysEnd(nowMs: number, retention: RetentionTable): number {
  return alignDown(expiryCutoffMs(nowMs, retention, 'FULL'), DAY_MS);
}

/** The raw day partitions (day numbers) one shard holds. */
export async function rawDaysOn(shard: ShardClient, database: string): Promise<number[]> {
  const rows = await shard.rows<{ partition: string }>(
    `SELECT DISTINCT partition FROM system.parts WHERE active AND database = ${sqlString(database)} AND table = ${sqlString(POINTS_LOCAL)}`,
  );
  return rows.map((r) => Number(r.partition));
}

/**
 * Finalizes days in order. The watermark (finalizedThroughMs) says every day before it is
 * finalized on every shard; queries read stored buckets before it and compute from raw after, and
 * retention drops a raw day only before it. A day is finalized on every shard before the
 * watermark moves past it, so a crash in between only repeats work (rows replace equal rows).
 */
export class DayFinalizer {
  private watermark: number;

  constructor(
    private readonly shards: ShardSet,
    private readonly database: string,
    private readonly versions: WriteVersions,
    watermark: number,
    /** Points read from one shard in one step (tests make it small to see several steps). */
    private readonly stepPoints = CLICKHOUSE_FINALIZE_STEP_POINTS,
  ) {
    this.watermark = watermark;
  }

  /** Every day before this is finalized on every shard. */
  get finalizedThroughMs(): number {
    return this.watermark;
  }

  /** Takes a newer watermark another process recorded (never moves back). */
  learn(watermarkMs: number): void {
    if (watermarkMs > this.watermark) this.watermark = watermarkMs;
  }

  /** True when some day before `closedEnd` is not finalized yet. */
  due(closedEnd: number): boolean {
    return this.watermark < closedEnd;
  }

  /**
   * Finalizes the first unfinalized day with raw points before `closedEnd` (every day without
   * any is passed over) and moves the watermark past it; false when nothing was due.
   */
  async step(closedEnd: number): Promise<boolean> {
    if (!this.due(closedEnd)) return false;
    const perShard = await Promise.all(this.shards.shards.map((s) => rawDaysOn(s, this.database)));
    const firstDay = Math.floor(this.watermark / RAW_PARTITION_WIDTH_MS);
    const endDay = closedEnd / RAW_PARTITION_WIDTH_MS;
    const days = [...new Set(perShard.flat())].filter((d) => d >= firstDay && d < endDay).sort((a, b) => a - b);
    const day = days[0];
    const through = day === undefined ? closedEnd : (day + 1) * RAW_PARTITION_WIDTH_MS;
    if (day !== undefined) await Promise.all(this.shards.shards.map((shard) => this.finalizeOn(shard, day * RAW_PARTITION_WIDTH_MS)));
    await this.shards.recordFinalized(through, this.versions);
    this.learn(through);
    return true;
  }

  /** Reads a day of one shard in slices of the series id space, and stores every level of each series' buckets. */
  private async finalizeOn(shard: ShardClient, dayStartMs: number): Promise<void> {
    const dayEndMs = dayStartMs + DAY_MS;
    const inDay = `ts >= ${dayStartMs} AND ts < ${dayEndMs}`;
    const [counted] = await shard.rows<{ n: number | string }>(`SELECT count() AS n FROM ${POINTS_LOCAL} WHERE ${inDay}`);
    const rows = Number(counted?.n ?? 0);
    if (rows === 0) return;
    const slices = BigInt(Math.max(1, Math.ceil(rows / this.stepPoints)));
    for (let k = 0n; k < slices; k++) {
      const lo = (k * SERIES_ID_SPACE) / slices;
      const hi = ((k + 1n) * SERIES_ID_SPACE) / slices;
      const inSlice = k + 1n === slices ? `series >= ${lo}` : `series >= ${lo} AND series < ${hi}`;
      const body = await shard.binary(`SELECT ${SERIES_SAMPLE_COLUMNS} FROM ${POINTS_LOCAL} FINAL WHERE ${inDay} AND ${inSlice} ORDER BY series, ts`);
      await this.storeBuckets(shard, body);
    }
  }

  private async storeBuckets(shard: ShardClient, body: Buffer): Promise<void> {
    const writers = ROLLUP_RESOLUTIONS.map(() => new RowBinaryWriter());
    for (const { idBytes, samples } of decodeSeriesSamples(body)) {
      ROLLUP_RESOLUTIONS.forEach((res, i) => encodeBuckets(writers[i] as RowBinaryWriter, idBytes, bucketsFromSamples(samples, LAYOUT[res].bucketWidthMs)));
    }
    for (const [i, res] of ROLLUP_RESOLUTIONS.entries()) {
      const rows = (writers[i] as RowBinaryWriter).finish();
      if (rows.length > 0) await shard.insertRowBinary(rollupLocalTable(res), rows);
    }
  }
}
