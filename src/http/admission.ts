// Owns load shedding: in-flight budgets per kind of work and tenant, checked before a body is read, and a bounded p-queue per kind.
import type { FastifyReply, FastifyRequest } from 'fastify';
import PQueue from 'p-queue';
import { assert } from '../core/assert.js';
import { configError } from '../core/config-error.js';
import { httpError } from './http-errors.js';
import { ADMISSION_BODY_BYTES_LIMIT_MAX, ADMISSION_SIZE_MAX, PACED_KINDS, TURNS_PER_PACED_START } from './http-limits.js';
import { principalOf, rulesOf, type WorkKind } from './route-rules.js';

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

/** Depth of one queue, for /metrics. */
export interface QueueDepth {
  readonly running: number;
  readonly waiting: number;
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

/**
 * Lets work start at most once every few turns of the event loop. Node (libuv 1.45 and later) accepts one
 * new connection per turn, and reads new requests' headers only between turns: when one turn runs
 * every ingest batch whose body just completed (decode and WAL write, 5 to 40 ms each), turns last
 * hundreds of milliseconds, new connections wait unseen in the kernel's accept queue and admission
 * never hears of them (measured: 2 accepts a second under the issue-10 flood, 200 waiting).
 */
class TurnPacer {
  private readonly waiting: (() => void)[] = [];
  /** Turns since the last start, while fewer than `turnsPerStart`; undefined when the pacer is at rest. */
  private turnsSinceStart: number | undefined;

  /** `turnsPerStart`: turns of the loop from one start to the next (the ones between do no paced work). */
  constructor(private readonly turnsPerStart: number) {}

