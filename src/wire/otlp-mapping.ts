// Owns how a decoded OTLP data point becomes Strata points: series names and labels, kind suffixes, units, and what is refused or skipped.
import { StrataError } from '../core/errors.js';
import { INGEST_BATCH_POINTS_MAX } from '../core/limits.js';
import { OtlpPoint } from './otlp-point.js';
import { labelNameOf, metricNameOf } from './otlp-text.js';
import type { ProtocolBatch } from './protocol-batch.js';
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
 * point; both encodings go through here, so they yield the same batch.
 */
export class OtlpMapper {
  /** The point the decoder fills before each endPoint. */
  readonly point = new OtlpPoint();
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

  constructor(private readonly batch: ProtocolBatch) {}

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
  }

  /** Maps the data point in `point` (of the metric begun last) and resets it for the next. */
  endPoint(): void {
    const point = this.point;
    if ((point.flags & FLAG_NO_RECORDED_VALUE) !== 0) this.batch.skippedPoints++;
    else if (this.kind === KIND_GAUGE || this.kind === KIND_SUM) this.numberPoint(point);
    else if (this.kind === KIND_HISTOGRAM) this.histogramPoint(point);
    else if (this.kind === KIND_EXPONENTIAL_HISTOGRAM) this.exponentialPoint(point);
    else if (this.kind === KIND_SUMMARY) this.summaryPoint(point);
    point.reset();
    this.checkSize();
  }

  private numberPoint(point: OtlpPoint): void {
    const labels = this.labels('');
    if (labels === undefined) return;
    const series = seriesMetricName(this.numberName, labels);
    if (!this.timed(series)) return;
    if (!point.hasValue) return this.refusePoint(series, 'the data point has neither as_double nor as_int');
    this.emit(series, point.value, this.unit);
  }

  private histogramPoint(point: OtlpPoint): void {
    const labels = this.labels('le');
    if (labels === undefined) return;
    const countSeries = seriesMetricName(`${this.name}_count`, labels);
    if (!this.timed(countSeries)) return;
    const problem = bucketProblem(point);
    if (problem !== undefined) return this.refusePoint(countSeries, problem);
    const bucketName = `${this.name}_bucket`;
    let cumulative = 0;
    for (let i = 0; i < point.boundCount && point.bucketCount > 0; i++) {
      cumulative += point.bucketCounts[i] as number;
      this.emit(seriesMetricName(bucketName, [...labels, { name: 'le', value: String(point.bounds[i]) }]), cumulative, undefined);
    }
    this.emit(seriesMetricName(bucketName, [...labels, { name: 'le', value: '+Inf' }]), point.count, undefined);
    this.emit(countSeries, point.count, undefined);
    if (point.hasSum) this.emit(seriesMetricName(`${this.name}_sum`, labels), point.sum, this.unit);
  }

  private exponentialPoint(point: OtlpPoint): void {
    const labels = this.labels('');
    if (labels === undefined) return;
    const countSeries = seriesMetricName(`${this.name}_count`, labels);
    if (!this.timed(countSeries)) return;
    this.emit(countSeries, point.count, undefined);
    if (point.hasSum) this.emit(seriesMetricName(`${this.name}_sum`, labels), point.sum, this.unit);
  }

  private summaryPoint(point: OtlpPoint): void {
    const labels = this.labels('quantile');
    if (labels === undefined) return;
    const countSeries = seriesMetricName(`${this.name}_count`, labels);
    if (!this.timed(countSeries)) return;
    for (let i = 0; i < point.quantileCount; i++) {
      const q = point.quantiles[i] as number;
      if (!(q >= 0 && q <= 1)) return this.refusePoint(countSeries, `quantile ${String(q)} is not between 0 and 1`);
    }
    for (let i = 0; i < point.quantileCount; i++) {
      const series = seriesMetricName(this.name, [...labels, { name: 'quantile', value: String(point.quantiles[i]) }]);
      this.emit(series, point.quantileValues[i] as number, this.unit);
    }
    this.emit(countSeries, point.count, undefined);
    this.emit(seriesMetricName(`${this.name}_sum`, labels), point.sum, this.unit);
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
   * its own). Undefined, with the point refused, when they cannot name a series.
   */
  private labels(reserved: string): Label[] | undefined {
    const point = this.point;
    const n = point.attributeCount;
    if (n > SERIES_LABELS_MAX) return this.refuseSeries(`the data point has ${n} attributes; at most ${SERIES_LABELS_MAX} are allowed`);
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
    if (used > SERIES_LABELS_MAX) return this.refuseSeries(`the series has ${used} labels; at most ${SERIES_LABELS_MAX} are allowed`);
    const problem = this.name === '' ? 'the metric has no name' : seriesProblem(this.name, labels);
    return problem === undefined ? labels : this.refuseSeries(problem);
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

  private refuseSeries(problem: string): undefined {
    this.batch.reject(this.otlpName, 'PROTOCOL_SERIES_INVALID', `OTLP metric ${JSON.stringify(this.otlpName)}: ${problem}.`);
    return undefined;
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
