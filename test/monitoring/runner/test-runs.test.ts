// Tests of TestRuns: the per-tenant and server-wide bounds on on-demand test runs, refusal at once with MONITORING_TEST_RUNS_BUSY, and slots given back after success, failure and timeout.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import { isStrataError, StrataError } from '../../../src/core/errors.js';
import type { CheckResult } from '../../../src/monitoring/check-result.js';
import type { CheckDoc } from '../../../src/monitoring/check-rules.js';
import type { StoredDoc } from '../../../src/monitoring/doc-store.js';
import type { EntityDoc } from '../../../src/monitoring/entity-rules.js';
import { TEST_RUNS_CONCURRENCY_MAX, TEST_RUNS_PER_TENANT_MAX } from '../../../src/monitoring/monitoring-limits.js';
import type { MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import { AddressGuard } from '../../../src/monitoring/probes/address-guard.js';
import type { Probe } from '../../../src/monitoring/probes/probe-types.js';
import { CheckRunner } from '../../../src/monitoring/runner/check-runner.js';
import { DEFAULT_TEST_RUN_LIMITS, TestRuns } from '../../../src/monitoring/runner/test-runs.js';
import { collectingLogger, httpCheckBody, monitoringWithEntity } from './runner-fixtures.js';

/** A runner whose runs settle only when the test says so. */
function heldRunner(): { runner: Pick<CheckRunner, 'runOnce'>; calls: string[]; settle(index: number, outcome: CheckResult[] | Error): void } {
  const calls: string[] = [];
  const pending: { resolve(results: CheckResult[]): void; reject(error: Error): void }[] = [];
  return {
    calls,
    runner: {
      runOnce: (tenant) =>
        new Promise<CheckResult[]>((resolve, reject) => {
          calls.push(tenant);
          pending.push({ resolve, reject });
        }),
    },
    settle(index, outcome) {
      const run = pending[index];
      if (run === undefined) throw new Error(`no run ${index}`);
      if (outcome instanceof Error) run.reject(outcome);
      else run.resolve(outcome);
    },
  };
}

const ENTITY = { id: 'enX', doc: {} } as unknown as StoredDoc<EntityDoc>;
const CHECK = { type: 'remote.http', timeout: 5 } as unknown as CheckDoc;
const RESULT: CheckResult = { monitoringZoneId: 'mzdfw', timestampMs: 1, available: true, status: 'ok', metrics: {} };

/** The error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<StrataError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!isStrataError(error)) throw new Error(`expected a StrataError, got ${String(error)}`);
  return error;
}

describe('TestRuns', () => {
  it('uses the named limits by default', () => {
    expect(DEFAULT_TEST_RUN_LIMITS).toEqual({ concurrencyMax: TEST_RUNS_CONCURRENCY_MAX, perTenantMax: TEST_RUNS_PER_TENANT_MAX });
    expect(TEST_RUNS_PER_TENANT_MAX).toBeLessThanOrEqual(TEST_RUNS_CONCURRENCY_MAX);
  });

  it('refuses a tenant past its limit at once, without running, while another tenant gets through', async () => {
    const held = heldRunner();
    const runs = new TestRuns(held.runner, { concurrencyMax: 10, perTenantMax: 2 });
    const first = runs.run('t1', ENTITY, CHECK);
    const second = runs.run('t1', ENTITY, CHECK);
    const error = await rejection(runs.run('t1', ENTITY, CHECK));
    expect(error.code).toBe('MONITORING_TEST_RUNS_BUSY');
    expect(error.kind).toBe('unavailable');
    expect(error.details).toEqual({ scope: 'tenant', limit: 2 });
    const other = runs.run('t2', ENTITY, CHECK);
    expect(held.calls).toEqual(['t1', 't1', 't2']);
    expect(runs.stats()).toEqual({ inFlight: 3, tenants: 2, refused: 1 });
    held.settle(0, [RESULT]);
    held.settle(1, [RESULT]);
    held.settle(2, [RESULT]);
    await expect(Promise.all([first, second, other])).resolves.toEqual([[RESULT], [RESULT], [RESULT]]);
    expect(runs.stats()).toEqual({ inFlight: 0, tenants: 0, refused: 1 });
  });

  it('refuses any tenant once the server-wide limit is reached', async () => {
    const held = heldRunner();
    const runs = new TestRuns(held.runner, { concurrencyMax: 3, perTenantMax: 2 });
    const admitted = [runs.run('t1', ENTITY, CHECK), runs.run('t1', ENTITY, CHECK), runs.run('t2', ENTITY, CHECK)];
    const error = await rejection(runs.run('t3', ENTITY, CHECK));
    expect(error.details).toEqual({ scope: 'server', limit: 3 });
    expect(held.calls).toHaveLength(3);
    for (let i = 0; i < 3; i++) held.settle(i, []);
    await Promise.all(admitted);
    const later = runs.run('t3', ENTITY, CHECK);
    held.settle(3, [RESULT]);
    await expect(later).resolves.toEqual([RESULT]);
  });

  it('gives the slot back when a run fails', async () => {
    const held = heldRunner();
    const runs = new TestRuns(held.runner, { concurrencyMax: 4, perTenantMax: 1 });
    const failing = runs.run('t1', ENTITY, CHECK);
    expect((await rejection(runs.run('t1', ENTITY, CHECK))).code).toBe('MONITORING_TEST_RUNS_BUSY');
    held.settle(0, new Error('probe bug'));
    await expect(failing).rejects.toThrow('probe bug');
    expect(runs.stats()).toMatchObject({ inFlight: 0, tenants: 0 });
    const next = runs.run('t1', ENTITY, CHECK);
    held.settle(1, [RESULT]);
    await expect(next).resolves.toEqual([RESULT]);
  });

  it('refuses limits that are not positive integers or a tenant limit above the server limit', () => {
    const { runner } = heldRunner();
    expect(() => new TestRuns(runner, { concurrencyMax: 0, perTenantMax: 1 })).toThrow();
    expect(() => new TestRuns(runner, { concurrencyMax: 2, perTenantMax: 3 })).toThrow();
    expect(() => new TestRuns(runner, { concurrencyMax: 2, perTenantMax: 1.5 })).toThrow();
  });
});

describe('TestRuns with a real CheckRunner', () => {
  let monitoring: MonitoringService;
  let entity: StoredDoc<EntityDoc>;

  beforeEach(() => {
    const made = monitoringWithEntity(systemClock);
    monitoring = made.monitoring;
    entity = monitoring.entities.entity('t1', made.entityId);
  });
  afterEach(() => monitoring.close());

  it('gives the slot back when a run times out', async () => {
    // A probe that never answers but honours its abort: the runner ends it at the check's timeout.
    const hanging: Probe = ({ signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ available: false, status: 'aborted', metrics: {} })));
    let answered = 0;
    const quick: Probe = async () => ({ available: true, status: `ok ${++answered}`, metrics: {} });
    let probe: Probe = hanging;
    const runner = new CheckRunner({ probes: new Map([['remote.http', (context) => probe(context)]]), guard: new AddressGuard(), clock: systemClock, logger: collectingLogger() });
    const runs = new TestRuns(runner, { concurrencyMax: 4, perTenantMax: 1 });
    const id = monitoring.entities.createCheck('t1', entity.id, httpCheckBody('http://127.0.0.1:9/', { monitoring_zones_poll: ['mzdfw'] }));
    const check = { ...monitoring.entities.checkWithSecrets('t1', entity.id, id).doc, timeout: 0.05 };
    const slow = runs.run('t1', entity, check);
    expect((await rejection(runs.run('t1', entity, check))).details).toEqual({ scope: 'tenant', limit: 1 });
    const [timedOut] = await slow;
    expect(timedOut?.available).toBe(false);
    expect(runs.stats()).toMatchObject({ inFlight: 0, tenants: 0 });
    probe = quick;
    const [later] = await runs.run('t1', entity, check);
    expect(later?.available).toBe(true);
  });
});
