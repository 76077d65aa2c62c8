// Checks the bounds of a tenant's suppressions over a real in-memory monitoring file: target items at SUPPRESSION_TARGET_ENTRIES_MAX, the account limit counting only suppressions not ended, and pruning ended ones (bounded, earliest end first, each tenant's index kept right).
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { ResourceLimits } from '../../../src/monitoring/account/account-limits.js';
import { SUPPRESSION_TARGET_ENTRIES_MAX, SUPPRESSION_TARGETS_MAX } from '../../../src/monitoring/monitoring-limits.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import type { SuppressionCreate } from '../../../src/monitoring/schemas/suppression-schema.js';

const T0 = Date.parse('2025-06-02T00:00:00Z');
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

let clock: ManualClock;
let monitoring: MonitoringService | undefined;

function open(limits?: Partial<ResourceLimits>): MonitoringService['suppressions'] {
  clock = new ManualClock(T0);
  monitoring = openMonitoring({ dir: undefined, clock, ...(limits !== undefined ? { limits } : {}) });
  return monitoring.suppressions;
}

afterEach(() => monitoring?.close());

/** `n` distinct ids with a prefix. */
const ids = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** A body naming `n` target items (full lists first: entities, checks, alarms, then plans), ending in an hour. */
function naming(n: number, tag: string): SuppressionCreate {
  const take = (k: number): number => Math.max(0, Math.min(SUPPRESSION_TARGETS_MAX, n - k * SUPPRESSION_TARGETS_MAX));
  return {
    end_time: clock.now() + HOUR_MS,
    entities: ids(`en${tag}x`, take(0)),
    checks: ids(`en${tag}:ch`, take(1)),
    alarms: ids(`en${tag}:al`, take(2)),
    notification_plans: ids(`np${tag}x`, take(3)),
  };
}

/** Creates suppressions naming `n` target items together (full ones first); returns their ids. */
function fill(service: MonitoringService['suppressions'], tenant: string, n: number, tag: string): string[] {
  const made: string[] = [];
  for (let left = n, k = 0; left > 0; k++) {
    const size = Math.min(4 * SUPPRESSION_TARGETS_MAX, left);
    made.push(service.create(tenant, naming(size, `${tag}${k}`)));
    left -= size;
  }
  return made;
}

/** Whatever `work` throws (it must throw). */
function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

const TARGET_LIMIT = { code: 'MONITORING_LIMIT_REACHED', details: { type: 'SuppressionTarget', limit: SUPPRESSION_TARGET_ENTRIES_MAX } };

