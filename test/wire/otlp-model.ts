// Owns the plain reference model of the OTLP mapping the decoder tests compare against: SDK ResourceMetrics in, the expected Strata points out.
import { Buffer } from 'node:buffer';
import type { HrTime } from '@opentelemetry/api';
import { AggregationTemporality, type DataPoint, DataPointType, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { Point } from '../../src/model/sample.js';
import { type Label, seriesMetricName } from '../../src/wire/series-name.js';

/** What a request should decode to: the stored points in order, and the counts and codes of the rest. */
export interface ExpectedBatch {
  readonly points: Point[];
  rejectedPoints: number;
  skippedPoints: number;
  readonly codes: string[];
}

const LABELS_MAX = 64;
const TWO_63 = 2 ** 63;

/** Replaces, code point by code point, every character `keep` refuses with `_`, and prefixes a leading digit. */
function sanitise(text: string, keep: RegExp): string {
  const out = Array.from(text, (c) => (keep.test(c) ? c : '_')).join('');
  return /^[0-9]/.test(out) ? `_${out}` : out;
}

export function modelMetricName(name: string): string {
  return sanitise(name, /^[a-zA-Z0-9_:]$/);
}

export function modelLabelName(key: string): string {
  return sanitise(key, /^[a-zA-Z0-9_]$/);
}

/** Whether the SDK sends this number as int_value (an integer in int64 range) rather than double_value. */
function isInt(value: number): boolean {
  return Number.isInteger(value) && value >= -TWO_63 && value < TWO_63;
}

/** An attribute value (as the SDK holds it) as compact JSON. */
export function modelJson(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return isInt(value) ? BigInt(value).toString() : Number.isFinite(value) ? String(value) : `"${value}"`;
  if (value instanceof Uint8Array) return JSON.stringify(Buffer.from(value).toString('base64'));
  if (Array.isArray(value)) return `[${value.map(modelJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .map((k) => `${JSON.stringify(k)}:${modelJson(record[k])}`)
      .join(',')}}`;
  }
  return 'null';
}

/** An attribute value as a label value. */
export function modelLabelValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return isInt(value) ? BigInt(value).toString() : String(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value === null || value === undefined) return '';
  return modelJson(value);
}

/** Whole milliseconds of an HrTime, floored, in exact integer arithmetic. */
export function modelMillis(time: HrTime): number {
  return Number((BigInt(time[0]) * 1_000_000_000n + BigInt(time[1])) / 1_000_000n);
}

interface SeriesContext {
  readonly job: string;
  readonly instance: string;
}

/** The labels of a point, or a rejection reason: attributes sorted by key, sanitised, joined with `;`; job and instance on top. */
function modelLabels(attributes: Record<string, unknown>, context: SeriesContext, reserved: string): Label[] | 'series' {
  const keys = Object.keys(attributes).sort();
  if (keys.length > LABELS_MAX) return 'series';
  const joined = new Map<string, string[]>();
  for (const key of keys) {
    const name = modelLabelName(key);
    if ((reserved !== '' && name === reserved) || (name === 'job' && context.job !== '') || (name === 'instance' && context.instance !== '')) continue;
    const values = joined.get(name) ?? [];
    values.push(modelLabelValue(attributes[key]));
    joined.set(name, values);
  }
  const labels: Label[] = [...joined].map(([name, values]) => ({ name, value: values.filter((v) => v !== '').join(';') }));
  if (context.job !== '') labels.push({ name: 'job', value: context.job });
  if (context.instance !== '') labels.push({ name: 'instance', value: context.instance });
  if (labels.filter((l) => l.value !== '').length > LABELS_MAX) return 'series';
  if (labels.some((l) => l.name === '' || l.name === '__name__')) return 'series';
  return labels;
}

/** Where one metric's expected points go. */
class MetricModel {
  readonly name: string;
  readonly unit: string | undefined;

  constructor(
    metric: MetricData,
    private readonly context: SeriesContext,
    private readonly out: ExpectedBatch,
  ) {
    this.name = modelMetricName(metric.descriptor.name);
    this.unit = metric.descriptor.unit === '' ? undefined : metric.descriptor.unit;
  }

