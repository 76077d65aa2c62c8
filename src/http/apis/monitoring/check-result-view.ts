// Owns the reference JSON of a check result: rendering one (test-check) and reading the ones a test-alarm body pastes back.
import type { CheckResult, ResultMetric } from '../../../monitoring/check-result.js';
import { METRIC_TYPE_CODES } from '../../../monitoring/check-result.js';
import { fieldError } from '../../../monitoring/monitoring-errors.js';
import { CHECK_RESULT_METRICS_MAX, CHECK_RESULT_TEXT_LENGTH_MAX, HTTP_CHECK_BODY_BYTES_MAX } from '../../../monitoring/monitoring-limits.js';
import type { JsonSchema } from '../../../monitoring/schemas/json-schema.js';

/**
 * One result as test-check answers it: `{timestamp, monitoring_zone_id, available, status,
 * metrics: {name: {type, data, unit}}, body?}`. Numeric data is a JSON number and string data
 * (type 's') a string, as in the webhook payload's `details.metrics` (spec 6.1 allows both); the
 * reference prints every value as a string, which test-alarm accepts too.
 */
export function checkResultView(result: CheckResult): Record<string, unknown> {
  // fromEntries defines own properties, so a metric named __proto__ stays a metric.
  const metrics = Object.fromEntries(Object.entries(result.metrics).map(([name, metric]) => [name, { type: metric.type, data: metric.data, unit: metric.unit }]));
  return {
    timestamp: result.timestampMs,
    monitoring_zone_id: result.monitoringZoneId,
    available: result.available,
    status: result.status,
    metrics,
    ...(result.body !== undefined ? { body: result.body } : {}),
  };
}

/** One metric of a pasted result: numeric data may be a number or its decimal text (the reference's form). */
const METRIC_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'data'],
  properties: {
    type: { type: 'string', enum: METRIC_TYPE_CODES, description: 'Type code: i, I, l, L, n (numbers) or s (string).' },
    data: { anyOf: [{ type: 'number' }, { type: 'string', maxLength: CHECK_RESULT_TEXT_LENGTH_MAX }], description: 'The value: a number, its decimal text, or a string for type s.' },
    unit: { type: 'string', maxLength: CHECK_RESULT_TEXT_LENGTH_MAX, description: "Unit label; 'unknown' when left out." },
  },
};

/** One check result as test-check returns it, as a test-alarm body's check_data item. */
export const CHECK_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['metrics'],
  description: 'A check result in the shape test-check returns.',
  properties: {
    timestamp: { type: 'integer', minimum: 0, description: 'When the run started, integer ms (default: now).' },
    monitoring_zone_id: { type: ['string', 'null'], maxLength: CHECK_RESULT_TEXT_LENGTH_MAX, description: 'Zone of the run; null or left out for an agent check.' },
    available: { type: 'boolean', description: 'Whether the check ran to completion (default true).' },
    status: { type: 'string', maxLength: CHECK_RESULT_TEXT_LENGTH_MAX, description: 'Status text of the run.' },
    metrics: {
      type: 'object',
      maxProperties: CHECK_RESULT_METRICS_MAX,
      propertyNames: { minLength: 1, maxLength: CHECK_RESULT_TEXT_LENGTH_MAX },
      additionalProperties: METRIC_SCHEMA,
      description: `The metrics by name, at most ${CHECK_RESULT_METRICS_MAX}.`,
    },
    body: { type: 'string', maxLength: HTTP_CHECK_BODY_BYTES_MAX, description: 'Response body (remote.http with include_body).' },
  },
};

/** A check_data item as CHECK_RESULT_SCHEMA admits it. */
export interface CheckResultBody {
  readonly timestamp?: number;
  readonly monitoring_zone_id?: string | null;
  readonly available?: boolean;
  readonly status?: string;
  readonly metrics: Readonly<Record<string, { readonly type: ResultMetric['type']; readonly data: number | string; readonly unit?: string }>>;
  readonly body?: string;
}

/** Decimal number text, as the reference prints numeric data ("257", "0.25", "-1e3"). */
const NUMBER_TEXT = /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

function metricOf(index: number, name: string, given: CheckResultBody['metrics'][string]): ResultMetric {
  const unit = given.unit ?? 'unknown';
  if (given.type === 's') return { type: 's', data: String(given.data), unit };
  // JSON may spell a number too large for a double (1e400), which parses as Infinity: refused like bad text.
  const data = typeof given.data === 'number' ? given.data : NUMBER_TEXT.test(given.data) ? Number(given.data) : Number.NaN;
  if (!Number.isFinite(data)) throw fieldError('check_data', `item ${index}: metric ${JSON.stringify(name.slice(0, 40))} of type ${given.type} needs a finite number`);
  return { type: given.type, data, unit };
}

/** The CheckResult of a schema-valid check_data item; numeric text becomes a number (MONITORING_FIELD_INVALID when it is not one). */
export function checkResultOf(item: CheckResultBody, index: number, nowMs: number): CheckResult {
  const metrics: Record<string, ResultMetric> = Object.fromEntries(Object.entries(item.metrics).map(([name, given]) => [name, metricOf(index, name, given)]));
  return {
    monitoringZoneId: item.monitoring_zone_id ?? '',
    timestampMs: item.timestamp ?? nowMs,
    available: item.available ?? true,
    status: item.status ?? '',
    metrics,
    ...(item.body !== undefined ? { body: item.body } : {}),
  };
}