describe('suppression bounds', () => {
  it('admits target items up to SUPPRESSION_TARGET_ENTRIES_MAX over the tenant, exactly, and refuses one more; another tenant has its own', () => {
    const service = open();
    const full = 4 * SUPPRESSION_TARGETS_MAX;
    const made = fill(service, 't1', SUPPRESSION_TARGET_ENTRIES_MAX, 'k');
    expect(made.length).toBe(Math.ceil(SUPPRESSION_TARGET_ENTRIES_MAX / full));
    expect(thrown(() => service.create('t1', naming(1, 'over')))).toMatchObject(TARGET_LIMIT);
    expect(service.count('t1')).toBe(made.length);
    expect(service.activeAt('t1', { entityId: 'enover' + 'x0' }, T0)).toEqual([]);
    service.create('t2', naming(full, 'theirs'));
    // Deleting one makes room for what it named, not one more.
    service.remove('t1', made[0] as string);
    service.create('t1', naming(full, 'again'));
    expect(thrown(() => service.create('t1', naming(1, 'over')))).toMatchObject(TARGET_LIMIT);
  });

  it('refuses an update that adds items past the bound; one that keeps or removes items passes, even at the bound', () => {
    const service = open();
    const big = fill(service, 't1', SUPPRESSION_TARGET_ENTRIES_MAX - 2, 'big')[0] as string;
    const later = service.create('t1', { start_time: T0 + HOUR_MS, end_time: T0 + 2 * HOUR_MS, entities: ['enA', 'enB'] });
    expect(thrown(() => service.update('t1', later, { entities: ['enA', 'enB', 'enC'] }))).toMatchObject(TARGET_LIMIT);
    expect(service.suppression('t1', later).doc.entities).toEqual(['enA', 'enB']);
    service.update('t1', later, { entities: ['enC', 'enD'] });
    service.update('t1', later, { entities: ['enC'] });
    service.update('t1', later, { entities: ['enC', 'enD'] });
    service.update('t1', big, { end_time: T0 + 3 * HOUR_MS });
    expect(service.activeAt('t1', { entityId: 'enD' }, T0 + HOUR_MS)).toEqual([later]);
  });

  it('ended suppressions hold their items until pruned or deleted', () => {
    const service = open();
    const ended = fill(service, 't1', SUPPRESSION_TARGET_ENTRIES_MAX, 'all');
    clock.advance(2 * HOUR_MS);
    expect(monitoring?.limits.usage('t1').suppressions).toBe(0);
    expect(thrown(() => service.create('t1', naming(1, 'next')))).toMatchObject(TARGET_LIMIT);
    expect(service.pruneEnded(clock.now(), 1)).toBe(1);
    expect(service.count('t1')).toBe(ended.length - 1);
    service.create('t1', naming(1, 'next'));
  });

  it('the account limit counts only suppressions not ended: one that ended (end_time <= now) frees its place, and reviving it needs one', () => {
    const service = open({ suppressions: 2 });
    const a = service.create('t1', { end_time: T0 + HOUR_MS, entities: ['enA'] });
    const b = service.create('t1', { end_time: T0 + 2 * HOUR_MS, entities: ['enB'] });
    const limit = { code: 'MONITORING_LIMIT_REACHED', details: { type: 'Suppression', limit: 2 } };
    expect(thrown(() => service.create('t1', { end_time: T0 + HOUR_MS, entities: ['enC'] }))).toMatchObject(limit);
    // Another tenant has a limit of its own.
    service.create('t2', { end_time: T0 + HOUR_MS, entities: ['enA'] });
    service.create('t2', { end_time: T0 + HOUR_MS, entities: ['enA'] });
    clock.advance(HOUR_MS - 1);
    expect(monitoring?.limits.usage('t1').suppressions).toBe(2);
    clock.advance(1); // a ends now: end_time is exclusive
    expect(monitoring?.limits.usage('t1').suppressions).toBe(1);
    const c = service.create('t1', { end_time: T0 + 5 * HOUR_MS, entities: ['enC'] });
    expect(service.count('t1')).toBe(3);
    // Moving the end of an ended one back into the future takes a place again: refused while full.
    expect(thrown(() => service.update('t1', a, { end_time: T0 + 3 * HOUR_MS }))).toMatchObject(limit);
    expect(service.suppression('t1', a).doc.end_time).toBe(T0 + HOUR_MS);
    // Ending one now frees its place at once.
    service.update('t1', b, { end_time: 0 });
    service.update('t1', a, { end_time: T0 + 3 * HOUR_MS });
    expect(service.activeAt('t1', { entityId: 'enA' }, clock.now())).toEqual([a]);
    expect(monitoring?.limits.usage('t1').suppressions).toBe(2);
    expect(service.activeAt('t1', { entityId: 'enC' }, clock.now())).toEqual([c]);
  });

  it('prunes suppressions that ended before the cut, earliest end first, at most the batch asked for, in every tenant, and only those', () => {
    const service = open();
    const made = (tenant: string, endOffsetMs: number): string => service.create(tenant, { end_time: T0 + endOffsetMs, entities: ['enA'] });
    const t1Early = made('t1', HOUR_MS);
    const t2Middle = made('t2', 2 * HOUR_MS);
    const t1Late = made('t1', 3 * HOUR_MS);
    const t1AtCut = made('t1', 4 * HOUR_MS);
    const t2Open = made('t2', 10 * DAY_MS);
    service.appendLog('t1', { timestampMs: T0, entityId: 'enA', alarmId: 'alA', checkId: 'chA', planId: 'npA', suppressions: [t1Early], state: 'CRITICAL', previousState: 'OK', txnId: 'txn-1' });
    // The indexes of both tenants are loaded before the prune, and must forget what it deletes.
    expect(service.activeAt('t1', { entityId: 'enA' }, T0)).toEqual([t1Early, t1Late, t1AtCut].sort());
    expect(service.activeAt('t2', { entityId: 'enA' }, T0)).toEqual([t2Middle, t2Open].sort());
    clock.advance(DAY_MS);
    const cut = T0 + 4 * HOUR_MS;
    expect(service.pruneEnded(cut, 0)).toBe(0);
    expect(service.pruneEnded(cut, 2)).toBe(2);
    expect(service.activeAt('t1', { entityId: 'enA' }, T0)).toEqual([t1Late, t1AtCut].sort());
    expect(service.activeAt('t2', { entityId: 'enA' }, T0)).toEqual([t2Open]);
    expect(service.pruneEnded(cut, 10)).toBe(1);
    expect(service.pruneEnded(cut, 10)).toBe(0);
    expect(service.activeAt('t1', { entityId: 'enA' }, T0)).toEqual([t1AtCut]);
    expect(service.list('t1', { limit: 10 }).values.map((one) => one.id)).toEqual([t1AtCut]);
    expect(service.list('t2', { limit: 10 }).values.map((one) => one.id)).toEqual([t2Open]);
    // A log entry keeps the ids of the suppressions that covered its change, deleted or not.
    expect(service.listLogs('t1', { limit: 10, fromMs: T0, toMs: T0 + 1 }).values[0]?.suppressions).toEqual([t1Early]);
  });
});
