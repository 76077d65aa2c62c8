// Owns the metric values of check_metrics.post: wire type to type code, value text to number, dimensions to bare metric names.
import { assert } from '../../core/assert.js';
import { StrataError } from '../../core/errors.js';
import { STRING_VALUE_LENGTH_MAX, UNIT_LENGTH_MAX } from '../../core/limits.js';
import type { MetricTypeCode, ResultMetric } from '../../monitoring/check-result.js';
import { AGENT_METRIC_NAME_LENGTH_MAX, AGENT_POST_METRICS_MAX } from '../agent-limits.js';
import type { WireDimension, WireMetric, WireMetricType } from './messages.js';

const TYPE_CODES: Readonly<Record<WireMetricType, MetricTypeCode>> = {
  int32: 'i',
  uint32: 'I',
  int64: 'l',
  uint64: 'L',
  double: 'n',
  gauge: 'n',
  string: 's',
  bool: 's',
};

type IntegerType = 'int32' | 'uint32' | 'int64' | 'uint64';

/** Inclusive range of each integer type. */
const INTEGER_RANGES: Readonly<Record<IntegerType, readonly [bigint, bigint]>> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

const DECIMAL_INTEGER = /^[+-]?[0-9]+$/;
// The 2.6 agent hex-encodes int64, uint64 and gauge values as `0x…`.
const HEX_INTEGER = /^[+-]?0[xX][0-9a-fA-F]+$/;
const DECIMAL_NUMBER = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
// Control characters would break glob matching, logs and the engine's key separator (as ingest rules).
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** The one-letter type code of a wire type: int32 i, uint32 I, int64 l, uint64 L, double n, gauge n, string s, bool s ('true'/'false'). */
export function typeCodeOf(t: WireMetricType): MetricTypeCode {
  return TYPE_CODES[t];
}

function invalid(field: string, message: string): StrataError {
  return new StrataError('AGENT_PARAMS_INVALID', message, { field });
}

function isIntegerType(t: WireMetricType): t is IntegerType {
  return t in INTEGER_RANGES;
}

/** The integer a decimal or `0x` hex text names, or undefined when it is neither. */
function parseInteger(text: string): bigint | undefined {
  if (DECIMAL_INTEGER.test(text)) return BigInt(text.startsWith('+') ? text.slice(1) : text);
  if (!HEX_INTEGER.test(text)) return undefined;
  const negative = text.startsWith('-');
  const magnitude = BigInt(text.replace(/^[+-]/, ''));
  return negative ? -magnitude : magnitude;
}

function integerData(t: IntegerType, text: string, field: string): number {
  const value = parseInteger(text);
  if (value === undefined) throw invalid(field, `${t} metric value ${JSON.stringify(text)} is not a decimal or 0x-hex integer`);
  const [min, max] = INTEGER_RANGES[t];
  if (value < min || value > max) throw invalid(field, `${t} metric value ${text} is outside the range of ${t}`);
  // int64 and uint64 values beyond 2^53 become the nearest double: the engine stores doubles.
  return Number(value);
}

function doubleData(t: WireMetricType, text: string, field: string): number {
  // A gauge may be hex-encoded like the 64-bit integers; a double is decimal text only.
  const value = DECIMAL_NUMBER.test(text) ? Number(text) : t === 'gauge' ? parseInteger(text) : undefined;
  if (value === undefined) throw invalid(field, `${t} metric value ${JSON.stringify(text)} is not a number`);
  const data = Number(value);
  if (!Number.isFinite(data)) throw invalid(field, `${t} metric value ${text} is outside the range of a double`);
  return data;
}

function valueData(metric: WireMetric, field: string): number | string {
  const { t, v } = metric;
  if (isIntegerType(t)) return integerData(t, v, field);
  if (t === 'double' || t === 'gauge') return doubleData(t, v, field);
  if (t === 'bool') {
    if (v !== 'true' && v !== 'false') throw invalid(field, `bool metric value ${JSON.stringify(v)} is not true or false`);
    return v;
  }
  if (t === 'string') {
    if (v.length > STRING_VALUE_LENGTH_MAX) throw invalid(field, `string metric value is longer than ${STRING_VALUE_LENGTH_MAX} characters`);
    return v;
  }
  throw invalid(field, `metric type ${JSON.stringify(t)} is not one of the wire types`);
}

