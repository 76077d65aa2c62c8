// Owns `strata workload generate`: making a standard or shaped workload as a recording file that anyone can replay.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Presets, SingleBar } from 'cli-progress';
import { Command, InvalidArgumentError, Option } from 'commander';
import { HTTP_BODY_BYTES_MAX } from '../http/http-limits.js';
import { isValidTenant } from '../identity/user-rules.js';
import { packageRoot } from '../storage/package-root.js';
import { BATCH_POINTS, BENCH_TENANT, STANDARD_INTERVAL_MS, STANDARD_POINTS, STANDARD_SEED, STANDARD_SERIES } from '../workload/standard-workload.js';
import { buildWorkload, WORKLOAD_KINDS, type WorkloadKind } from '../workload/workload-kinds.js';
import {
  checkWorkloadShape,
  WORKLOAD_BATCH_POINTS_MAX,
  WORKLOAD_END_MS_MAX,
  WORKLOAD_INTERVAL_MS_MAX,
  WORKLOAD_INTERVAL_MS_MIN,
  WORKLOAD_PLOTS_DEFAULT,
  WORKLOAD_PLOTS_MAX,
  WORKLOAD_POINTS_MAX,
  WORKLOAD_RATE_DEFAULT,
  WORKLOAD_RATE_MAX,
  WORKLOAD_SEED_MAX,
  WORKLOAD_SERIES_MAX,
} from '../workload/workload-limits.js';
import { writeWorkloadRecording, type WorkloadFormat, type WorkloadRecordingResult } from '../workload/workload-recording.js';
import { integerIn } from './cli-parsers.js';
import { printError } from './print-error.js';

/** Exit status of a usage error (unknown option, bad value), like bad input elsewhere. */
const EXIT_USAGE = 2;
/** Without a terminal, a progress line is printed each time this share of the frames more is written. */
const PLAIN_PROGRESS_PERCENT_STEP = 10;
const FORMATS: readonly WorkloadFormat[] = ['json', 'msgpack'];

interface GenerateOpts {
  kind: WorkloadKind;
  out: string;
  series: number;
  points: number;
  intervalMs: number;
  batchPoints: number;
  format: WorkloadFormat;
  endMs?: number;
  seed: number;
  tenant: string;
  nabDir?: string;
  rate: number;
  plots: number;
}

function parseTenant(text: string): string {
  if (!isValidTenant(text)) throw new InvalidArgumentError('expected 1 to 128 letters, digits, dots, dashes or underscores');
  return text;
}

function strataVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** Progress on stderr: a bar on a terminal, a plain line every tenth otherwise. */
function progressReporter(label: string): { update(done: number, total: number): void; stop(): void } {
  if (process.stderr.isTTY === true) {
    const bar = new SingleBar({ format: `${label} [{bar}] {percentage}% | {value}/{total} frames`, stream: process.stderr }, Presets.shades_classic);
    let started = false;
    return {
      update(done, total) {
        if (!started) bar.start(total, 0);
        started = true;
        bar.update(done);
      },
      stop: () => bar.stop(),
    };
  }
  let shownPercent = -1;
  return {
    update(done, total) {
      const percent = Math.floor((done * 100) / total / PLAIN_PROGRESS_PERCENT_STEP) * PLAIN_PROGRESS_PERCENT_STEP;
      if (percent === shownPercent) return;
      shownPercent = percent;
      process.stderr.write(`${label}: ${percent}% (${done}/${total} frames)\n`);
    },
    stop: () => undefined,
  };
}

async function generate(opts: GenerateOpts): Promise<WorkloadRecordingResult> {
  const endMs = opts.endMs ?? Date.now();
  const shape = { series: opts.series, points: opts.points, intervalMs: opts.intervalMs, batchPoints: opts.batchPoints, seed: opts.seed, endMs };
  checkWorkloadShape(shape);
  const label = `workload ${opts.kind}`;
  process.stderr.write(`${label}: generating ${opts.series} series x ${opts.points} points at ${opts.intervalMs} ms\n`);
  const built = buildWorkload({ ...shape, kind: opts.kind, nabDir: opts.nabDir });
  const progress = progressReporter(label);
  try {
    return await writeWorkloadRecording(built, {
      path: opts.out,
      format: opts.format,
      tenant: opts.tenant,
      ratePointsPerSecond: opts.rate,
      plots: opts.plots,
      producer: `strata ${strataVersion()} workload generate ${opts.kind}`,
      // The recording starts at the reference "now", so the same options make the same bytes.
      startedAtMs: endMs,
      bodyBytesMax: HTTP_BODY_BYTES_MAX,
      onProgress: (done, total) => progress.update(done, total),
    });
  } finally {
    progress.stop();
  }
}

