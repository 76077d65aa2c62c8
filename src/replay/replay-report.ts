// Owns the replay report: its JSON shape, the table printed after a run, and the comparison with an earlier report (checking a file is replay-report-file.ts).
import { REPLAY_LATENCY_US_MAX } from './replay-limits.js';
import type { LagSummary } from './replay-pacing.js';
import type { ErrorCounts, RouteSummary } from './replay-stats.js';
import { REPLAY_DAY_MS } from './replay-transform.js';

/**
 * Version of the report's JSON shape; --compare reads reports of this version only. Version 2:
 * latencies and points of 2xx answers only, error latencies, rejected points, clamped latencies,
 * skipped requests of other routes.
 */
export const REPLAY_REPORT_VERSION = 2;
/** The `kind` every replay report carries, so --compare can tell one from any other JSON file. */
export const REPLAY_REPORT_KIND = 'strata-replay-report';

/** One recording file a run replayed. */
export interface ReportRecording {
  readonly path: string;
  readonly sizeBytes: number;
  readonly producer: string;
  readonly sequence: number;
  /** ISO time of the recording's start. */
  readonly startedAt: string;
}

/** The options the run used (after defaults). */
export interface ReportOptions {
  readonly mode: 'speed' | 'max';
  /** The --speed factor; null under --max. */
  readonly speed: number | null;
  readonly concurrency: number;
  /** 'auto', 'none' or the ms given. */
  readonly timeShift: 'auto' | 'none' | number;
  /** The shift applied to each distinct recording start, ms (whole days under auto). */
  readonly timeShiftsMs: readonly number[];
  /** Explicit --tenant-map pairs; every other recorded tenant went to `fallbackTenant`. */
  readonly tenantMap: Readonly<Record<string, string>>;
  readonly fallbackTenant: string;
  readonly includeRefused: boolean;
}

/** Everything a replay run measured. */
export interface ReplayReport {
  readonly kind: typeof REPLAY_REPORT_KIND;
  readonly version: typeof REPLAY_REPORT_VERSION;
  readonly target: string;
  readonly recordings: readonly ReportRecording[];
  /** ISO time the first request went out. */
  readonly startedAt: string;
  /** Wall seconds from the first request to the last response (3 decimals). */
  readonly seconds: number;
  readonly options: ReportOptions;
  readonly totals: RouteSummary;
  readonly routes: readonly RouteSummary[];
  readonly errors: ErrorCounts;
  /**
   * Exchanges not sent: `refused`, because the recording server refused them (401/403/503) and
   * --include-refused was not given; `notRecordedRoute`, because they are not one of the five
   * recorded routes (or their URL is unsafe), which replay never sends.
   */
  readonly skipped: { readonly refused: number; readonly notRecordedRoute: number };
  /** Gap frames in the recordings and the requests they stand for, which the recording missed. */
  readonly gaps: { readonly frames: number; readonly dropped: number };
  /** How late frames went out under --speed; null under --max. */
  readonly lag: LagSummary | null;
  /** False when the run stopped early (a damaged recording); the figures cover what was sent. */
  readonly complete: boolean;
}

/** Right-aligns every column but the first; each row is an array of cells. */
function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ').trimEnd()).join('\n');
}

/** A shift for people: whole days as days, anything else in ms. */
function shiftText(shiftsMs: readonly number[]): string {
  const texts = shiftsMs.map((ms) => (ms === 0 ? 'none' : ms % REPLAY_DAY_MS === 0 ? `${ms / REPLAY_DAY_MS} d` : `${ms} ms`));
  return texts.length === 0 ? 'none' : texts.join(', ');
}

function fixed(value: number, digits: number): string {
  return value.toFixed(digits);
}

function routeRow(r: RouteSummary): string[] {
  return [r.route, String(r.requests), String(r.errors), fixed(r.p50Ms, 2), fixed(r.p90Ms, 2), fixed(r.p99Ms, 2), fixed(r.p999Ms, 2), fixed(r.maxMs, 2), fixed(r.meanMs, 2), fixed(r.okPerSecond, 1), String(r.points), fixed(r.pointsPerSecond, 0), String(r.bytesSent)];
}

function countsLine(label: string, counts: Readonly<Record<string, number>>): string | undefined {
  const entries = Object.entries(counts);
  return entries.length === 0 ? undefined : `${label}: ${entries.map(([key, n]) => `${key} x${n}`).join(', ')}`;
}

/** The latencies of error answers per route, which the table leaves out so that fast refusals do not flatter it. */
function errorLatencyLine(report: ReplayReport): string | undefined {
  const parts = report.routes
    .filter((r) => r.errorAnswers > 0)
    .map((r) => `${r.route} x${r.errorAnswers} p50 ${fixed(r.errorP50Ms, 2)} p99 ${fixed(r.errorP99Ms, 2)} max ${fixed(r.errorMaxMs, 2)}`);
  return parts.length === 0 ? undefined : `latency of error answers (ms): ${parts.join('; ')}`;
}

