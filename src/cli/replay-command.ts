// Owns `strata replay`: validates its options, replays recordings into a target (or converts them), prints and writes the report.
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Command, CommanderError, Option } from 'commander';
import { StrataError } from '../core/errors.js';
import { TENANT_LENGTH_MAX } from '../core/limits.js';
import { isValidTenant } from '../identity/user-rules.js';
import { convertRecordings, openConvertOutput } from '../replay/convert-recording.js';
import { REPLAY_CONCURRENCY_DEFAULT, REPLAY_CONCURRENCY_MAX, REPLAY_SPEED_MAX } from '../replay/replay-limits.js';
import type { PacingMode } from '../replay/replay-pacing.js';
import { createReplayProgress } from '../replay/replay-progress.js';
import { compareReports, renderComparison, renderTable, type ReplayReport } from '../replay/replay-report.js';
import { readReportFile } from '../replay/replay-report-file.js';
import { openRecordings, runReplay } from '../replay/replay-run.js';
import { connectTarget } from '../replay/replay-target.js';
import { printError } from './print-error.js';

/** Exit status of bad command-line input (as printError gives invalid input). */
const EXIT_BAD_INPUT = 2;
/** Exit status of a replay in which a request failed (non-2xx or no answer), under --fail-on-errors. */
export const EXIT_REPLAY_ERRORS = 3;

interface RawOptions {
  target?: string;
  username?: string;
  apiKey?: string;
  speed?: string;
  max?: boolean;
  concurrency?: string;
  tenantMap: string[];
  timeShift: string;
  includeRefused?: boolean;
  failOnErrors?: boolean;
  report?: string;
  compare?: string;
  convert?: string;
  out?: string;
}

/** Validated options of a replay. */
interface ReplayOptions {
  readonly files: readonly string[];
  readonly target: string;
  readonly username: string;
  readonly apiKey: string;
  readonly mode: PacingMode;
  readonly concurrency: number;
  readonly tenantPairs: ReadonlyMap<string, string>;
  readonly timeShift: 'auto' | 'none' | number;
  readonly includeRefused: boolean;
  readonly failOnErrors: boolean;
  readonly reportPath: string | undefined;
  readonly previous: ReplayReport | undefined;
}

function invalid(option: string, message: string): StrataError {
  return new StrataError('CONFIG_INVALID', message, { option });
}

function required(value: string | undefined, option: string): string {
  if (value === undefined || value === '') throw invalid(option, `--${option} is required to replay (or give --convert vm|influx to convert instead).`);
  return value;
}

function parseMode(raw: RawOptions): PacingMode {
  if (raw.max === true && raw.speed !== undefined) throw invalid('speed', '--speed and --max exclude each other: --speed N paces by the recorded times, --max sends as fast as the target answers.');
  if (raw.max === true) return { kind: 'max' };
  const speed = Number(raw.speed ?? '1');
  if (!/^\d+(\.\d+)?$/.test((raw.speed ?? '1').trim()) || !(speed > 0) || speed > REPLAY_SPEED_MAX) {
    throw invalid('speed', `--speed must be a number greater than 0 and at most ${REPLAY_SPEED_MAX}, not ${JSON.stringify(raw.speed)}.`);
  }
  return { kind: 'speed', speed };
}

function parseConcurrency(text: string | undefined): number {
  if (text === undefined) return REPLAY_CONCURRENCY_DEFAULT;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < 1 || value > REPLAY_CONCURRENCY_MAX) {
    throw invalid('concurrency', `--concurrency must be an integer from 1 to ${REPLAY_CONCURRENCY_MAX}, not ${JSON.stringify(text)}.`);
  }
  return value;
}

