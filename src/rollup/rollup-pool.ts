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
  private running = 0;

  constructor(workers: number) {
    this.threads = workers;
    this.pool =
      workers > 0
        ? new Piscina({ filename: workerFilename(), minThreads: workers, maxThreads: workers, maxQueue: ROLLUP_QUEUE_MAX, idleTimeout: 60_000 })
        : undefined;
  }

  /** Tasks submitted and not finished. */
  get inFlight(): number {
    return this.running;
  }

  /** How many more tasks may be submitted now without exceeding the queue bound. */
  get capacity(): number {
    return Math.max(0, Math.max(1, this.threads) + ROLLUP_QUEUE_MAX - this.running);
  }

  /** Runs a task; rejects with ROLLUP_QUEUE_FULL rather than queue without bound. */
  async run(task: RollupTask): Promise<RollupOutcome> {
    if (this.capacity === 0) throw new StrataError('ROLLUP_QUEUE_FULL', 'the rollup queue is full');
    this.running++;
    try {
      if (this.pool === undefined) return runRollupTask(task);
      return (await this.pool.run(task)) as RollupOutcome;
    } finally {
      this.running--;
    }
  }

  /** Stops the worker threads once their tasks finish. */
  async close(): Promise<void> {
    if (this.pool !== undefined) await this.pool.destroy();
  }
}
