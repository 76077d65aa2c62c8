// Owns the peers' write formats: VictoriaMetrics' JSON-line import and InfluxDB 1.x line protocol, as pure encoders of numeric points.
import { assert } from '../core/assert.js';

/** One numeric point as the peers receive it: the Strata metric becomes their name, the tenant a tag (label). */
export interface PeerPoint {
  readonly tenant: string;
  readonly metric: string;
  /** Integer milliseconds since the epoch. */
  readonly timestampMs: number;
  /** A finite double. */
  readonly value: number;
}

/**
 * Largest |timestamp| in milliseconds InfluxDB accepts: it stores nanoseconds in an int64 and
 * refuses times outside ±9223372036854775806 ns ("time outside range").
 */
export const INFLUX_TIMESTAMP_MS_MAX = 9_223_372_036_854;

/**
 * The shortest decimal text that parses back to the same double. `String` gives the shortest
 * round-trip form for every finite double but writes -0 as "0", which would lose the sign bit;
 * JSON and line protocol both read "-0" as negative zero.
 */
export function roundTripNumber(value: number): string {
  assert(Number.isFinite(value), 'peer formats carry finite values only');
  return Object.is(value, -0) ? '-0' : String(value);
}

interface VmSeries {
  readonly tenant: string;
  readonly metric: string;
  readonly values: string[];
  readonly timestamps: number[];
}

/**
 * VictoriaMetrics' `/api/v1/import` body: one JSON object per series (tenant, metric), series in
 * the order their first point appears, points in input order, each line ending in '\n'; the
 * empty string for no points. Values are JSON numbers in shortest round-trip text, so they parse
 * back bit for bit (what VictoriaMetrics then keeps is its own business: it stores decimals).
 */
export function vmImportLines(points: readonly PeerPoint[]): string {
  // Nested maps rather than a joined key: no separator character is safe in arbitrary names.
  const byTenant = new Map<string, Map<string, VmSeries>>();
  const order: VmSeries[] = [];
  for (const point of points) {
    assert(Number.isSafeInteger(point.timestampMs), 'peer timestamps are integer milliseconds');
    let byMetric = byTenant.get(point.tenant);
    if (byMetric === undefined) byTenant.set(point.tenant, (byMetric = new Map()));
    let series = byMetric.get(point.metric);
    if (series === undefined) {
      series = { tenant: point.tenant, metric: point.metric, values: [], timestamps: [] };
      byMetric.set(point.metric, series);
      order.push(series);
    }
    series.values.push(roundTripNumber(point.value));
    series.timestamps.push(point.timestampMs);
  }
  let out = '';
  for (const series of order) {
    const metric = `{"__name__":${JSON.stringify(series.metric)},"tenant":${JSON.stringify(series.tenant)}}`;
    out += `{"metric":${metric},"values":[${series.values.join(',')}],"timestamps":[${series.timestamps.join(',')}]}\n`;
  }
  return out;
}

/**
 * InfluxDB 1.x reads a backslash as an escape only before a comma, space, equals sign or double
 * quote, and keeps it literally anywhere else (1.x does not turn `\\` into `\`, unlike 2.x). So
 * a literal backslash right before one of those characters, or at the end of a name (where the
 * delimiter follows), cannot be written so that it reads back.
 */
const AMBIGUOUS_BACKSLASH = /\\(?=[, ="]|$)/;
/** Line protocol has no escape for line breaks. */
const LINE_BREAK = /[\n\r]/;

function influxNameWritable(name: string): boolean {
  return name !== '' && !LINE_BREAK.test(name) && !AMBIGUOUS_BACKSLASH.test(name);
}

/**
 * True when `influxLines` can write the point so that InfluxDB 1.x reads back the same
 * measurement, tenant, value and time. False for an empty name or tenant, a line break, a
 * backslash before a comma, space, equals sign or double quote or at the end, a metric starting
 * with '#' (the line would be a comment, and `\#` keeps its backslash), a non-finite value or a
 * non-integer time or one beyond INFLUX_TIMESTAMP_MS_MAX.
 */
export function influxRepresentable(point: PeerPoint): boolean {
  return (
    influxNameWritable(point.metric) &&
    !point.metric.startsWith('#') &&
    influxNameWritable(point.tenant) &&
    Number.isFinite(point.value) &&
    Number.isSafeInteger(point.timestampMs) &&
    Math.abs(point.timestampMs) <= INFLUX_TIMESTAMP_MS_MAX
  );
}

/** A measurement with its commas and spaces escaped (InfluxDB 1.x rules; an equals sign needs none). */
function influxMeasurement(metric: string): string {
  return metric.replace(/[, ]/g, '\\$&');
}

/** A tag value with its commas, equals signs and spaces escaped. */
function influxTagValue(tenant: string): string {
  return tenant.replace(/[,= ]/g, '\\$&');
}

/**
 * InfluxDB 1.x line protocol for `/write?precision=ms`, one line per point:
 * `METRIC,tenant=TENANT value=FLOAT TIMESTAMP_MS`, each ending in '\n'. The value is the shortest
 * round-trip decimal without an `i` suffix, which InfluxDB reads as a float (its default numeric
 * type), so `1` is the float 1 and every double reads back bit for bit. Every point must pass
 * `influxRepresentable` (callers filter and count the others).
 */
export function influxLines(points: readonly PeerPoint[]): string {
  let out = '';
  for (const point of points) {
    assert(influxRepresentable(point), 'influxLines takes points that pass influxRepresentable');
    out += `${influxMeasurement(point.metric)},tenant=${influxTagValue(point.tenant)} value=${roundTripNumber(point.value)} ${point.timestampMs}\n`;
  }
  return out;
}
