// Owns `strata query`: runs one query against a data directory and prints the result as JSON.
import { Command } from 'commander';
import { dataOption } from './cli-parsers.js';
import { openStore } from '../store.js';
import { printError } from './print-error.js';
import { parseCountArg, parseTimeArg } from './time-arg.js';

interface QueryOpts {
  data: string;
  tenant: string;
  metric: string;
  from: number;
  to: number;
  points?: number;
  resolution?: string;
  select?: string[];
}

/** The `query` command. */
export function queryCommand(): Command {
  return new Command('query')
    .description('query one metric of a data directory (the server must not be running on it) and print JSON')
    .addOption(dataOption())
    .requiredOption('--tenant <id>', 'tenant id')
    .requiredOption('--metric <name>', 'metric name')
    .requiredOption('--from <time>', 'range start: ms since the epoch or ISO 8601', parseTimeArg)
    .requiredOption('--to <time>', 'range end (exclusive)', parseTimeArg)
    .option('--points <n>', 'desired number of points', parseCountArg)
    .option('--resolution <res>', 'FULL, MIN5, MIN20, MIN60, MIN240 or MIN1440')
    .option('--select <stat...>', 'average, variance, min, max (repeatable or comma-separated)')
    .action(async (opts: QueryOpts) => {
      try {
        const store = await openStore({ dir: opts.data, background: false });
        try {
          const result = await store.query({
            tenant: opts.tenant,
            metric: opts.metric,
            from: opts.from,
            to: opts.to,
            points: opts.points,
            resolution: opts.resolution,
            select: opts.select,
          });
          process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        } finally {
          await store.close();
        }
      } catch (error) {
        printError(error);
      }
    });
}
