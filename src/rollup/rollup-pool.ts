// Owns the rollup worker threads: a bounded piscina pool, or inline execution when workers = 0.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { ROLLUP_QUEUE_MAX } from '../core/limits.js';
import { StrataError } from '../core/errors.js';
import { packageRoot } from '../storage/package-root.js';
import { runRollupTask, type RollupOutcome, type RollupTask } from './rollup-task.js';

/** Where the compiled worker entry is: next to this module when compiled, else under dist/. */
function workerFilename(): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.js')) return join(here, '..', 'rollup-worker.js');
  // Running from TypeScript sources (tests): worker threads need the compiled JavaScript.
  const compiled = join(packageRoot(), 'dist', 'src', 'rollup', 'rollup-worker.js');
  if (!existsSync(compiled)) throw new Error(`${compiled} is missing: run "npm run build" first`);
  return compiled;
}

/** Runs rollup tasks on worker threads (or inline), never queueing more than ROLLUP_QUEUE_MAX. */
export class RollupPool {
  private readonly pool: Piscina | undefined;
  private readonly threads: number;
  /** Every task submitted and not settled, running or queued, so close() can wait for them. */
  private readonly pending = new Set<Promise<RollupOutcome>>();
  private closing: Promise<void> | undefined;

  constructor(workers: number) {
    this.threads = workers;
    this.pool =
      workers > 0
        ? new Piscina({ filename: workerFilename(), minThreads: workers, maxThreads: workers, maxQueue: ROLLUP_QUEUE_MAX, idleTimeout: 60_000 })
        : undefined;
  }

  /** Tasks submitted and not finished. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** How many more tasks may be submitted now without exceeding the queue bound; 0 once closed. */
  get capacity(): number {
    if (this.closing !== undefined) return 0;
    return Math.max(0, Math.max(1, this.threads) + ROLLUP_QUEUE_MAX - this.pending.size);
  }

  /** Runs a task; rejects with STORE_CLOSED after close(), and with ROLLUP_QUEUE_FULL rather than queue without bound. */
  async run(task: RollupTask): Promise<RollupOutcome> {
    // Checked before piscina sees the task: a destroyed piscina pool would start a fresh thread for it.
    if (this.closing !== undefined) throw new StrataError('STORE_CLOSED', 'the rollup pool is closed');
    if (this.capacity === 0) throw new StrataError('ROLLUP_QUEUE_FULL', 'the rollup queue is full');
    const done = this.execute(task);
    this.pending.add(done);
    try {
      return await done;
    } finally {
      this.pending.delete(done);
    }
  }

  private async execute(task: RollupTask): Promise<RollupOutcome> {
    if (this.pool === undefined) return runRollupTask(task);
    return (await this.pool.run(task)) as RollupOutcome;
  }

  /**
   * Refuses new tasks, waits for every running and queued task to finish, then stops the worker
   * threads. piscina's destroy() alone would reject the queued tasks and kill the running ones.
   */
  close(): Promise<void> {
    this.closing ??= this.finishThenDestroy();
    return this.closing;
  }

  private async finishThenDestroy(): Promise<void> {
    // Tasks are only added while open, so this set can only shrink from here on.
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    if (this.pool !== undefined) await this.pool.destroy();
  }
}