/** `--tenant-map FROM=TO`, repeatable and comma-separated. */
export function parseTenantMap(entries: readonly string[]): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const entry of entries.flatMap((text) => text.split(',')).filter((text) => text.trim() !== '')) {
    const [from, to, ...rest] = entry.trim().split('=');
    // The identity room owns the tenant rule: a tenant a user could not have is refused here too.
    const ok = (id: string | undefined): id is string => id !== undefined && isValidTenant(id);
    if (rest.length > 0 || !ok(from) || !ok(to)) {
      throw invalid('tenant-map', `--tenant-map takes FROM=TO with tenant ids of 1 to ${TENANT_LENGTH_MAX} letters, digits, dash, dot and underscore; ${JSON.stringify(entry)} is not one.`);
    }
    if (pairs.has(from) && pairs.get(from) !== to) throw invalid('tenant-map', `--tenant-map maps tenant ${from} twice.`);
    pairs.set(from, to);
  }
  return pairs;
}

/** `--time-shift auto|none|<ms>`. */
export function parseTimeShift(text: string): 'auto' | 'none' | number {
  if (text === 'auto' || text === 'none') return text;
  const value = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(value)) throw invalid('time-shift', `--time-shift must be auto, none or an integer number of ms, not ${JSON.stringify(text)}.`);
  return value === 0 ? 'none' : value;
}

function checkFiles(files: readonly string[]): void {
  if (files.length === 0) throw invalid('FILE', 'give at least one recording file.');
  for (const file of files) {
    if (!existsSync(file) || !statSync(file).isFile()) throw invalid('FILE', `recording ${file} does not exist or is not a file.`);
  }
}

function loadPrevious(path: string | undefined): ReplayReport | undefined {
  return path === undefined ? undefined : readReportFile(path);
}

function validate(files: readonly string[], raw: RawOptions): ReplayOptions {
  checkFiles(files);
  if (raw.out !== undefined) throw invalid('out', '--out belongs to --convert; a replay writes its report with --report.');
  const target = required(raw.target, 'target');
  if (!/^https?:\/\/[^/\s]+/.test(target)) throw invalid('target', `--target must be an http:// or https:// URL, not ${JSON.stringify(target)}.`);
  const reportPath = raw.report;
  if (reportPath !== undefined && !existsSync(dirname(resolve(reportPath)))) throw invalid('report', `--report ${reportPath}: its directory does not exist.`);
  return {
    files,
    target,
    username: required(raw.username, 'username'),
    apiKey: required(raw.apiKey, 'api-key'),
    mode: parseMode(raw),
    concurrency: parseConcurrency(raw.concurrency),
    tenantPairs: parseTenantMap(raw.tenantMap),
    timeShift: parseTimeShift(raw.timeShift),
    includeRefused: raw.includeRefused === true,
    failOnErrors: raw.failOnErrors === true,
    reportPath,
    previous: loadPrevious(raw.compare),
  };
}

async function replay(options: ReplayOptions): Promise<void> {
  // Recordings first: a file that is not a readable recording is bad input, found before any request.
  const readers = await openRecordings(options.files);
  let target;
  try {
    target = await connectTarget({ url: options.target, username: options.username, apiKey: options.apiKey, concurrency: options.concurrency });
  } catch (error) {
    await Promise.all(readers.map((reader) => reader.close()));
    throw error;
  }
  const progress = createReplayProgress({ stream: process.stderr, isTTY: process.stderr.isTTY === true, now: () => Date.now() }, readers.reduce((sum, r) => sum + r.sizeBytes, 0));
  let outcome;
  try {
    outcome = await runReplay({
      readers,
      target,
      mode: options.mode,
      concurrency: options.concurrency,
      tenantPairs: options.tenantPairs,
      timeShift: options.timeShift,
      includeRefused: options.includeRefused,
      clock: { now: () => Date.now(), sleep: (ms) => sleep(ms) },
      onProgress: (update) => progress.update(update),
      onWait: (waitMs) => progress.notice(`strata replay: waiting ${Math.round(waitMs / 1000)}s for the next recorded request`),
    });
  } finally {
    progress.stop();
    target.close();
  }
  const { report, error } = outcome;
  process.stdout.write(renderTable(report));
  if (report.gaps.dropped > 0) process.stderr.write(`strata: warning: the recording missed ${report.gaps.dropped} request(s); the target got fewer than the recorded server did.\n`);
  if (options.reportPath !== undefined) writeFileSync(options.reportPath, `${JSON.stringify(report, null, 2)}\n`);
  if (options.previous !== undefined) process.stdout.write(`\n${renderComparison(compareReports(options.previous, report))}`);
  if (error !== null) throw error;
  if (options.failOnErrors && report.totals.errors > 0) {
    process.stderr.write(`strata: ${report.totals.errors} replayed request(s) failed (not answered 2xx); exiting ${EXIT_REPLAY_ERRORS} (--fail-on-errors).\n`);
    process.exitCode = EXIT_REPLAY_ERRORS;
  }
}

