// Owns admitting on-demand test runs (test-check, test of a saved check, test-alarm with check_id): bounded in flight per process and per tenant, refused at once beyond.
import { StrataError } from '../../core/errors.js';
import type { CheckResult } from '../check-result.js';
import type { CheckDoc } from '../check-rules.js';
import type { StoredDoc } from '../doc-store.js';
import type { EntityDoc } from '../entity-rules.js';
import { InFlightSlots, type InFlightLimits, type SlotScope } from '../in-flight-slots.js';
import { TEST_RUNS_CONCURRENCY_MAX, TEST_RUNS_PER_TENANT_MAX } from '../monitoring-limits.js';
import type { CheckRunner } from './check-runner.js';

/** How many test runs may be in flight at once: in the whole process, and for one tenant. */
export type TestRunLimits = InFlightLimits;

/** The limits a runtime uses unless told otherwise. */
export const DEFAULT_TEST_RUN_LIMITS: TestRunLimits = { concurrencyMax: TEST_RUNS_CONCURRENCY_MAX, perTenantMax: TEST_RUNS_PER_TENANT_MAX };

/** What the test runs counters show. */
export interface TestRunsStats {
  /** Test runs in flight, every tenant together. */
  readonly inFlight: number;
  /** Tenants with a test run in flight. */
  readonly tenants: number;
  /** Test runs refused since start because a limit was reached. */
  readonly refused: number;
}

/**
 * Runs checks once on demand outside the scheduler's queue, under their own bound: at most
 * `concurrencyMax` runs in flight in the process and `perTenantMax` per tenant. A run past either
 * is refused at once with MONITORING_TEST_RUNS_BUSY (503 with Retry-After); nothing waits. Each run
 * is bounded in time by the runner (the check's timeout plus CHECK_PROBE_GRACE_MS), so a slot is
 * always given back, whether the run succeeded, failed or timed out.
 */
export class TestRuns {
  private refused = 0;
  private readonly slots: InFlightSlots;

  constructor(
    private readonly runner: Pick<CheckRunner, 'runOnce'>,
    limits: TestRunLimits = DEFAULT_TEST_RUN_LIMITS,
  ) {
    this.slots = new InFlightSlots('test run', limits, (scope, limit) => this.busy(scope, limit));
  }

  /**
   * Runs `check` once from its zones (CheckRunner.runOnce) when a slot is free for `tenant`;
   * otherwise throws MONITORING_TEST_RUNS_BUSY before anything runs. The admission is decided
   * synchronously, at the call.
   */
  async run(tenant: string, entity: StoredDoc<EntityDoc>, check: CheckDoc, zones?: readonly string[]): Promise<CheckResult[]> {
    return this.slots.run(tenant, () => this.runner.runOnce(tenant, entity, check, zones));
  }

  /** The counters. */
  stats(): TestRunsStats {
    return { inFlight: this.slots.running(), tenants: this.slots.tenants(), refused: this.refused };
  }

  private busy(scope: SlotScope, limit: number): StrataError {
    this.refused++;
    const whose = scope === 'tenant' ? 'this tenant' : 'all tenants';
    return new StrataError('MONITORING_TEST_RUNS_BUSY', `Too many check test runs in flight for ${whose} (at most ${limit}); retry after the Retry-After seconds.`, { scope, limit });
  }
}
