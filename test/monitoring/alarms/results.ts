// Owns hand-made CheckResults for the alarm tests: a zone, a time, availability and metrics written as plain values.
import type { CheckResult, ResultMetric } from '../../../src/monitoring/check-result.js';

/** A metric from a plain value: numbers are type 'n' (integers 'l'), strings type 's'. */
function metric(value: number | string): ResultMetric {
  if (typeof value === 'string') return { type: 's', data: value, unit: 'unknown' };
  return { type: Number.isInteger(value) ? 'l' : 'n', data: value, unit: 'unknown' };
}

/** A check result with the given metrics; available unless said otherwise. */
export function result(
  metrics: Record<string, number | string>,
  options: { zone?: string; timestampMs?: number; available?: boolean; status?: string } = {},
): CheckResult {
  return {
    monitoringZoneId: options.zone ?? 'mzA',
    timestampMs: options.timestampMs ?? 1_000_000,
    available: options.available ?? true,
    status: options.status ?? 'code=200,rt=0.010s,bytes=2',
    metrics: Object.fromEntries(Object.entries(metrics).map(([name, value]) => [name, metric(value)])),
  };
}
