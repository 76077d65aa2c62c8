// Owns the recorded NAB workload: finding and reading the 47 CSV recordings and tiling them onto the workload's series.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StrataError } from '../core/errors.js';

/** Shift, in recorded values, between successive series replaying the same recording (as the peers). */
export const NAB_SERIES_SHIFT_VALUES = 97;

/** The repository root: the nearest folder above this module that holds package.json. */
function repositoryRoot(): string {
  // Compiled to dist/src/workload/ and run from src/workload/ by the tests: walking up finds the root from both.
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return join(here, '..', '..', '..');
  }
}

/** Where the shared recordings live: `../shared/workloads/nab` beside the repository (no environment read here; the CLI adds --nab-dir). */
export function defaultNabDir(): string {
  return join(repositoryRoot(), '..', 'shared', 'workloads', 'nab');
}

/** One recording: its path relative to the NAB folder and its values, parseFloat of the CSV text. */
export interface NabRecording {
  readonly path: string;
  readonly values: Float64Array;
}

function csvFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...csvFiles(full));
    else if (entry.name.endsWith('.csv')) out.push(full);
  }
  return out;
}

function parseValues(text: string, path: string): Float64Array {
  const values: number[] = [];
  // Header first; some files end without a newline, some use CRLF; extra columns are ignored.
  const lines = text.split(/\r?\n/);
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.length === 0) continue;
    const field = line.split(',')[1];
    if (field === undefined) throw new StrataError('CONFIG_INVALID', `NAB line without a value column: ${line}`, { file: path, line: i + 1 });
    values.push(Number.parseFloat(field));
  }
  return Float64Array.from(values);
}

/** The recordings sorted by path (plain string order, as the peers' gen.js). */
export function loadNabRecordings(dir: string = defaultNabDir()): NabRecording[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new StrataError('CONFIG_INVALID', `no NAB folder at ${dir}`, { option: 'nabDir', dir });
  const paths = csvFiles(dir)
    .map((p) => relative(dir, p))
    .sort();
  if (paths.length === 0) throw new StrataError('CONFIG_INVALID', `no NAB recordings under ${dir}`, { option: 'nabDir', dir });
  const recordings = paths.map((path) => ({ path, values: parseValues(readFileSync(join(dir, path), 'utf8'), path) }));
  const empty = recordings.find((r) => r.values.length === 0);
  if (empty !== undefined) throw new StrataError('CONFIG_INVALID', `NAB recording ${empty.path} holds no values`, { option: 'nabDir', dir, file: empty.path });
  return recordings;
}

/**
 * Value `k` of series `i`: series i replays recording i % R from its value number
 * floor(i / R) * 97 (mod its length), wrapping when the recording is shorter than the series.
 */
export function nabValue(recordings: readonly NabRecording[], series: number, k: number): number {
  const rec = recordings[series % recordings.length] as NabRecording;
  const len = rec.values.length;
  const offset = (Math.floor(series / recordings.length) * NAB_SERIES_SHIFT_VALUES) % len;
  return rec.values[(offset + k) % len] as number;
}

/** How the recordings become the workload, for the benchmark output and recording headers. */
export function describeNabTiling(recordings: readonly NabRecording[]): string {
  const total = recordings.reduce((sum, r) => sum + r.values.length, 0);
  return (
    `NAB: ${recordings.length} CSVs (${total} values) sorted by path; series i replays recording i % ${recordings.length} ` +
    `from value number floor(i/${recordings.length})*${NAB_SERIES_SHIFT_VALUES} mod its length, wrapping; ` +
    'recorded timestamps dropped, point k at t0 + k*interval; values parseFloat of the CSV text'
  );
}