async function convert(files: readonly string[], format: string, out: string | undefined): Promise<void> {
  checkFiles(files);
  if (format !== 'vm' && format !== 'influx') throw invalid('convert', `--convert takes vm or influx, not ${JSON.stringify(format)}.`);
  if (out !== undefined && !existsSync(dirname(resolve(out)))) throw invalid('out', `--out ${out}: its directory does not exist.`);
  const stream = out === undefined ? process.stdout : openConvertOutput(out);
  try {
    const summary = await convertRecordings(files, format, stream);
    process.stderr.write(`convert: ${Object.entries(summary).map(([key, value]) => `${key} ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`).join(', ')}\n`);
  } finally {
    if (stream !== process.stdout) await new Promise<void>((done) => stream.end(done));
  }
}

/** Commander's own errors (unknown option, missing value) are bad input too: exit 2, as printError does. */
function exitOnCommanderError(error: CommanderError): never {
  process.exit(error.exitCode === 0 ? 0 : EXIT_BAD_INPUT);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The `replay` command. */
export function replayCommand(): Command {
  return new Command('replay')
    .description('replay recordings (strata serve --record, strata workload) against a Strata server and report latency and throughput; or convert them with --convert')
    .argument('<files...>', 'recording files (a rotation set may be given in any order: they replay oldest first)')
    .option('--target <url>', 'base URL of the server to replay into, e.g. http://127.0.0.1:19000')
    .option('--username <name>', 'user on the target')
    .addOption(new Option('--api-key <key>', "the user's API key").env('STRATA_REPLAY_API_KEY'))
    .option('--speed <factor>', 'pace by the recorded arrival times, N times faster (default 1: real time)')
    .option('--max', 'send as fast as the target answers, --concurrency requests at a time')
    .option('--concurrency <n>', `requests in flight at most (1 to ${REPLAY_CONCURRENCY_MAX}, default ${REPLAY_CONCURRENCY_DEFAULT}); above 1 the target may see requests in another order`)
    .option('--tenant-map <from=to>', "send a recorded tenant's requests to another tenant (repeatable, or comma-separated); unmapped tenants go to the user's tenant", collect, [])
    .option('--time-shift <shift>', 'auto (whole days, so the recording lands in the last day), none, or ms to add to every time', 'auto')
    .option('--include-refused', 'also send requests the recording server refused (401, 403, 503)')
    .option('--fail-on-errors', `exit ${EXIT_REPLAY_ERRORS} when any replayed request failed (answered other than 2xx, or not at all); default: exit 0`)
    .option('--report <file>', 'write the report as JSON to this file')
    .option('--compare <file>', 'print a comparison with an earlier --report file')
    .option('--convert <format>', 'instead of replaying, convert the recordings to vm (VictoriaMetrics JSON lines) or influx (line protocol)')
    .option('--out <file>', 'with --convert: write here instead of stdout (created 0600; a symbolic link or non-regular file is refused)')
    .exitOverride(exitOnCommanderError)
    .action(async (files: string[], raw: RawOptions) => {
      try {
        if (raw.convert !== undefined) await convert(files, raw.convert, raw.out);
        else await replay(validate(files, raw));
      } catch (error) {
        printError(error);
      }
    });
}