/**
 * The value of a wire metric as a ResultMetric; decimal or 0x-hex for integer types and gauge; throws AGENT_PARAMS_INVALID (details.field) for a value that does not parse or is out of its type's range (int64/uint64 beyond 2^53 kept as the nearest double, documented).
 * Doubles are decimal text (`1.5`, `-2e-3`); NaN and infinities are refused. A unit longer than UNIT_LENGTH_MAX is refused too.
 */
export function toResultMetric(metric: WireMetric, field: string): ResultMetric {
  if (typeof metric.u !== 'string' || metric.u.length > UNIT_LENGTH_MAX) throw invalid(`${field}.u`, `metric unit must be a string of at most ${UNIT_LENGTH_MAX} characters`);
  if (typeof metric.v !== 'string') throw invalid(`${field}.v`, 'metric value must be a string');
  return { type: typeCodeOf(metric.t), data: valueData(metric, `${field}.v`), unit: metric.u };
}

function checkMetricName(name: string, field: string): void {
  if (name.length === 0 || name.length > AGENT_METRIC_NAME_LENGTH_MAX || CONTROL_CHARS.test(name)) {
    throw invalid(field, `metric name ${JSON.stringify(name.slice(0, 64))} must be 1 to ${AGENT_METRIC_NAME_LENGTH_MAX} characters without control characters`);
  }
}

/**
 * Flattens dimensions into bare metric names: `name` for a null dimension, `${dimension}.${name}` otherwise; throws AGENT_PARAMS_INVALID on a duplicate name, more than AGENT_POST_METRICS_MAX metrics, or a name that is not a valid metric name.
 * This owns the count and the names; the dimensions' shape (a dimension null or a non-empty string) is metricsPostParams' rule (method-params.ts), applied first.
 */
export function flattenMetrics(dimensions: readonly WireDimension[]): Record<string, ResultMetric> {
  const flat = new Map<string, ResultMetric>();
  dimensions.forEach(([dimension, metrics], index) => {
    for (const [name, metric] of Object.entries(metrics)) {
      const field = `metrics[${index}][1].${name}`;
      if (name.length === 0) throw invalid(field, 'a metric name is empty');
      const fullName = dimension === null ? name : `${dimension}.${name}`;
      checkMetricName(fullName, field);
      if (flat.has(fullName)) throw invalid(field, `metric ${JSON.stringify(fullName)} is posted twice`);
      if (flat.size >= AGENT_POST_METRICS_MAX) throw invalid('metrics', `more than ${AGENT_POST_METRICS_MAX} metrics in one post`);
      flat.set(fullName, toResultMetric(metric, field));
    }
  });
  // fromEntries defines own properties, so a metric named __proto__ stays a metric.
  return Object.fromEntries(flat);
}

function integerText(t: IntegerType, value: number | string): string {
  if (typeof value === 'number') assert(Number.isInteger(value), `${t} metric value is an integer`);
  const max = INTEGER_RANGES[t][1];
  // A /proc counter at 2^64-1 read as a double is 2^64: the type's maximum, rounded, stands for it.
  // BigInt keeps large integers out of exponent notation (String(1e21) is '1e+21').
  const text = typeof value === 'number' ? (value === Number(max) ? max : BigInt(value)).toString() : value;
  const parsed = parseInteger(text);
  assert(parsed !== undefined && DECIMAL_INTEGER.test(text), `${t} metric value is a decimal integer`);
  assert(parsed >= INTEGER_RANGES[t][0] && parsed <= INTEGER_RANGES[t][1], `${t} metric value is within its range`);
  return text;
}

/** The wire form of a number for a type (agent side): integers in decimal, doubles as JS text. */
export function wireMetric(t: WireMetricType, value: number | string | boolean, unit: string): WireMetric {
  if (t === 'string') return { t, v: String(value), u: unit };
  if (t === 'bool') {
    assert(typeof value === 'boolean' || value === 'true' || value === 'false', 'a bool metric value is a boolean');
    return { t, v: String(value), u: unit };
  }
  assert(typeof value !== 'boolean', `a ${t} metric value is a number`);
  if (isIntegerType(t)) return { t, v: integerText(t, value), u: unit };
  const text = typeof value === 'number' ? String(value) : value;
  assert(DECIMAL_NUMBER.test(text) && Number.isFinite(Number(text)), `a ${t} metric value is a finite number`);
  return { t, v: text, u: unit };
}
