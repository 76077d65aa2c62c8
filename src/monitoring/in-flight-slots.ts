// Owns bounding work in flight per process and per tenant: a slot is taken at once or refused at once, nothing waits.
import { assert } from '../core/assert.js';

/** How much work may be in flight at once. */
export interface InFlightLimits {
  /** In the whole process, every tenant together. */
  readonly concurrencyMax: number;
  /** For one tenant. */
  readonly perTenantMax: number;
}

/** Which bound refused a slot: the tenant's or the whole process's. */
export type SlotScope = 'tenant' | 'server';

/**
 * Slots for work of one kind: at most `concurrencyMax` in flight and `perTenantMax` per tenant. A
 * slot past either bound is refused at once with the error `refuse` makes; nothing waits. The map
 * holds only tenants with work in flight, so it is bounded by concurrencyMax.
 */
export class InFlightSlots {
  private inFlight = 0;
  private readonly byTenant = new Map<string, number>();

  /** `what` names the work in the assertion messages ("backtest", "test run"). */
  constructor(
    what: string,
    private readonly limits: InFlightLimits,
    private readonly refuse: (scope: SlotScope, limit: number) => Error,
  ) {
    assert(Number.isSafeInteger(limits.concurrencyMax) && limits.concurrencyMax >= 1, `the ${what} concurrency is a positive integer`);
    assert(Number.isSafeInteger(limits.perTenantMax) && limits.perTenantMax >= 1 && limits.perTenantMax <= limits.concurrencyMax, `the per-tenant ${what} limit is a positive integer within the concurrency`);
  }

  /** Runs `work` in a slot of `tenant`, or rejects with the refusal before it starts; the slot is given back however it ends. The admission is decided synchronously, at the call. */
  async run<T>(tenant: string, work: () => Promise<T>): Promise<T> {
    const release = this.admit(tenant);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Work in flight now, every tenant together. */
  running(): number {
    return this.inFlight;
  }

  /** Tenants with work in flight now. */
  tenants(): number {
    return this.byTenant.size;
  }

  /** Takes a slot for `tenant` or throws the refusal; the returned function gives it back (once, however often it is called). */
  admit(tenant: string): () => void {
    const mine = this.byTenant.get(tenant) ?? 0;
    if (mine >= this.limits.perTenantMax) throw this.refuse('tenant', this.limits.perTenantMax);
    if (this.inFlight >= this.limits.concurrencyMax) throw this.refuse('server', this.limits.concurrencyMax);
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
