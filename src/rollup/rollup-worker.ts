// Owns the piscina worker entry: runs one rollup task per call in a worker thread.
import { runRollupTask, type RollupOutcome, type RollupTask } from './rollup-task.js';

/** Piscina calls the default export with each task. */
export default function rollupWorker(task: RollupTask): RollupOutcome {
  return runRollupTask(task);
}
