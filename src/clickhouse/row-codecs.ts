// Owns the RowBinary rows of the ClickHouse tables: points and series rows out (split by shard), samples and buckets in.
import type { BucketColumns, SampleColumns } from '../model/bucket.js';
import type { SeriesRow } from '../storage/catalog.js';
import type { BatchColumns } from '../storage/wal-record.js';
import { RowBinaryReader, RowBinaryWriter } from './row-binary.js';
import type { SeriesCache } from './series-cache.js';

/** kind of a numeric point in points_local. */
const KIND_NUMBER = 0;
/** kind of a string point in points_local. */
const KIND_STRING = 1;

/**
 * The points of a validated batch as RowBinary bodies, one per shard (empty when a shard gets
 * none), columns (series, ts, kind, value, text), leaving out the points `replaced` marks (a later
 * point of the batch has the same series and timestamp).
 */
export function encodePoints(columns: BatchColumns, cache: SeriesCache, shardCount: number, replaced: Uint8Array | null): Buffer[] {
  const writers = Array.from({ length: shardCount }, () => new RowBinaryWriter());
  const { seriesIds, timestampsMs, values, strings } = columns;
  for (let i = 0; i < columns.length; i++) {
    if (replaced !== null && replaced[i] === 1) continue;
    const p = cache.placement(seriesIds[i] as number);
    const w = writers[p.shard] as RowBinaryWriter;
    w.u64Bytes(p.idBytes);
    w.u64(timestampsMs[i] as number);
    const text = strings === null ? undefined : strings.get(i);
    if (text === undefined) {
      w.u8(KIND_NUMBER);
      w.f64(values[i] as number);
      w.string('');
    } else {
      w.u8(KIND_STRING);
      w.f64(0);
      w.string(text);
    }
  }
  return writers.map((w) => w.finish());
}

/**
 * Series rows as RowBinary bodies per shard: (tenant, metric, series, unit, has_unit, ver). A row
 * without a unit gets version 0: it only says the series exists, so it never hides a unit another
 * write (or an earlier process) recorded; the newest row with a unit is the series' unit.
 */
export function encodeSeriesRows(rows: readonly SeriesRow[], cache: SeriesCache, shardCount: number, version: number): Buffer[] {
  const writers = Array.from({ length: shardCount }, () => new RowBinaryWriter());
  for (const row of rows) {
    const p = cache.placement(row.id);
    const w = writers[p.shard] as RowBinaryWriter;
    w.string(row.tenant);
    w.string(row.metric);
    w.u64Bytes(p.idBytes);
    w.string(row.unit ?? '');
    w.u8(row.unit === null ? 0 : 1);
    w.u64(row.unit === null ? 0 : version);
  }
  return writers.map((w) => w.finish());
}

/** The SELECT columns decodeSamples reads, in order. */
export const SAMPLE_COLUMNS = 'ts, kind, value, text';

/** Samples of one series from RowBinary rows (ts, kind, value, text) ascending by ts, one per ts. */
export function decodeSamples(body: Buffer): SampleColumns {
  const r = new RowBinaryReader(body);
  const acc = new SampleAccumulator();
  while (!r.done) acc.add(r.u64(), r.u8(), r.f64(), r.string());
  return acc.finish();
}

/** Appends the buckets of one series as rollup rows (series, bucket, num_points, count, mean, m2, min, max). */
export function encodeBuckets(w: RowBinaryWriter, idBytes: Buffer, b: BucketColumns): void {
  for (let i = 0; i < b.length; i++) {
    w.u64Bytes(idBytes);
    w.u64(b.startsMs[i] as number);
    w.u32(b.numPoints[i] as number);
    w.u32(b.count[i] as number);
    w.f64(b.mean[i] as number);
    w.f64(b.m2[i] as number);
    w.f64(b.min[i] as number);
    w.f64(b.max[i] as number);
  }
}

/** The SELECT columns decodeBuckets reads, in order. */
export const BUCKET_COLUMNS = 'bucket, num_points, count, mean, m2, min, max';

/** Buckets of one series from RowBinary rows (bucket, num_points, count, mean, m2, min, max) ascending by bucket. */
export function decodeBuckets(body: Buffer): BucketColumns {
  const r = new RowBinaryReader(body);
  const rows: number[][] = [[], [], [], [], [], [], []];
  while (!r.done) {
    rows[0]?.push(r.u64());
    rows[1]?.push(r.u32());
    rows[2]?.push(r.u32());
    for (let c = 3; c < 7; c++) rows[c]?.push(r.f64());
  }
  const [startsMs, numPoints, count, mean, m2, min, max] = rows.map((c) => Float64Array.from(c)) as Float64Array[];
  return { length: startsMs?.length ?? 0, startsMs, numPoints, count, mean, m2, min, max } as BucketColumns;
}

/** The samples of one series in a day finalization's answer. */
export interface SeriesSamples {
  readonly idBytes: Buffer;
  readonly samples: SampleColumns;
}

/** The SELECT columns decodeSeriesSamples reads, in order (rows sorted by series, then ts). */
export const SERIES_SAMPLE_COLUMNS = `series, ${SAMPLE_COLUMNS}`;

/** Splits RowBinary rows (series, ts, kind, value, text), sorted by series and ts, into each series' samples. */
export function decodeSeriesSamples(body: Buffer): SeriesSamples[] {
  const r = new RowBinaryReader(body);
  const out: SeriesSamples[] = [];
  let current: Buffer | undefined;
  let acc = new SampleAccumulator();
  while (!r.done) {
    const id = r.u64Bytes();
    if (current === undefined || !id.equals(current)) {
      if (current !== undefined) out.push({ idBytes: current, samples: acc.finish() });
      current = Buffer.from(id);
      acc = new SampleAccumulator();
    }
    acc.add(r.u64(), r.u8(), r.f64(), r.string());
  }
  if (current !== undefined) out.push({ idBytes: current, samples: acc.finish() });
  return out;
}

/** Collects one series' rows into SampleColumns (numbers and strings apart). */
class SampleAccumulator {
  private readonly ts: number[] = [];
  private readonly values: number[] = [];
  private readonly sts: number[] = [];
  private readonly texts: string[] = [];

  add(t: number, kind: number, value: number, text: string): void {
    if (kind === KIND_STRING) {
      this.sts.push(t);
      this.texts.push(text);
    } else {
      this.ts.push(t);
      this.values.push(value);
    }
  }

  finish(): SampleColumns {
    const { ts, values, sts, texts } = this;
    return {
      length: ts.length,
      timestampsMs: Float64Array.from(ts),
      values: Float64Array.from(values),
      strings: sts.length === 0 ? null : { length: sts.length, timestampsMs: Float64Array.from(sts), values: texts },
    };
  }
}

/** One series' samples from consecutive reads, joined in order (each part ascending, each after the last). */
export function concatSamples(parts: readonly SampleColumns[]): SampleColumns {
  if (parts.length === 1) return parts[0] as SampleColumns;
  const acc = new SampleAccumulator();
  for (const p of parts) {
    for (let i = 0; i < p.length; i++) acc.add(p.timestampsMs[i] as number, KIND_NUMBER, p.values[i] as number, '');
    const strings = p.strings;
    if (strings !== null) for (let i = 0; i < strings.length; i++) acc.add(strings.timestampsMs[i] as number, KIND_STRING, 0, strings.values[i] as string);
  }
  return acc.finish();
}
