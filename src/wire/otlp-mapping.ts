// Owns how a decoded OTLP data point becomes Strata points: series names and labels, kind suffixes, units, and what is refused or skipped.
import { StrataError } from '../core/errors.js';
import { INGEST_BATCH_POINTS_MAX } from '../core/limits.js';
import { OtlpPoint } from './otlp-point.js';
import { labelNameOf, metricNameOf } from './otlp-text.js';
import type { ProtocolBatch } from './protocol-batch.js';
import { OtlpSeries, type OtlpSeriesCache } from './otlp-series.js';
import { SERIES_LABELS_MAX } from './protocol-limits.js';
import { type Label, seriesMetricName, seriesProblem } from './series-name.js';

// The kinds of metric are the field numbers of Metric's `data` oneof, so the protobuf decoder needs no table.
/** A Gauge metric (Metric field 5). */
export const KIND_GAUGE = 5;
/** A Sum metric (Metric field 7). */
export const KIND_SUM = 7;
/** An explicit-bucket Histogram metric (Metric field 9). */
export const KIND_HISTOGRAM = 9;
/** An ExponentialHistogram metric (Metric field 10). */
export const KIND_EXPONENTIAL_HISTOGRAM = 10;
/** A Summary metric (Metric field 11). */
export const KIND_SUMMARY = 11;

/** AggregationTemporality CUMULATIVE (DELTA is 1, UNSPECIFIED 0). */
const TEMPORALITY_CUMULATIVE = 2;
/** DataPointFlags bit 0: the point marks a gap (no value was recorded), like a Prometheus staleness marker. */
const FLAG_NO_RECORDED_VALUE = 1;

/** Orders attribute indices by key, as sent (UTF-16 order), so the same attributes in any order name the same series. */
function sortByKey(order: number[], keys: readonly string[]): void {
  order.sort((a, b) => {
    const x = keys[a] as string;
    const y = keys[b] as string;
    return x < y ? -1 : x > y ? 1 : a - b;
  });
}

/**
 * Maps the data points of one OTLP request into a ProtocolBatch. The decoders call beginResource
 * and beginMetric as they enter those messages, fill `point`, and call endPoint for each data
 * point; both encodings go through here, so they yield the same batch. A point's series comes from
 * the decoder's cache when its attributes were seen before under the same metric context: the
 * protobuf decoder looks it up by the attribute bytes and passes it to endPoint (calling
 * seriesOfPoint on a miss); for OTLP/JSON endPoint looks it up by the attributes' text.
 */
export class OtlpMapper {
  /** The point the decoder fills before each endPoint. */
  readonly point = new OtlpPoint();
  /** The salt of the current metric's keys in the cache: a number per (name, kind, counter, job, instance). */
  context = 0;
  private job = '';
  private instance = '';
  private otlpName = '';
  private name = '';
  private unit: string | undefined = undefined;
  private kind = 0;
  /** The series name of a gauge's or sum's points: `name`, or `name_total` for a monotonic cumulative sum. */
  private numberName = '';
  /** Sanitised attribute keys, by key: a request repeats the same few keys on every point. */
  private readonly labelNames = new Map<string, string>();
  private readonly order: number[] = [];

  constructor(
    private readonly batch: ProtocolBatch,
    /** The decoder's series cache, kept across requests. */
    readonly cache: OtlpSeriesCache,
  ) {}

  /**
   * Starts a ResourceMetrics: `job` is service.namespace/service.name (service.name alone without a
   * namespace, nothing without a name), `instance` is service.instance.id; '' means absent.
   */
  beginResource(serviceName: string, serviceNamespace: string, serviceInstanceId: string): void {
    this.job = serviceName === '' ? '' : serviceNamespace === '' ? serviceName : `${serviceNamespace}/${serviceName}`;
    this.instance = serviceInstanceId;
  }

  /** Starts a Metric whose points follow; `temporality` and `monotonic` matter for sums only. */
  beginMetric(otlpName: string, unit: string, kind: number, temporality: number, monotonic: boolean): void {
    this.otlpName = otlpName;
    this.name = metricNameOf(otlpName);
    this.unit = unit === '' ? undefined : unit;
    this.kind = kind;
    const counter = kind === KIND_SUM && monotonic && temporality === TEMPORALITY_CUMULATIVE;
    this.numberName = counter && !this.name.endsWith('_total') ? `${this.name}_total` : this.name;
    // Everything a point's naming depends on besides its attributes; lengths keep the parts apart.
    const job = this.job;
    const instance = this.instance;
    this.context = this.cache.context(`${kind}:${counter ? 1 : 0}:${job.length}:${job}${instance.length}:${instance}${otlpName}`);
  }

