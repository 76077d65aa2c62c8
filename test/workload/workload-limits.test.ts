// Tests of checkWorkloadShape: the standard workload passes, each limit is refused with CONFIG_INVALID naming its option.
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/core/errors.js';
import { INGEST_BATCH_POINTS_MAX } from '../../src/core/limits.js';
import {
  checkWorkloadShape,
  WORKLOAD_BATCH_POINTS_MAX,
  WORKLOAD_INTERVAL_MS_MIN,
  WORKLOAD_POINTS_MAX,
  WORKLOAD_SERIES_MAX,
  WORKLOAD_TOTAL_POINTS_MAX,
  type WorkloadShape,
} from '../../src/workload/workload-limits.js';

const STANDARD: WorkloadShape = { series: 1_000, points: 2_880, intervalMs: 30_000, batchPoints: 10_000, seed: 42, endMs: 1_763_990_000_000 };

function refusal(shape: WorkloadShape): unknown {
  try {
    checkWorkloadShape(shape);
  } catch (error) {
    expect(isStrataError(error) && error.code).toBe('CONFIG_INVALID');
    return isStrataError(error) ? error.details['option'] : undefined;
  }
  return 'accepted';
}

describe('checkWorkloadShape', () => {
  it('accepts the standard workload and the largest allowed one', () => {
    expect(refusal(STANDARD)).toBe('accepted');
    expect(refusal({ ...STANDARD, series: 500, points: WORKLOAD_POINTS_MAX, batchPoints: WORKLOAD_BATCH_POINTS_MAX })).toBe('accepted');
    expect(WORKLOAD_BATCH_POINTS_MAX).toBe(INGEST_BATCH_POINTS_MAX);
  });

  it('refuses each option outside its limit, naming it', () => {
    expect(refusal({ ...STANDARD, series: 0 })).toBe('series');
    expect(refusal({ ...STANDARD, series: WORKLOAD_SERIES_MAX + 1 })).toBe('series');
    expect(refusal({ ...STANDARD, points: WORKLOAD_POINTS_MAX + 1 })).toBe('points');
    expect(refusal({ ...STANDARD, intervalMs: WORKLOAD_INTERVAL_MS_MIN - 1 })).toBe('intervalMs');
    expect(refusal({ ...STANDARD, batchPoints: WORKLOAD_BATCH_POINTS_MAX + 1 })).toBe('batchPoints');
    expect(refusal({ ...STANDARD, seed: -1 })).toBe('seed');
    expect(refusal({ ...STANDARD, seed: 1.5 })).toBe('seed');
    expect(refusal({ ...STANDARD, endMs: -5 })).toBe('endMs');
  });

  it('refuses more than WORKLOAD_TOTAL_POINTS_MAX points in all, and data starting before 1970', () => {
    expect(refusal({ ...STANDARD, series: WORKLOAD_SERIES_MAX, points: WORKLOAD_TOTAL_POINTS_MAX / WORKLOAD_SERIES_MAX + 1 })).toBe('series');
    expect(refusal({ ...STANDARD, endMs: 1_000_000 })).toBe('endMs');
  });
});