/** Lines after the table: errors, differences from the recording, skipped, gaps, clamps and lag. */
function notes(report: ReplayReport): string[] {
  const { totals } = report;
  const lines = [countsLine('errors by status', report.errors.byStatus), countsLine('errors by code', report.errors.byCode), errorLatencyLine(report)].filter((line): line is string => line !== undefined);
  if (totals.pointsRejected > 0) lines.push(`points of requests not answered 2xx (left out of points and points/s): ${totals.pointsRejected}`);
  if (totals.statusChanged > 0) lines.push(`answered differently than when recorded: ${totals.statusChanged} request(s)`);
  if (totals.latencyClamped > 0) lines.push(`${totals.latencyClamped} latency value(s) above ${REPLAY_LATENCY_US_MAX / 1e6} s were recorded as ${REPLAY_LATENCY_US_MAX / 1e6} s: the top percentiles understate them`);
  if (report.skipped.refused > 0) lines.push(`skipped ${report.skipped.refused} request(s) the recording server refused (401/403/503); --include-refused sends them`);
  if (report.skipped.notRecordedRoute > 0) lines.push(`skipped: not a recorded route: ${report.skipped.notRecordedRoute} request(s) (replay sends only the five recorded routes)`);
  if (report.gaps.dropped > 0 || report.gaps.frames > 0) {
    lines.push(`warning: the recording missed ${report.gaps.dropped} request(s) (${report.gaps.frames} gap frame(s)): the recorder's queue was full`);
  }
  lines.push(report.lag === null ? 'lag: n/a (--max)' : `lag behind schedule: max ${report.lag.maxMs} ms, p99 ${report.lag.p99Ms} ms, ${report.lag.lateFrames} frame(s) late`);
  return lines;
}

/** The report as text: a header, an aligned per-route table (latencies, ok/s and points of 2xx answers), then errors, skipped, gaps and lag lines. */
export function renderTable(report: ReplayReport): string {
  const o = report.options;
  const pacing = o.mode === 'max' ? `--max, concurrency ${o.concurrency}` : `--speed ${o.speed}, concurrency ${o.concurrency}`;
  const lines = [
    `replay of ${report.recordings.length} recording file(s) into ${report.target} (${pacing}, time shift ${shiftText(o.timeShiftsMs)})`,
    `started ${report.startedAt}, ${fixed(report.seconds, 3)} s${report.complete ? '' : ' (stopped early: the recording is damaged)'}`,
    'latencies, ok/s and points count 2xx answers only',
    '',
    table([
      ['route', 'requests', 'errors', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'mean ms', 'ok/s', 'points', 'points/s', 'bytes sent'],
      ...report.routes.map(routeRow),
      routeRow(report.totals),
    ]),
    '',
    ...notes(report),
  ];
  return `${lines.join('\n')}\n`;
}

/** Before/after figures of one route (all of 2xx answers). */
export interface RouteComparison {
  readonly route: string;
  readonly p50Ms: Pair;
  readonly p99Ms: Pair;
  readonly okPerSecond: Pair;
  readonly pointsPerSecond: Pair;
}

/** A figure before and after, and after / before (null when before is 0 or the route is missing on one side). */
export interface Pair {
  readonly before: number | null;
  readonly after: number | null;
  readonly ratio: number | null;
}

function pair(before: number | undefined, after: number | undefined): Pair {
  const ratio = before !== undefined && after !== undefined && before !== 0 ? Math.round((after / before) * 100) / 100 : null;
  return { before: before ?? null, after: after ?? null, ratio };
}

/** Per route (those of either report, in the current report's order, then the total) the 2xx figures before and after. */
export function compareReports(previous: ReplayReport, current: ReplayReport): RouteComparison[] {
  const before = new Map(previous.routes.map((r) => [r.route, r]));
  const after = new Map(current.routes.map((r) => [r.route, r]));
  const names = [...after.keys(), ...[...before.keys()].filter((name) => !after.has(name))];
  const rows = names.map((name) => [before.get(name), after.get(name), name] as const);
  rows.push([previous.totals, current.totals, 'total']);
  return rows.map(([b, a, route]) => ({
    route,
    p50Ms: pair(b?.p50Ms, a?.p50Ms),
    p99Ms: pair(b?.p99Ms, a?.p99Ms),
    okPerSecond: pair(b?.okPerSecond, a?.okPerSecond),
    pointsPerSecond: pair(b?.pointsPerSecond, a?.pointsPerSecond),
  }));
}

function pairCells(p: Pair, digits: number): string[] {
  const text = (v: number | null): string => (v === null ? '-' : fixed(v, digits));
  return [text(p.before), text(p.after), p.ratio === null ? '-' : `x${fixed(p.ratio, 2)}`];
}

/** The comparison as an aligned table (ratios are after / before: above 1 is slower for latencies, faster for rates). */
export function renderComparison(rows: readonly RouteComparison[]): string {
  const header = ['route', 'p50 before', 'p50 after', 'ratio', 'p99 before', 'p99 after', 'ratio', 'ok/s before', 'ok/s after', 'ratio', 'points/s before', 'points/s after', 'ratio'];
  const body = rows.map((r) => [r.route, ...pairCells(r.p50Ms, 2), ...pairCells(r.p99Ms, 2), ...pairCells(r.okPerSecond, 1), ...pairCells(r.pointsPerSecond, 0)]);
  return `comparison with the previous report (2xx answers; latencies in ms; ratio = after / before)\n\n${table([header, ...body])}\n`;
}