  /** Maps the data point in `point` (of the metric begun last) as `series`, or as its attributes name it, and resets it for the next. */
  endPoint(series?: OtlpSeries): void {
    const point = this.point;
    if ((point.flags & FLAG_NO_RECORDED_VALUE) !== 0) this.batch.skippedPoints++;
    else {
      const named = series ?? this.textSeries();
      if (named.refusal !== undefined) this.batch.reject(this.otlpName, 'PROTOCOL_SERIES_INVALID', named.refusal);
      else if (this.kind === KIND_GAUGE || this.kind === KIND_SUM) this.numberPoint(point, named);
      else if (this.kind === KIND_HISTOGRAM) this.histogramPoint(point, named);
      else if (this.kind === KIND_EXPONENTIAL_HISTOGRAM) this.exponentialPoint(point, named);
      else if (this.kind === KIND_SUMMARY) this.summaryPoint(point, named);
    }
    point.reset();
    this.checkSize();
  }

  /**
   * How the attributes in `point` name the series of the current metric: its labels and first
   * series, or the refusal. What a decoder caches by the point's attributes.
   */
  seriesOfPoint(): OtlpSeries {
    const reserved = this.kind === KIND_HISTOGRAM ? 'le' : this.kind === KIND_SUMMARY ? 'quantile' : '';
    const labels = this.labels(reserved);
    if (typeof labels === 'string') return new OtlpSeries(`OTLP metric ${JSON.stringify(this.otlpName)}: ${labels}.`, [], '', this.name);
    const main = this.kind === KIND_GAUGE || this.kind === KIND_SUM ? this.numberName : `${this.name}_count`;
    return new OtlpSeries(undefined, labels, seriesMetricName(main, labels), this.name);
  }

  /** The series of an OTLP/JSON point: cached by the text of its attributes under the metric's context. */
  private textSeries(): OtlpSeries {
    const hash = this.cache.textKeyHash(this.context, this.point);
    const seen = this.cache.text(hash, this.context, this.point);
    if (seen !== undefined) return seen;
    const series = this.seriesOfPoint();
    this.cache.setText(hash, this.context, this.point, series);
    return series;
  }

  private numberPoint(point: OtlpPoint, series: OtlpSeries): void {
    if (!this.timed(series.main)) return;
    if (!point.hasValue) return this.refusePoint(series.main, 'the data point has neither as_double nor as_int');
    this.emit(series.main, point.value, this.unit);
  }

  private histogramPoint(point: OtlpPoint, series: OtlpSeries): void {
    const countSeries = series.main;
    if (!this.timed(countSeries)) return;
    const problem = bucketProblem(point);
    if (problem !== undefined) return this.refusePoint(countSeries, problem);
    let cumulative = 0;
    for (let i = 0; i < point.boundCount && point.bucketCount > 0; i++) {
      cumulative += point.bucketCounts[i] as number;
      this.emit(series.bucketName(point.bounds[i] as number, this.cache), cumulative, undefined);
    }
    this.emit(series.infBucketName(this.cache), point.count, undefined);
    this.emit(countSeries, point.count, undefined);
    if (point.hasSum) this.emit(series.sumName(this.cache), point.sum, this.unit);
  }

  private exponentialPoint(point: OtlpPoint, series: OtlpSeries): void {
    if (!this.timed(series.main)) return;
    this.emit(series.main, point.count, undefined);
    if (point.hasSum) this.emit(series.sumName(this.cache), point.sum, this.unit);
  }

  private summaryPoint(point: OtlpPoint, series: OtlpSeries): void {
    const countSeries = series.main;
    if (!this.timed(countSeries)) return;
    for (let i = 0; i < point.quantileCount; i++) {
      const q = point.quantiles[i] as number;
      if (!(q >= 0 && q <= 1)) return this.refusePoint(countSeries, `quantile ${String(q)} is not between 0 and 1`);
    }
    for (let i = 0; i < point.quantileCount; i++) this.emit(series.quantileName(point.quantiles[i] as number, this.cache), point.quantileValues[i] as number, this.unit);
    this.emit(countSeries, point.count, undefined);
    this.emit(series.sumName(this.cache), point.sum, this.unit);
  }

  /** False (and the point refused) when the point has no time. */
  private timed(series: string): boolean {
    if (this.point.timeMs !== 0) return true;
    this.refusePoint(series, 'time_unix_nano is 0 (unset) or before the first millisecond of 1970');
    return false;
  }

