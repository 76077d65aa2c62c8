// Unit tests of retention/policy: resolving a partial table over the defaults and the expiry cutoff.
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import { DAY_MS } from '../../src/core/time.js';
import { DEFAULT_RETENTION_MS, type RetentionTable } from '../../src/model/resolution.js';
import { expiryCutoffMs, resolveRetention } from '../../src/retention/policy.js';

function rejects(partial: unknown): StrataError {
  try {
    resolveRetention(partial as Partial<RetentionTable>);
  } catch (error) {
    if (error instanceof StrataError) return error;
    throw error;
  }
  throw new Error('resolveRetention accepted an invalid table');
}

describe('resolveRetention', () => {
  it('uses the spec defaults when nothing is given', () => {
    expect(resolveRetention()).toEqual({
      FULL: 2 * DAY_MS,
      MIN5: 10 * DAY_MS,
      MIN20: 20 * DAY_MS,
      MIN60: 155 * DAY_MS,
      MIN240: 300 * DAY_MS,
      MIN1440: 5 * 365 * DAY_MS,
    });
    expect(resolveRetention({})).toEqual(DEFAULT_RETENTION_MS);
  });

  it('returns a fresh table, so callers cannot change the defaults', () => {
    expect(resolveRetention()).not.toBe(DEFAULT_RETENTION_MS);
  });

  it('overrides only the resolutions given', () => {
    expect(resolveRetention({ FULL: DAY_MS, MIN1440: 10 * 365 * DAY_MS })).toEqual({
      ...DEFAULT_RETENTION_MS,
      FULL: DAY_MS,
      MIN1440: 10 * 365 * DAY_MS,
    });
  });

  it('accepts equal retention at neighbouring resolutions', () => {
    expect(resolveRetention({ FULL: 10 * DAY_MS }).FULL).toBe(10 * DAY_MS);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '1000', null])('refuses %s as a retention', (value) => {
    const error = rejects({ MIN5: value });
    expect(error.code).toBe('STORE_OPTIONS_INVALID');
    expect(error.message).toContain('retention.MIN5 must be a positive integer number of milliseconds');
  });

  it('refuses a coarser resolution that keeps data shorter than a finer one', () => {
    const error = rejects({ FULL: 11 * DAY_MS });
    expect(error.code).toBe('STORE_OPTIONS_INVALID');
    expect(error.message).toBe(`retention.MIN5 (${10 * DAY_MS} ms) must be at least retention.FULL (${11 * DAY_MS} ms)`);
    expect(rejects({ MIN240: 100 * DAY_MS }).message).toContain('retention.MIN240');
  });

  it('refuses unknown resolutions and non-objects', () => {
    expect(rejects({ MIN10: DAY_MS }).message).toContain('unknown resolution "MIN10"');
    expect(rejects({ full: DAY_MS }).code).toBe('STORE_OPTIONS_INVALID');
    expect(rejects(5).code).toBe('STORE_OPTIONS_INVALID');
    expect(rejects(null).code).toBe('STORE_OPTIONS_INVALID');
    expect(rejects([1]).code).toBe('STORE_OPTIONS_INVALID');
  });
});

describe('expiryCutoffMs', () => {
  it('is now minus the retention of the resolution', () => {
    const table = resolveRetention();
    expect(expiryCutoffMs(100 * DAY_MS, table, 'FULL')).toBe(98 * DAY_MS);
    expect(expiryCutoffMs(100 * DAY_MS, table, 'MIN20')).toBe(80 * DAY_MS);
  });
});
