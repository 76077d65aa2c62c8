// Owns admitting backtests: bounded in flight per process and per tenant, refused at once beyond (a backtest reads and evaluates up to a week of observations).
import { assert } from '../../core/assert.js';
import { StrataError } from '../../core/errors.js';
import { BACKTEST_CONCURRENCY_MAX, BACKTEST_PER_TENANT_MAX } from '../monitoring-limits.js';

/** How many backtests may be in flight at once. */
export interface BacktestLimits {
  /** In the whole process, every tenant together. */
  readonly concurrencyMax: number;
  /** For one tenant. */
  readonly perTenantMax: number;
}

/** The limits unless told otherwise. */
export const DEFAULT_BACKTEST_LIMITS: BacktestLimits = { concurrencyMax: BACKTEST_CONCURRENCY_MAX, perTenantMax: BACKTEST_PER_TENANT_MAX };

/**
 * Backtest slots: at most `concurrencyMax` in flight and `perTenantMax` per tenant; one past either
 * is refused at once with MONITORING_TEST_RUNS_BUSY (503 with Retry-After), nothing waits. The
 * map holds only tenants with a backtest in flight, so it is bounded by concurrencyMax.
 */
export class BacktestSlots {
  private inFlight = 0;
  private readonly byTenant = new Map<string, number>();

  constructor(private readonly limits: BacktestLimits = DEFAULT_BACKTEST_LIMITS) {
    assert(Number.isSafeInteger(limits.concurrencyMax) && limits.concurrencyMax >= 1, 'the backtest concurrency is a positive integer');
    assert(Number.isSafeInteger(limits.perTenantMax) && limits.perTenantMax >= 1 && limits.perTenantMax <= limits.concurrencyMax, 'the per-tenant backtest limit is a positive integer within the concurrency');
  }

  /** Runs `work` in a slot of `tenant`, or throws MONITORING_TEST_RUNS_BUSY before it starts; the slot is given back however it ends. */
  async run<T>(tenant: string, work: () => Promise<T>): Promise<T> {
    const release = this.admit(tenant);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Backtests in flight now. */
  running(): number {
    return this.inFlight;
  }

  private admit(tenant: string): () => void {
    const mine = this.byTenant.get(tenant) ?? 0;
    if (mine >= this.limits.perTenantMax) throw busy('tenant', this.limits.perTenantMax);
    if (this.inFlight >= this.limits.concurrencyMax) throw busy('server', this.limits.concurrencyMax);
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
}

function busy(scope: 'tenant' | 'server', limit: number): StrataError {
  const whose = scope === 'tenant' ? 'this tenant' : 'all tenants';
  return new StrataError('MONITORING_TEST_RUNS_BUSY', `Too many alarm backtests in flight for ${whose} (at most ${limit}); retry after the Retry-After seconds.`, { scope, limit, work: 'backtest' });
}