  /**
   * The labels of the point: its attributes with keys sanitised, keys that sanitise alike joined
   * with `;` in key order (empty values left out), then `job` and `instance` from the resource,
   * which replace attributes of those names, as does `reserved` (le, quantile: the caller adds
   * its own). Why not, when they cannot name a series.
   */
  private labels(reserved: string): Label[] | string {
    const point = this.point;
    const n = point.attributeCount;
    if (n > SERIES_LABELS_MAX) return `the data point has ${n} attributes; at most ${SERIES_LABELS_MAX} are allowed`;
    let labels: { name: string; value: string }[] = [];
    let collided = false;
    for (let i = 0; i < n; i++) {
      const name = this.labelName(point.keys[i] as string);
      if (this.replaced(name, reserved)) continue;
      for (let j = 0; j < labels.length && !collided; j++) collided = (labels[j] as Label).name === name;
      labels.push({ name, value: point.values[i] as string });
    }
    // Seldom: only then does key order matter (seriesMetricName orders the labels by name anyway).
    if (collided) labels = this.joinedLabels(reserved);
    if (this.job !== '') labels.push({ name: 'job', value: this.job });
    if (this.instance !== '') labels.push({ name: 'instance', value: this.instance });
    let used = 0;
    for (const label of labels) if (label.value !== '') used++;
    if (used > SERIES_LABELS_MAX) return `the series has ${used} labels; at most ${SERIES_LABELS_MAX} are allowed`;
    return (this.name === '' ? 'the metric has no name' : seriesProblem(this.name, labels)) ?? labels;
  }

  /** Whether a label Strata sets itself replaces the attribute that sanitises to `name`. */
  private replaced(name: string, reserved: string): boolean {
    return (name === reserved && name !== '') || (name === 'job' && this.job !== '') || (name === 'instance' && this.instance !== '');
  }

  /** The attribute labels when some keys sanitise alike: in key order, values of one name joined with `;`. */
  private joinedLabels(reserved: string): { name: string; value: string }[] {
    const point = this.point;
    const order = this.order;
    order.length = point.attributeCount;
    for (let i = 0; i < order.length; i++) order[i] = i;
    sortByKey(order, point.keys);
    const labels: { name: string; value: string }[] = [];
    for (const i of order) {
      const name = this.labelName(point.keys[i] as string);
      if (this.replaced(name, reserved)) continue;
      const value = point.values[i] as string;
      const same = labels.find((label) => label.name === name);
      if (same === undefined) labels.push({ name, value });
      else if (value !== '') same.value = same.value === '' ? value : `${same.value};${value}`;
    }
    return labels;
  }

  private labelName(key: string): string {
    let name = this.labelNames.get(key);
    if (name === undefined) {
      name = labelNameOf(key);
      this.labelNames.set(key, name);
    }
    return name;
  }

  private emit(series: string, value: number, unit: string | undefined): void {
    this.batch.addNumber(series, this.point.timeMs, value, unit);
    this.checkSize();
  }

  /**
   * Throws INGEST_BATCH_TOO_LARGE past INGEST_BATCH_POINTS_MAX points, counting those refused and
   * skipped too: each costs work, so the limit bounds the work of a request, not only its write.
   */
  private checkSize(): void {
    const batch = this.batch;
    if (batch.columns.length + batch.rejectedPoints + batch.skippedPoints <= INGEST_BATCH_POINTS_MAX) return;
    throw new StrataError(
      'INGEST_BATCH_TOO_LARGE',
      `The OTLP request holds more than ${INGEST_BATCH_POINTS_MAX} points (each histogram bucket, count and sum is one, and refused and skipped points count too); send it in smaller requests.`,
      { limit: INGEST_BATCH_POINTS_MAX },
    );
  }

  private refusePoint(series: string, problem: string): void {
    this.batch.reject(series, 'PROTOCOL_POINT_INVALID', `OTLP metric ${JSON.stringify(this.otlpName)}: ${problem}.`);
  }
}

/** Why a histogram point's buckets cannot be stored, or undefined when they can. */
function bucketProblem(point: OtlpPoint): string | undefined {
  if (point.bucketCount !== 0 && point.bucketCount !== point.boundCount + 1) {
    return `the histogram has ${point.bucketCount} bucket counts for ${point.boundCount} bounds (expected ${point.boundCount + 1}, or none)`;
  }
  let previous = -Infinity;
  for (let i = 0; i < point.boundCount; i++) {
    const bound = point.bounds[i] as number;
    if (!Number.isFinite(bound) || bound <= previous) return `the histogram's bounds are not finite and strictly increasing (bound ${i} is ${String(bound)})`;
    previous = bound;
  }
  return undefined;
}