function generateCommand(): Command {
  const int = (min: number, max: number) => integerIn(min, max);
  return new Command('generate')
    .description('write a generated workload as a recording file: its batches as ingest requests paced at --rate, then --plots plot queries; replay it with strata replay')
    .addOption(new Option('--kind <kind>', 'values and arrival shape').choices(WORKLOAD_KINDS).makeOptionMandatory())
    .requiredOption('--out <file>', 'recording file to write (replaced if it exists)')
    .option('--series <n>', `series (1 to ${WORKLOAD_SERIES_MAX}; series x points at most 50,000,000)`, int(1, WORKLOAD_SERIES_MAX), STANDARD_SERIES)
    .option('--points <n>', `points per series (1 to ${WORKLOAD_POINTS_MAX})`, int(1, WORKLOAD_POINTS_MAX), STANDARD_POINTS)
    .option('--interval-ms <n>', `spacing of a series' points (${WORKLOAD_INTERVAL_MS_MIN} to ${WORKLOAD_INTERVAL_MS_MAX})`, int(WORKLOAD_INTERVAL_MS_MIN, WORKLOAD_INTERVAL_MS_MAX), STANDARD_INTERVAL_MS)
    .option('--batch-points <n>', `points per ingest request (1 to ${WORKLOAD_BATCH_POINTS_MAX}, the server's batch limit)`, int(1, WORKLOAD_BATCH_POINTS_MAX), BATCH_POINTS)
    .addOption(new Option('--format <format>', 'ingest body format').choices(FORMATS).default('json'))
    .option('--end-ms <ms>', 'reference "now" in ms since the epoch: the last point lands 2 to 7 minutes before it (default: now)', int(0, WORKLOAD_END_MS_MAX))
    .option('--seed <n>', `seed of every draw (0 to ${WORKLOAD_SEED_MAX})`, int(0, WORKLOAD_SEED_MAX), STANDARD_SEED)
    .option('--tenant <id>', 'tenant in the recorded URLs (replay maps it to its own)', parseTenant, BENCH_TENANT)
    .addOption(new Option('--nab-dir <dir>', 'folder of the NAB CSV recordings (kind nab; default ../shared/workloads/nab beside the installation)').env('STRATA_NAB_DIR'))
    .option('--rate <points/s>', `points per second when replayed at speed 1 (1 to ${WORKLOAD_RATE_MAX})`, int(1, WORKLOAD_RATE_MAX), WORKLOAD_RATE_DEFAULT)
    .option('--plots <n>', `plot queries (MIN5 over the last 24 h of a seeded series) after the ingest (0 to ${WORKLOAD_PLOTS_MAX})`, int(0, WORKLOAD_PLOTS_MAX), WORKLOAD_PLOTS_DEFAULT)
    .exitOverride((error) => {
      process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE);
    })
    .action(async (opts: GenerateOpts) => {
      const startedMs = performance.now();
      try {
        const result = await generate(opts);
        const seconds = ((performance.now() - startedMs) / 1000).toFixed(1);
        process.stdout.write(
          `wrote ${result.path}: ${result.frames} frames (${result.ingestFrames} ingest, ${result.plotFrames} plots), ${result.points} points, ${result.bytes} bytes in ${seconds} s\n`,
        );
      } catch (error) {
        printError(error);
      }
    });
}

/** The `workload` command and its `generate` subcommand. */
export function workloadCommand(): Command {
  return new Command('workload')
    .description('generated workloads: the benchmark\'s standard workload and shaped variants, as recordings')
    .addCommand(generateCommand())
    .exitOverride((error) => {
      process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE);
    });
}
