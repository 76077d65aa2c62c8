// Owns the in-flight budgets of one kind of work: their limits and checks, and the counts per server and tenant they bound.
import { assert } from '../core/assert.js';
import { configError } from '../core/config-error.js';
import { ADMISSION_BODY_BYTES_LIMIT_MAX, ADMISSION_SIZE_MAX } from './http-limits.js';
import type { WorkKind } from './route-rules.js';

/** Size of one admission queue: how many run at once and how many more may be admitted and wait. */
export interface QueueLimits {
  readonly concurrency: number;
  readonly queueMax: number;
}

/**
 * Every limit of one kind of work. A request of the kind is admitted while fewer than
 * `concurrency + queueMax` of the kind are in flight (admitted and not yet answered), fewer than
 * `tenantRequestsMax` of its tenant, and its body bytes fit both byte budgets.
 */
export interface AdmissionLimits extends QueueLimits {
  /** In-flight requests of one tenant. */
  readonly tenantRequestsMax: number;
  /** In-flight body bytes, all tenants together. */
  readonly bodyBytesMax: number;
  /** In-flight body bytes of one tenant. */
  readonly tenantBodyBytesMax: number;
}

/** What is in flight, of one kind or one tenant. */
export interface InFlight {
  readonly requests: number;
  readonly bodyBytes: number;
}

/** Which budget refused a request: the whole server's or its tenant's, and by count or by bytes. */
export interface Refusal {
  readonly scope: 'server' | 'tenant';
  readonly limit: 'requests' | 'bodyBytes';
}

/** The charge of one admitted request, given back once to `Admission.release`. */
export interface AdmissionTicket {
  readonly kind: WorkKind;
  readonly tenant: string;
  readonly bodyBytes: number;
}

interface Counts {
  requests: number;
  bodyBytes: number;
}

function checkInteger(option: string, value: number, min: number, max: number): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) throw configError(option, `an integer from ${min} to ${max}`, value);
}

/**
 * Throws CONFIG_INVALID naming the first limit of `kind` out of range. `bodyBytesMin` is the
 * largest body a request of the kind may have: a byte budget under it would refuse such a request
 * forever, even on an idle server.
 */
export function checkAdmissionLimits(kind: string, limits: AdmissionLimits, bodyBytesMin = 1): void {
  const { concurrency, queueMax, tenantRequestsMax, bodyBytesMax, tenantBodyBytesMax } = limits;
  checkInteger(`admission.${kind}.concurrency`, concurrency, 1, ADMISSION_SIZE_MAX);
  checkInteger(`admission.${kind}.queueMax`, queueMax, 0, ADMISSION_SIZE_MAX);
  // A tenant budget above the server's would never bind; refusing it says so instead of ignoring it.
  checkInteger(`admission.${kind}.tenantRequestsMax`, tenantRequestsMax, 1, concurrency + queueMax);
  checkInteger(`admission.${kind}.bodyBytesMax`, bodyBytesMax, bodyBytesMin, ADMISSION_BODY_BYTES_LIMIT_MAX);
  checkInteger(`admission.${kind}.tenantBodyBytesMax`, tenantBodyBytesMax, Math.min(bodyBytesMin, bodyBytesMax), bodyBytesMax);
}

/** True when `tryAdmit` refused. */
export function isRefusal(outcome: AdmissionTicket | Refusal): outcome is Refusal {
  return 'scope' in outcome;
}

/**
 * The in-flight budgets of one kind of work: what is in flight in all and per tenant (by count
 * and by body bytes), and how often each budget refused. Admission keeps one per kind.
 */
export class InFlightBudget {
  /** What is in flight, all tenants together. */
  private readonly total: Counts = { requests: 0, bodyBytes: 0 };
  /** Only tenants with something in flight, so the map is bounded by the kind's request budget. */
  private readonly tenants = new Map<string, Counts>();
  /** Refusals by `${scope}:${limit}`. */
  private readonly refused = new Map<string, number>();

  /** `limits`: the kind's limits, already checked. */
  constructor(readonly limits: AdmissionLimits) {}

  /**
   * Charges one request from `tenant` declaring `bodyBytes` and returns the bytes charged, or says
   * which budget it would break (and charges nothing). The charge is capped at the tenant's byte
   * budget, so one request alone is always admitted when nothing else of its tenant is in flight.
   */
  charge(tenant: string, bodyBytes: number): number | Refusal {
    const { limits, total } = this;
    const charge = Math.min(bodyBytes, limits.tenantBodyBytesMax);
    const mine = this.tenants.get(tenant) ?? { requests: 0, bodyBytes: 0 };
    const refusal = refusalOf(limits, total, mine, charge);
    if (refusal !== undefined) {
      const key = `${refusal.scope}:${refusal.limit}`;
      this.refused.set(key, (this.refused.get(key) ?? 0) + 1);
      return refusal;
    }
    total.requests += 1;
    total.bodyBytes += charge;
    mine.requests += 1;
    mine.bodyBytes += charge;
    this.tenants.set(tenant, mine);
    return charge;
  }

  /** Gives back one request of `tenant` charged `bodyBytes`; the caller gives each charge back once. */
  giveBack(tenant: string, bodyBytes: number): void {
    const mine = this.tenants.get(tenant);
    assert(mine !== undefined && mine.requests > 0, 'a live ticket has its tenant in flight');
    this.total.requests -= 1;
    this.total.bodyBytes -= bodyBytes;
    mine.requests -= 1;
    mine.bodyBytes -= bodyBytes;
    if (mine.requests === 0) this.tenants.delete(tenant);
  }

  /** What is in flight, all tenants together. */
  inFlight(): InFlight {
    return { ...this.total };
  }

  /** What one tenant has in flight. */
  tenantInFlight(tenant: string): InFlight {
    const mine = this.tenants.get(tenant);
    return { requests: mine?.requests ?? 0, bodyBytes: mine?.bodyBytes ?? 0 };
  }

  /** Requests refused so far, per budget, in the order each budget first refused. */
  refusals(): { scope: Refusal['scope']; limit: Refusal['limit']; count: number }[] {
    const rows = [];
    for (const [key, count] of this.refused) {
      const [scope, limit] = key.split(':') as [Refusal['scope'], Refusal['limit']];
      rows.push({ scope, limit, count });
    }
    return rows;
  }
}

/** The budget one more request of `charge` bytes would break, tenant first (the more specific answer). */
function refusalOf(limits: AdmissionLimits, total: Counts, mine: Counts, charge: number): Refusal | undefined {
  if (mine.requests + 1 > limits.tenantRequestsMax) return { scope: 'tenant', limit: 'requests' };
  if (mine.bodyBytes + charge > limits.tenantBodyBytesMax) return { scope: 'tenant', limit: 'bodyBytes' };
  if (total.requests + 1 > limits.concurrency + limits.queueMax) return { scope: 'server', limit: 'requests' };
  if (total.bodyBytes + charge > limits.bodyBytesMax) return { scope: 'server', limit: 'bodyBytes' };
  return undefined;
}