  /** The series namer of a point, or undefined (and the point counted refused) when its series or time is bad. */
  begin(point: DataPoint<unknown>, reserved: string): ((suffix: string, extra?: Label) => string) | undefined {
    const labels = modelLabels(point.attributes as Record<string, unknown>, this.context, reserved);
    if (labels === 'series' || this.name === '') return this.refuse('PROTOCOL_SERIES_INVALID');
    if (modelMillis(point.endTime) === 0) return this.refuse('PROTOCOL_POINT_INVALID');
    return (suffix, extra) => seriesMetricName(this.name + suffix, extra === undefined ? labels : [...labels, extra]);
  }

  refuse(code: string): undefined {
    this.out.rejectedPoints++;
    this.out.codes.push(code);
    return undefined;
  }

  add(series: string, time: HrTime, value: number, unit: string | undefined): void {
    if (Number.isFinite(value)) this.out.points.push({ tenant: 't', metric: series, timestamp: modelMillis(time), value, unit });
    else this.out.skippedPoints++;
  }
}

/** Appends what one metric's points should become, in the decoder's order (buckets by bound, +Inf, count, sum). */
function modelMetric(metric: MetricData, context: SeriesContext, out: ExpectedBatch): void {
  const m = new MetricModel(metric, context, out);
  if (metric.dataPointType === DataPointType.GAUGE || metric.dataPointType === DataPointType.SUM) {
    const total = metric.dataPointType === DataPointType.SUM && metric.isMonotonic && metric.aggregationTemporality === AggregationTemporality.CUMULATIVE;
    const suffix = total && !m.name.endsWith('_total') ? '_total' : '';
    for (const point of metric.dataPoints) {
      const series = m.begin(point, '');
      if (series !== undefined) m.add(series(suffix), point.endTime, point.value, m.unit);
    }
  } else if (metric.dataPointType === DataPointType.HISTOGRAM) {
    for (const point of metric.dataPoints) {
      const series = m.begin(point, 'le');
      if (series === undefined) continue;
      const { buckets, count, sum } = point.value;
      const bounds = buckets.boundaries;
      const increasing = bounds.every((b, i) => Number.isFinite(b) && (i === 0 || b > (bounds[i - 1] as number)));
      if ((buckets.counts.length !== 0 && buckets.counts.length !== bounds.length + 1) || !increasing) {
        m.refuse('PROTOCOL_POINT_INVALID');
        continue;
      }
      let cumulative = 0;
      if (buckets.counts.length > 0) {
        bounds.forEach((bound, i) => {
          cumulative += buckets.counts[i] as number;
          m.add(series('_bucket', { name: 'le', value: String(bound) }), point.endTime, cumulative, undefined);
        });
      }
      m.add(series('_bucket', { name: 'le', value: '+Inf' }), point.endTime, count, undefined);
      m.add(series('_count'), point.endTime, count, undefined);
      if (sum !== undefined) m.add(series('_sum'), point.endTime, sum, m.unit);
    }
  } else {
    for (const point of metric.dataPoints) {
      const series = m.begin(point, '');
      if (series === undefined) continue;
      m.add(series('_count'), point.endTime, point.value.count, undefined);
      if (point.value.sum !== undefined) m.add(series('_sum'), point.endTime, point.value.sum, m.unit);
    }
  }
}

/** The expected decoding of one ResourceMetrics. */
export function modelBatch(resourceMetrics: ResourceMetrics): ExpectedBatch {
  const out: ExpectedBatch = { points: [], rejectedPoints: 0, skippedPoints: 0, codes: [] };
  const attributes = resourceMetrics.resource.attributes as Record<string, unknown>;
  const serviceName = modelLabelValue(attributes['service.name']);
  const namespace = modelLabelValue(attributes['service.namespace']);
  const context: SeriesContext = {
    job: serviceName === '' ? '' : namespace === '' ? serviceName : `${namespace}/${serviceName}`,
    instance: modelLabelValue(attributes['service.instance.id']),
  };
  for (const scope of resourceMetrics.scopeMetrics) for (const metric of scope.metrics) modelMetric(metric, context, out);
  return out;
}
