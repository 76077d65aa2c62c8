// Owns finalizing UTC days on the ClickHouse backend: once a day can no longer change, its rollups are computed from its raw points with the engine's math and stored on each shard.
import { CLICKHOUSE_FINALIZE_GRACE_MS, CLICKHOUSE_FINALIZE_STEP_POINTS, CLICKHOUSE_ROLLUP_INSERT_BYTES } from '../core/limits.js';
import { alignDown, DAY_MS } from '../core/time.js';
import { LAYOUT, ROLLUP_RESOLUTIONS, type RetentionTable } from '../model/resolution.js';
import { bucketsFromSamples } from '../model/rollup-math.js';
import { expiryCutoffMs } from '../retention/policy.js';
import { RowBinaryWriter } from './row-binary.js';
import { concatSamples, decodeSeriesSamples, encodeBuckets, SERIES_SAMPLE_COLUMNS, type SeriesSamples } from './row-codecs.js';
import { POINTS_LOCAL, RAW_PARTITION_WIDTH_MS, rollupLocalTable } from './schema.js';
import type { ShardClient } from './shard-client.js';
import { onEveryShard } from './shard-fanout.js';
import type { ShardSet } from './shard-set.js';
import { sqlString } from './sql-text.js';
import type { WriteVersions } from './write-versions.js';


/** One RowBinary buffer of rollup rows per rollup resolution, in ROLLUP_RESOLUTIONS order. */
type RollupBuffer = RowBinaryWriter[];

/** 2^64: the series ids' range, cut into equal slices when a day is read. */
const SERIES_ID_SPACE = 1n << 64n;

/**
 * The end of the days that can no longer change at `nowMs`: a day whose end is at or before the
 * oldest timestamp a write accepts (the FULL retention back) takes no more points, and
 * CLICKHOUSE_FINALIZE_GRACE_MS later no write validated before that can still be in flight.
 */
