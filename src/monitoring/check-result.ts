// Owns the shape of one run of one check from one monitoring zone: what probes produce, alarms evaluate and test-check returns.

/** Metric type codes (Reconnoiter's): i int32, I uint32, l int64, L uint64, n double, s string. */
export const METRIC_TYPE_CODES = ['i', 'I', 'l', 'L', 'n', 's'] as const;
/** A metric type code. */
export type MetricTypeCode = (typeof METRIC_TYPE_CODES)[number];

/** One metric of a check result: its type code, value and unit label. */
export interface ResultMetric {
  readonly type: MetricTypeCode;
  /** A number for numeric types, a string for type 's'. */
  readonly data: number | string;
  /** Unit label: 'bytes', 'milliseconds', 'seconds', 'percent', 'unknown'... */
  readonly unit: string;
}

/** The metrics of a result by bare metric name (`code`, not `mzdfw.code`). */
export type ResultMetrics = Readonly<Record<string, ResultMetric>>;

/** One run of a check from one zone (the reference's test-check result and alarm observation). */
export interface CheckResult {
  readonly monitoringZoneId: string;
  /** When the run started, integer ms. */
  readonly timestampMs: number;
  /** False when the check could not run to completion (refused, timed out, unresolvable...). */
  readonly available: boolean;
  /** Short human text, e.g. `code=200,rt=0.257s,bytes=0`, or why the run failed. */
  readonly status: string;
  readonly metrics: ResultMetrics;
  /** The response body (remote.http with include_body), at most HTTP_CHECK_BODY_BYTES_MAX bytes as text. */
  readonly body?: string;
}
