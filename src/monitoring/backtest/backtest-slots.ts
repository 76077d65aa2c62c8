// Owns admitting backtests: bounded in flight per process and per tenant, refused at once beyond (a backtest reads and evaluates up to a week of observations).
import { StrataError } from '../../core/errors.js';
import { InFlightSlots, type InFlightLimits, type SlotScope } from '../in-flight-slots.js';
import { BACKTEST_CONCURRENCY_MAX, BACKTEST_PER_TENANT_MAX } from '../monitoring-limits.js';

/** How many backtests may be in flight at once: in the whole process, and for one tenant. */
export type BacktestLimits = InFlightLimits;

/** The limits unless told otherwise. */
export const DEFAULT_BACKTEST_LIMITS: BacktestLimits = { concurrencyMax: BACKTEST_CONCURRENCY_MAX, perTenantMax: BACKTEST_PER_TENANT_MAX };

/**
 * Backtest slots: at most `concurrencyMax` in flight and `perTenantMax` per tenant; one past either
 * is refused at once with MONITORING_TEST_RUNS_BUSY (503 with Retry-After), nothing waits.
 */
export class BacktestSlots extends InFlightSlots {
  constructor(limits: BacktestLimits = DEFAULT_BACKTEST_LIMITS) {
    super('backtest', limits, busy);
  }
}

function busy(scope: SlotScope, limit: number): StrataError {
  const whose = scope === 'tenant' ? 'this tenant' : 'all tenants';
  return new StrataError('MONITORING_TEST_RUNS_BUSY', `Too many alarm backtests in flight for ${whose} (at most ${limit}); retry after the Retry-After seconds.`, { scope, limit, work: 'backtest' });
}
