// Owns load shedding: a bounded p-queue per kind of work; a full queue means 503 before any work starts.
import PQueue from 'p-queue';
import { assert } from '../core/assert.js';
import { configError } from '../core/config-error.js';
import { httpError } from './http-errors.js';
import { ADMISSION_SIZE_MAX } from './http-limits.js';
import type { WorkKind } from './route-rules.js';

/** Size of one admission queue: how many run at once and how many may wait. */
export interface QueueLimits {
  readonly concurrency: number;
  readonly queueMax: number;
}

/** Depth of one queue, for /metrics. */
export interface QueueDepth {
  readonly running: number;
  readonly waiting: number;
}

function checkLimits(kind: string, limits: QueueLimits): void {
  const { concurrency, queueMax } = limits;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1 || concurrency > ADMISSION_SIZE_MAX) {
    throw configError(`admission.${kind}.concurrency`, `an integer from 1 to ${ADMISSION_SIZE_MAX}`, concurrency);
  }
  if (!Number.isSafeInteger(queueMax) || queueMax < 0 || queueMax > ADMISSION_SIZE_MAX) {
    throw configError(`admission.${kind}.queueMax`, `an integer from 0 to ${ADMISSION_SIZE_MAX}`, queueMax);
  }
}

/** Bounded admission per kind of work: run now, wait in a bounded line, or be refused with 503. */
export class Admission {
  private readonly queues: ReadonlyMap<WorkKind, { queue: PQueue; limits: QueueLimits }>;

  constructor(limits: Readonly<Record<WorkKind, QueueLimits>>) {
    const queues = new Map<WorkKind, { queue: PQueue; limits: QueueLimits }>();
    for (const [kind, kindLimits] of Object.entries(limits) as [WorkKind, QueueLimits][]) {
      checkLimits(kind, kindLimits);
      queues.set(kind, { queue: new PQueue({ concurrency: kindLimits.concurrency }), limits: kindLimits });
    }
    this.queues = queues;
  }

  private entry(kind: WorkKind): { queue: PQueue; limits: QueueLimits } {
    const entry = this.queues.get(kind);
    assert(entry !== undefined, `no admission queue for ${kind}`);
    return entry;
  }

  /** True when a new item of this kind would be admitted now. */
  hasRoom(kind: WorkKind): boolean {
    const { queue, limits } = this.entry(kind);
    return queue.pending < limits.concurrency || queue.size < limits.queueMax;
  }

  /**
   * Runs `work` under the kind's queue. Rejects with HTTP_OVERLOADED at once (before
   * `work` starts) when every slot runs and the waiting line is full, so nothing is half-done.
   */
  run<T>(kind: WorkKind, work: () => Promise<T>): Promise<T> {
    if (!this.hasRoom(kind)) {
      return Promise.reject(httpError('HTTP_OVERLOADED', `The server is busy with ${kind} requests; retry shortly.`, { work: kind }));
    }
    return this.entry(kind).queue.add(work);
  }

  /** Current depth of each queue. */
  depths(): Map<WorkKind, QueueDepth> {
    const depths = new Map<WorkKind, QueueDepth>();
    for (const [kind, { queue }] of this.queues) depths.set(kind, { running: queue.pending, waiting: queue.size });
    return depths;
  }

  /** Resolves once every queue is empty and idle. */
  async idle(): Promise<void> {
    await Promise.all([...this.queues.values()].map(({ queue }) => queue.onIdle()));
  }
}
