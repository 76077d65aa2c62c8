// Owns reading a previous report for --compare: a bounded read of the file and a strict check of its JSON, refusing anything else as CONFIG_INVALID.
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { StrataError } from '../core/errors.js';
import { REPLAY_REPORT_BYTES_MAX, REPLAY_REPORT_NUMBER_MAX } from './replay-limits.js';
import { REPLAY_REPORT_KIND, REPLAY_REPORT_VERSION, type ReplayReport } from './replay-report.js';
import { ROUTE_SUMMARY_NUMBERS } from './replay-stats.js';

function refused(source: string, message: string): StrataError {
  return new StrataError('CONFIG_INVALID', `--compare ${source} ${message}`, { option: 'compare', path: source });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A figure a report may hold: a finite number from 0 to REPLAY_REPORT_NUMBER_MAX. */
function isFigure(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= REPLAY_REPORT_NUMBER_MAX;
}

function hasFigures(value: unknown, keys: readonly string[]): value is Record<string, number> {
  return isRecord(value) && keys.every((key) => isFigure(value[key]));
}

function isRouteSummary(value: unknown): boolean {
  return hasFigures(value, ROUTE_SUMMARY_NUMBERS) && typeof value['route'] === 'string';
}

function isCounts(value: unknown): boolean {
  return isRecord(value) && Object.values(value).every(isFigure);
}

/** The first part of a report that is malformed, or undefined when every part the CLI reads is well formed. */
function damagedPart(value: Record<string, unknown>): string | undefined {
  const routes = value['routes'];
  if (!Array.isArray(routes) || !routes.every(isRouteSummary) || !isRouteSummary(value['totals'])) return 'its routes or totals';
  const errors = value['errors'];
  if (!isRecord(errors) || !isCounts(errors['byStatus']) || !isCounts(errors['byCode'])) return 'its errors';
  if (!hasFigures(value['skipped'], ['refused', 'notRecordedRoute']) || !hasFigures(value['gaps'], ['frames', 'dropped'])) return 'its skipped or gaps counts';
  if (value['lag'] !== null && !hasFigures(value['lag'], ['maxMs', 'p99Ms', 'lateFrames'])) return 'its lag';
  if (!isFigure(value['seconds']) || typeof value['target'] !== 'string' || typeof value['startedAt'] !== 'string' || typeof value['complete'] !== 'boolean') return 'its run fields';
  if (!Array.isArray(value['recordings']) || !isRecord(value['options'])) return 'its recordings or options';
  return undefined;
}

/**
 * Checks that parsed JSON is a replay report this build reads: its kind and version, and every
 * figure a finite number from 0 to REPLAY_REPORT_NUMBER_MAX. Anything else is CONFIG_INVALID naming `source`.
 */
export function parseReport(value: unknown, source: string): ReplayReport {
  if (!isRecord(value) || value['kind'] !== REPLAY_REPORT_KIND) throw refused(source, `is not a strata replay report (no "kind": "${REPLAY_REPORT_KIND}").`);
  if (value['version'] !== REPLAY_REPORT_VERSION) {
    throw refused(source, `is a replay report of version ${String(value['version'])}; this build reads version ${REPLAY_REPORT_VERSION} (replay the recording again to get one).`);
  }
  const damaged = damagedPart(value);
  if (damaged !== undefined) throw refused(source, `is a damaged replay report (${damaged} are malformed, or hold a negative, non-finite or too large number).`);
  return value as unknown as ReplayReport;
}

/** Reads at most REPLAY_REPORT_BYTES_MAX + 1 bytes of a regular file; refuses a larger or non-regular one. */
function readBounded(path: string): Buffer {
  let fd: number;
  try {
    // Checked before opening too: opening a FIFO for reading would wait for a writer.
    if (!statSync(path).isFile()) throw new Error('not a file');
    fd = openSync(path, 'r');
  } catch {
    throw refused(path, 'does not exist or is not a file.');
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw refused(path, 'is not a file.');
    if (stat.size > REPLAY_REPORT_BYTES_MAX) throw refused(path, `is ${stat.size} bytes; a replay report is at most ${REPLAY_REPORT_BYTES_MAX} (REPLAY_REPORT_BYTES_MAX).`);
    // The size may change under the read: never read more than the limit allows, whatever fstat said.
    const buffer = Buffer.alloc(Math.min(stat.size, REPLAY_REPORT_BYTES_MAX) + 1);
    let filled = 0;
    for (;;) {
      const n = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (n === 0) break;
      filled += n;
      if (filled === buffer.length) break;
    }
    if (filled > REPLAY_REPORT_BYTES_MAX) throw refused(path, `is over ${REPLAY_REPORT_BYTES_MAX} bytes; a replay report is at most that (REPLAY_REPORT_BYTES_MAX).`);
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** The report in the file `path` (`--compare`): bounded in size, JSON, and a report of this version. */
export function readReportFile(path: string): ReplayReport {
  const bytes = readBounded(path);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw refused(path, 'is not JSON, so it is not a replay report.');
  }
  return parseReport(parsed, path);
}
