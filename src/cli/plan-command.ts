// Owns `strata plan`: prints the query planner's decision as JSON, without reading data.
import { Command } from 'commander';
import { QUERY_POINTS_MAX } from '../core/limits.js';
import { planQuery } from '../query/planner.js';
import { resolveRetention } from '../retention/policy.js';
import { parseCountArg, parseTimeArg } from './time-arg.js';
import { printError } from './print-error.js';

/** The `plan` command. */
export function planCommand(): Command {
  return new Command('plan')
    .description('print the resolution, expected point count and cap decision for a query range, as JSON')
    .requiredOption('--from <time>', 'range start: ms since the epoch or ISO 8601', parseTimeArg)
    .requiredOption('--to <time>', 'range end (exclusive): ms since the epoch or ISO 8601', parseTimeArg)
    .option('--points <n>', 'desired number of points (the planner picks the resolution)', parseCountArg)
    .option('--resolution <res>', 'FULL, MIN5, MIN20, MIN60, MIN240 or MIN1440, used as given')
    .option('--now <time>', 'the time to plan at (default: now), for retention decisions', parseTimeArg)
    .action((opts: { from: number; to: number; points?: number; resolution?: string; now?: number }) => {
      try {
        const plan = planQuery(
          { tenant: '-', metric: '-', from: opts.from, to: opts.to, points: opts.points, resolution: opts.resolution },
          opts.now ?? Date.now(),
          resolveRetention(),
        );
        process.stdout.write(`${JSON.stringify({ ...plan, pointsMax: QUERY_POINTS_MAX }, null, 2)}\n`);
      } catch (error) {
        printError(error);
      }
    });
}