export function closedDaysEnd(nowMs: number, retention: RetentionTable): number {
  return alignDown(expiryCutoffMs(nowMs, retention, 'FULL') - CLICKHOUSE_FINALIZE_GRACE_MS, DAY_MS);
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
    // Another process may have finalized (and dropped) days meanwhile.
    this.learn(await this.shards.finalizedThrough());
    if (!this.due(closedEnd)) return false;
    const perShard = await onEveryShard(this.shards.shards, (s) => rawDaysOn(s, this.database));
    const firstDay = Math.floor(this.watermark / RAW_PARTITION_WIDTH_MS);
    const endDay = closedEnd / RAW_PARTITION_WIDTH_MS;
    const days = [...new Set(perShard.flat())].filter((d) => d >= firstDay && d < endDay).sort((a, b) => a - b);
    const day = days[0];
    const through = day === undefined ? closedEnd : (day + 1) * RAW_PARTITION_WIDTH_MS;
    if (day !== undefined) await onEveryShard(this.shards.shards, (shard) => this.finalizeOn(shard, day * RAW_PARTITION_WIDTH_MS));
    await this.shards.recordFinalized(through, this.versions);
    this.learn(through);
    return true;
  }

  /**
   * Reads a day of one shard and stores every level of each series' buckets. The day is cut into
   * slices of the series id space of about stepPoints rows each (so each read touches only its
   * slice: 18.16 cannot read in key order, and paging one keyset over the whole day read the rest
   * of the day again for every page), and each slice is read in pages of at most stepPoints rows
   * from a (series, ts) keyset, so a series denser than a page spans pages (joined before its
   * buckets are computed), no answer outgrows CLICKHOUSE_RESPONSE_BYTES_MAX and one dense series
   * cannot stop the day. The event loop gets a turn between pages.
   */
  private async finalizeOn(shard: ShardClient, dayStartMs: number): Promise<void> {
    const inDay = `ts >= ${dayStartMs} AND ts < ${dayStartMs + DAY_MS}`;
    const [counted] = await shard.rows<{ n: number | string }>(`SELECT count() AS n FROM ${POINTS_LOCAL} WHERE ${inDay}`);
    const rows = Number(counted?.n ?? 0);
    if (rows === 0) return;
    const slices = BigInt(Math.max(1, Math.ceil(rows / this.stepPoints)));
    const out: RollupBuffer = ROLLUP_RESOLUTIONS.map(() => new RowBinaryWriter());
    for (let k = 0n; k < slices; k++) {
      const lo = (k * SERIES_ID_SPACE) / slices;
      const hi = k + 1n === slices ? undefined : ((k + 1n) * SERIES_ID_SPACE) / slices;
      await this.finalizeSlice(shard, inDay, lo, hi, out);
    }
    await this.storeBuckets(shard, [], out, true);
  }

  /** One slice [lo, hi) of the series ids of a day, in keyset pages. */
  private async finalizeSlice(shard: ShardClient, inDay: string, lo: bigint, hi: bigint | undefined, out: RollupBuffer): Promise<void> {
    const below = hi === undefined ? '' : ` AND series < ${hi}`;
    let keyset = ` AND series >= ${lo}${below}`;
    let carried: SeriesSamples[] = [];
    for (;;) {
      const body = await shard.binary(`SELECT ${SERIES_SAMPLE_COLUMNS} FROM ${POINTS_LOCAL} FINAL WHERE ${inDay}${keyset} ORDER BY series, ts LIMIT ${this.stepPoints}`);
      const page = decodeSeriesSamples(body);
      const rows = page.reduce((n, s) => n + s.samples.length + (s.samples.strings?.length ?? 0), 0);
      const first = page[0];
      if (first !== undefined && carried.length > 0 && !first.idBytes.equals((carried[0] as SeriesSamples).idBytes)) {
        await this.storeBuckets(shard, [joined(carried)], out);
        carried = [];
      }
      const last = page.at(-1);
      if (rows < this.stepPoints || last === undefined) {
        await this.storeBuckets(shard, carried.length > 0 ? [joined([...carried, ...page.slice(0, 1)]), ...page.slice(1)] : page, out);
        return;
      }
      // The page's last series may go on in the next page: it waits, joined with what came before.
      const whole = page.slice(0, -1);
      if (carried.length > 0 && whole.length > 0) {
        whole[0] = joined([...carried, whole[0] as SeriesSamples]);
        carried = [];
      }
      carried.push(last);
      await this.storeBuckets(shard, whole, out);
      const lastId = last.idBytes.readBigUInt64LE(0);
      keyset = ` AND series >= ${lastId}${below} AND (series > ${lastId} OR ts > ${lastTimestamp(last)})`;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Computes every level of these series' buckets into `out`, and inserts them once the buffer
   * holds CLICKHOUSE_ROLLUP_INSERT_BYTES (or when `flush` is set): a few large inserts per day
   * rather than five small parts per page.
   */
  private async storeBuckets(shard: ShardClient, series: readonly SeriesSamples[], out: RollupBuffer, flush = false): Promise<void> {
    for (const { idBytes, samples } of series) {
      ROLLUP_RESOLUTIONS.forEach((res, i) => encodeBuckets(out[i] as RowBinaryWriter, idBytes, bucketsFromSamples(samples, LAYOUT[res].bucketWidthMs)));
    }
    if (!flush && out.reduce((n, w) => n + w.length, 0) < CLICKHOUSE_ROLLUP_INSERT_BYTES) return;
    for (const [i, res] of ROLLUP_RESOLUTIONS.entries()) {
      const rows = (out[i] as RowBinaryWriter).finish();
      if (rows.length > 0) await shard.insertRowBinary(rollupLocalTable(res), rows);
    }
  }

}

/** One series' parts from consecutive pages as one. */
function joined(parts: readonly SeriesSamples[]): SeriesSamples {
  return { idBytes: (parts[0] as SeriesSamples).idBytes, samples: concatSamples(parts.map((p) => p.samples)) };
}

/** The latest timestamp of a series' samples (numbers and strings are kept apart). */
function lastTimestamp(s: SeriesSamples): number {
  const n = s.samples.length > 0 ? (s.samples.timestampsMs[s.samples.length - 1] as number) : -Infinity;
  const strings = s.samples.strings;
  const t = strings !== null && strings.length > 0 ? (strings.timestampsMs[strings.length - 1] as number) : -Infinity;
  return Math.max(n, t);
}
