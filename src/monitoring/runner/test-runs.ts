// Owns admitting on-demand test runs (test-check, test of a saved check, test-alarm with check_id): bounded in flight per process and per tenant, refused at once beyond.
import { assert } from '../../core/assert.js';
import { StrataError } from '../../core/errors.js';
import type { CheckResult } from '../check-result.js';
import type { CheckDoc } from '../check-rules.js';
import type { StoredDoc } from '../doc-store.js';
import type { EntityDoc } from '../entity-rules.js';
import { TEST_RUNS_CONCURRENCY_MAX, TEST_RUNS_PER_TENANT_MAX } from '../monitoring-limits.js';
import type { CheckRunner } from './check-runner.js';

/** How many test runs may be in flight at once. */
export interface TestRunLimits {
  /** In the whole process, every tenant together. */
  readonly concurrencyMax: number;
  /** For one tenant. */
  readonly perTenantMax: number;
}

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
  private inFlight = 0;
  private refused = 0;
  /** Only tenants with a run in flight, so the map holds at most concurrencyMax entries. */
  private readonly byTenant = new Map<string, number>();

  constructor(
    private readonly runner: Pick<CheckRunner, 'runOnce'>,
    private readonly limits: TestRunLimits = DEFAULT_TEST_RUN_LIMITS,
  ) {
    assert(Number.isSafeInteger(limits.concurrencyMax) && limits.concurrencyMax >= 1, 'the test run concurrency is a positive integer');
    assert(Number.isSafeInteger(limits.perTenantMax) && limits.perTenantMax >= 1 && limits.perTenantMax <= limits.concurrencyMax, 'the per-tenant test run limit is a positive integer within the concurrency');
  }

  /**
   * Runs `check` once from its zones (CheckRunner.runOnce) when a slot is free for `tenant`;
   * otherwise throws MONITORING_TEST_RUNS_BUSY before anything runs. The admission is decided
   * synchronously, at the call.
   */
  async run(tenant: string, entity: StoredDoc<EntityDoc>, check: CheckDoc, zones?: readonly string[]): Promise<CheckResult[]> {
    const release = this.admit(tenant);
    try {
      return await this.runner.runOnce(tenant, entity, check, zones);
    } finally {
      release();
    }
  }

  /** The counters. */
  stats(): TestRunsStats {
    return { inFlight: this.inFlight, tenants: this.byTenant.size, refused: this.refused };
  }

  /** Takes a slot for `tenant` or throws; the returned function gives it back (once, however often it is called). */
  private admit(tenant: string): () => void {
    const mine = this.byTenant.get(tenant) ?? 0;
    if (mine >= this.limits.perTenantMax) throw this.busy('tenant', this.limits.perTenantMax);
    if (this.inFlight >= this.limits.concurrencyMax) throw this.busy('server', this.limits.concurrencyMax);
    this.inFlight++;
    this.byTenant.set(tenant, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      const left = (this.byTenant.get(tenant) ?? 1) - 1;
      if (left <= 0) this.byTenant.delete(tenant);
      else this.byTenant.set(tenant, left);
    };
  }

  private busy(scope: 'tenant' | 'server', limit: number): StrataError {
    this.refused++;
    const whose = scope === 'tenant' ? 'this tenant' : 'all tenants';
    return new StrataError('MONITORING_TEST_RUNS_BUSY', `Too many check test runs in flight for ${whose} (at most ${limit}); retry after the Retry-After seconds.`, { scope, limit });
  }
}