  /**
   * Resolves when the caller may start: at once when nothing started in the last `turnsPerStart`
   * turns (a quiet server pays nothing), else `turnsPerStart` turns after the previous start, one
   * caller at a time, in call order.
   */
  turn(): Promise<void> {
    if (this.turnsSinceStart === undefined && this.waiting.length === 0) {
      this.started();
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private started(): void {
    this.turnsSinceStart = 0;
    this.tick();
  }

  private tick(): void {
    // An immediate scheduled while immediates run waits for the next turn, after its poll phase.
    setImmediate(() => {
      this.turnsSinceStart = (this.turnsSinceStart ?? 0) + 1;
      if (this.turnsSinceStart < this.turnsPerStart) {
        this.tick();
        return;
      }
      const next = this.waiting.shift();
      if (next === undefined) {
        this.turnsSinceStart = undefined;
        return;
      }
      this.started();
      next();
    });
  }
}

interface KindState {
  readonly limits: AdmissionLimits;
  readonly queue: PQueue;
  /** Present for kinds whose work is heavy enough to be paced (PACED_KINDS). */
  readonly pacer: TurnPacer | undefined;
  readonly total: Counts;
  /** Only tenants with something in flight, so the map is bounded by the kind's request budget. */
  readonly tenants: Map<string, Counts>;
  /** Refusals by `${scope}:${limit}`. */
  readonly refusals: Map<string, number>;
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
        limits: kindLimits,
        queue: new PQueue({ concurrency: kindLimits.concurrency }),
        pacer: PACED_KINDS.includes(kind) ? new TurnPacer(TURNS_PER_PACED_START) : undefined,
        total: { requests: 0, bodyBytes: 0 },
        tenants: new Map(),
        refusals: new Map(),
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
    return this.state(kind).limits;
  }

  /**
   * Charges one request of `kind` from `tenant` declaring `bodyBytes`, or says which budget it
   * would break (and charges nothing). The charge is capped at the tenant's byte budget, so one
   * request alone is always admitted when nothing else of its tenant is in flight.
   */
  tryAdmit(kind: WorkKind, tenant: string, bodyBytes: number): AdmissionTicket | Refusal {
    assert(Number.isSafeInteger(bodyBytes) && bodyBytes >= 0, 'body bytes are a non-negative integer');
    const state = this.state(kind);
    const { limits, total } = state;
    const charge = Math.min(bodyBytes, limits.tenantBodyBytesMax);
    const mine = state.tenants.get(tenant) ?? { requests: 0, bodyBytes: 0 };
    const refusal = refusalOf(limits, total, mine, charge);
    if (refusal !== undefined) {
      const key = `${refusal.scope}:${refusal.limit}`;
      state.refusals.set(key, (state.refusals.get(key) ?? 0) + 1);
      return refusal;
    }
    total.requests += 1;
    total.bodyBytes += charge;
    mine.requests += 1;
    mine.bodyBytes += charge;
    state.tenants.set(tenant, mine);
    const ticket: AdmissionTicket = { kind, tenant, bodyBytes: charge };
    this.live.add(ticket);
    return ticket;
  }

  /** Gives back the charge of `ticket`; releasing it again does nothing. */
  release(ticket: AdmissionTicket): void {
    if (!this.live.delete(ticket)) return;
    const state = this.state(ticket.kind);
    const mine = state.tenants.get(ticket.tenant);
    assert(mine !== undefined && mine.requests > 0, 'a live ticket has its tenant in flight');
    state.total.requests -= 1;
    state.total.bodyBytes -= ticket.bodyBytes;
    mine.requests -= 1;
    mine.bodyBytes -= ticket.bodyBytes;
    if (mine.requests === 0) state.tenants.delete(ticket.tenant);
  }

  /** What is in flight of each kind. */
  inFlight(): Map<WorkKind, InFlight> {
    const result = new Map<WorkKind, InFlight>();
    for (const [kind, { total }] of this.kinds) result.set(kind, { ...total });
    return result;
  }

  /** What one tenant has in flight of a kind. */
  tenantInFlight(kind: WorkKind, tenant: string): InFlight {
    const mine = this.state(kind).tenants.get(tenant);
    return { requests: mine?.requests ?? 0, bodyBytes: mine?.bodyBytes ?? 0 };
  }

  /** Requests refused so far, per kind and budget. */
  refusals(): { kind: WorkKind; scope: Refusal['scope']; limit: Refusal['limit']; count: number }[] {
    const rows = [];
    for (const [kind, { refusals }] of this.kinds) {
      for (const [key, count] of refusals) {
        const [scope, limit] = key.split(':') as [Refusal['scope'], Refusal['limit']];
        rows.push({ kind, scope, limit, count });
      }
    }
    return rows;
  }

  /** True when the kind's queue would take one more item of work now. */
  hasRoom(kind: WorkKind): boolean {
    const { queue, limits } = this.state(kind);
    return queue.pending < limits.concurrency || queue.size < limits.queueMax;
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

/** The budget one more request of `charge` bytes would break, tenant first (the more specific answer). */
function refusalOf(limits: AdmissionLimits, total: Counts, mine: Counts, charge: number): Refusal | undefined {
  if (mine.requests + 1 > limits.tenantRequestsMax) return { scope: 'tenant', limit: 'requests' };
  if (mine.bodyBytes + charge > limits.tenantBodyBytesMax) return { scope: 'tenant', limit: 'bodyBytes' };
  if (total.requests + 1 > limits.concurrency + limits.queueMax) return { scope: 'server', limit: 'requests' };
  if (total.bodyBytes + charge > limits.bodyBytesMax) return { scope: 'server', limit: 'bodyBytes' };
  return undefined;
}

/** True when `tryAdmit` refused. */
export function isRefusal(outcome: AdmissionTicket | Refusal): outcome is Refusal {
  return 'scope' in outcome;
}

/** Where a request's release is kept until its response is sent or its connection ends. */
const RELEASE = Symbol('admission release');

type Releasable = FastifyRequest & { [RELEASE]?: () => void };

/**
 * Bytes a request's body will occupy, known from its headers alone: its Content-Length, or, for a
 * chunked body (no Content-Length), the worst case: the route's body limit. Never more than the
 * route's limit (a larger declared body gets its 413 without being read); 0 without a body.
 */
export function declaredBodyBytes(headers: FastifyRequest['headers'], routeBodyLimit: number): number {
  const declared = headers['content-length'];
  if (declared !== undefined) {
    const bytes = Number(declared);
    return Number.isSafeInteger(bytes) && bytes >= 0 ? Math.min(bytes, routeBodyLimit) : routeBodyLimit;
  }
  return headers['transfer-encoding'] !== undefined ? routeBodyLimit : 0;
}

/**
 * Admits a request of a route that has a kind of work, in the onRequest hook: after auth (the
 * tenant is the URL's `:tenant`, else the token's) and before its body is read. A refused request
 * throws HTTP_OVERLOADED (its API's error shaper answers 503 with Retry-After); when it has a body
 * it also gets `Connection: close`, so Node stops reading the socket once the answer is out
 * instead of pulling the whole unread body through the parser. An admitted request is released
 * exactly once: on its response (`releaseRequest` from onResponse, and the response's `close`),
 * or when its connection ends first (an abort, or a pipelined request queued behind it).
 */
export function admitRequest(admission: Admission, request: FastifyRequest, reply: FastifyReply, serverBodyLimit: number): void {
  const { work } = rulesOf(request);
  if (work === undefined) return;
  const param = (request.params as { tenant?: unknown } | undefined)?.tenant;
  const tenant = typeof param === 'string' ? param : (principalOf(request)?.user.tenant ?? '');
  const bodyBytes = declaredBodyBytes(request.headers, request.routeOptions.bodyLimit ?? serverBodyLimit);
  const outcome = admission.tryAdmit(work, tenant, bodyBytes);
  if (isRefusal(outcome)) {
    if (bodyBytes > 0) void reply.header('connection', 'close');
    const whose = outcome.scope === 'tenant' ? 'this tenant' : 'all tenants';
    const what = outcome.limit === 'requests' ? 'requests' : 'request body bytes';
    throw httpError('HTTP_OVERLOADED', `The server is busy: ${work} ${what} in flight for ${whose} are at their limit; retry after the Retry-After seconds.`, {
      work,
      scope: outcome.scope,
      limit: outcome.limit,
    });
  }
  const socket = request.raw.socket;
  const release = (): void => {
    socket.removeListener('close', release);
    reply.raw.removeListener('close', release);
    (request as Releasable)[RELEASE] = undefined;
    admission.release(outcome);
  };
  // The response's close covers an answer sent and a connection lost while it was owed; the
  // socket's covers pipelined requests whose response never got the socket (no close of their own).
  reply.raw.once('close', release);
  socket.once('close', release);
  (request as Releasable)[RELEASE] = release;
}

/** Releases a request's admission charge now (from onResponse); does nothing for one not admitted or already released. */
export function releaseRequest(request: FastifyRequest): void {
  (request as Releasable)[RELEASE]?.();
}
