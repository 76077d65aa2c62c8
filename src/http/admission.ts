// Owns load shedding per kind of work: composes each kind's in-flight budget, its bounded p-queue and, for paced kinds, its pacer.
import PQueue from 'p-queue';
import { assert } from '../core/assert.js';
import { checkAdmissionLimits, InFlightBudget, type AdmissionLimits, type AdmissionTicket, type InFlight, type Refusal } from './admission-budget.js';
import { TurnPacer } from './admission-pacer.js';
import { httpError } from './http-errors.js';
import { PACED_KINDS, TURNS_PER_PACED_START } from './http-limits.js';
import type { WorkKind } from './route-rules.js';

/** Depth of one queue, for /metrics. */
export interface QueueDepth {
  readonly running: number;
  readonly waiting: number;
}

interface KindState {
  readonly budget: InFlightBudget;
  readonly queue: PQueue;
  /** Present for kinds whose work is heavy enough to be paced (PACED_KINDS). */
  readonly pacer: TurnPacer | undefined;
}

/**
 * Bounded admission per kind of work. `tryAdmit` charges a request against the in-flight budgets
 * of its kind (the server's and its tenant's, by count and by body bytes) when it arrives, before
 * its body is read, and `release` gives the charge back; `run` then runs the handler's work in the
 * kind's p-queue, at most `concurrency` at once. The budgets bound memory and waiting; the queue
 * bounds the CPU work running at once.
 */
export class Admission {
  private readonly kinds: ReadonlyMap<WorkKind, KindState>;
  /** Tickets not yet released: a second release of one is ignored, so the counts cannot go negative. */
  private readonly live = new WeakSet<AdmissionTicket>();

  constructor(limits: Readonly<Record<WorkKind, AdmissionLimits>>) {
    const kinds = new Map<WorkKind, KindState>();
    for (const [kind, kindLimits] of Object.entries(limits) as [WorkKind, AdmissionLimits][]) {
      checkAdmissionLimits(kind, kindLimits);
      kinds.set(kind, {
        budget: new InFlightBudget(kindLimits),
        queue: new PQueue({ concurrency: kindLimits.concurrency }),
        pacer: PACED_KINDS.includes(kind) ? new TurnPacer(TURNS_PER_PACED_START) : undefined,
      });
    }
    this.kinds = kinds;
  }

  private state(kind: WorkKind): KindState {
    const state = this.kinds.get(kind);
    assert(state !== undefined, `no admission budget for ${kind}`);
    return state;
  }

  /** The limits of a kind of work. */
  limits(kind: WorkKind): AdmissionLimits {
    return this.state(kind).budget.limits;
  }

  /**
   * Charges one request of `kind` from `tenant` declaring `bodyBytes`, or says which budget it
   * would break (and charges nothing). The charge is capped at the tenant's byte budget, so one
   * request alone is always admitted when nothing else of its tenant is in flight.
   */
  tryAdmit(kind: WorkKind, tenant: string, bodyBytes: number): AdmissionTicket | Refusal {
    assert(Number.isSafeInteger(bodyBytes) && bodyBytes >= 0, 'body bytes are a non-negative integer');
    const charge = this.state(kind).budget.charge(tenant, bodyBytes);
    if (typeof charge !== 'number') return charge;
    const ticket: AdmissionTicket = { kind, tenant, bodyBytes: charge };
    this.live.add(ticket);
    return ticket;
  }

  /** Gives back the charge of `ticket`; releasing it again does nothing. */
  release(ticket: AdmissionTicket): void {
    if (!this.live.delete(ticket)) return;
    this.state(ticket.kind).budget.giveBack(ticket.tenant, ticket.bodyBytes);
  }

  /** What is in flight of each kind. */
  inFlight(): Map<WorkKind, InFlight> {
    const result = new Map<WorkKind, InFlight>();
    for (const [kind, { budget }] of this.kinds) result.set(kind, budget.inFlight());
    return result;
  }

  /** What one tenant has in flight of a kind. */
  tenantInFlight(kind: WorkKind, tenant: string): InFlight {
    return this.state(kind).budget.tenantInFlight(tenant);
  }

  /** Requests refused so far, per kind and budget. */
  refusals(): { kind: WorkKind; scope: Refusal['scope']; limit: Refusal['limit']; count: number }[] {
    const rows = [];
    for (const [kind, { budget }] of this.kinds) {
      for (const { scope, limit, count } of budget.refusals()) rows.push({ kind, scope, limit, count });
    }
    return rows;
  }

  /** True when the kind's queue would take one more item of work now. */
  hasRoom(kind: WorkKind): boolean {
    const { queue, budget } = this.state(kind);
    return queue.pending < budget.limits.concurrency || queue.size < budget.limits.queueMax;
  }

  /**
   * Runs `work` under the kind's queue. Requests that passed `tryAdmit` always find room (the
   * request budget is the queue's size); work started by other means is refused with
   * HTTP_OVERLOADED at once (before `work` starts) when every slot runs and the line is full.
   */
  run<T>(kind: WorkKind, work: () => Promise<T>): Promise<T> {
    if (!this.hasRoom(kind)) {
      return Promise.reject(httpError('HTTP_OVERLOADED', `The server is busy with ${kind} requests; retry shortly.`, { work: kind }));
    }
    const { queue, pacer } = this.state(kind);
    if (pacer === undefined) return queue.add(work);
    return queue.add(async () => {
      await pacer.turn();
      return work();
    });
  }

  /** Current depth of each queue. */
  depths(): Map<WorkKind, QueueDepth> {
    const depths = new Map<WorkKind, QueueDepth>();
    for (const [kind, { queue }] of this.kinds) depths.set(kind, { running: queue.pending, waiting: queue.size });
    return depths;
  }

  /** Resolves once every queue is empty and idle. */
  async idle(): Promise<void> {
    await Promise.all([...this.kinds.values()].map(({ queue }) => queue.onIdle()));
  }
}
