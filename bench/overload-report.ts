// Owns the overload bench's text: one table row per run, the target verdicts, when plots were slow and when the store sealed.
import { SLOW_ANSWER_MS } from './overload-load.js';
import type { ClientOutcome, OverloadRun } from './overload.js';

function errorsText(outcome: ClientOutcome): string {
  const all = { ...outcome.errors, ...Object.fromEntries(Object.entries(outcome.otherStatus).map(([status, n]) => [`HTTP ${status}`, n])) };
  const entries = Object.entries(all);
  return entries.length === 0 ? '0' : entries.map(([key, n]) => `${n} ${key}`).join(', ');
}

/** The rows of the overload table, one per run, and each run's target verdicts. */
export function overloadRows(runs: readonly OverloadRun[]): { header: string[]; rows: string[][]; verdicts: string[] } {
  // A percentile of no requests is NaN, which comes back from the child's JSON as null.
  const ms = (value: number | null): string => (value === null || !Number.isFinite(value) ? 'n/a' : value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${value.toFixed(0)} ms`);
  const header = ['run', 'ingest 200', 'ingest 503', 'ingest timeouts', 'ingest errors', 'points/s', 'ingest p99', '503 p99', 'plot 200', 'plot 503', 'plot timeouts', 'plot p50', 'plot p99', 'RSS start→peak'];
  const rows = runs.map((r) => [
    r.label,
    String(r.ingest.ok),
    String(r.ingest.shed),
    String(r.ingest.timeouts),
    errorsText(r.ingest),
    `${(r.ingest.pointsPerSecond / 1e6).toFixed(2)} M`,
    ms(r.ingest.okP99Ms),
    ms(r.ingest.shedP99Ms),
    String(r.plot.ok),
    String(r.plot.shed),
    String(r.plot.timeouts),
    ms(r.plot.okP50Ms),
    ms(r.plot.okP99Ms),
    `${Math.round(r.server.rssStartMiB)}→${Math.round(Math.max(r.server.rssMaxMiB, r.server.vmHwmMiB || 0))} MiB`,
  ]);
  const verdicts = runs.flatMap((r) => [...r.targets.map((t) => `  ${t.ok ? '✓' : '✗'} ${r.label}: ${t.name}: ${t.value}`), `    ${r.label}: ${slowPlotsText(r.plot)}`, `    ${r.label}: ${headDropsText(r)}`]);
  return { header, rows, verdicts };
}

function headDropsText(run: OverloadRun): string {
  const drops = run.server.headDrops ?? [];
  if (drops.length === 0) return 'the head never shrank by half (no early seal seen)';
  return `the store sealed early (head points fell by half or more, seen at the next 1 s poll) at ${drops.map(([s, before, after]) => `${s} s (${(before / 1e6).toFixed(1)} M → ${(after / 1e6).toFixed(1)} M)`).join(', ')}`;
}

/** When the slow plots started: a server stall shows as every plot client slow in the same second. */
function slowPlotsText(plot: ClientOutcome): string {
  const bySecond = new Map<number, number>();
  for (const [startS] of plot.slow) bySecond.set(Math.floor(startS), (bySecond.get(Math.floor(startS)) ?? 0) + 1);
  const seconds = [...bySecond].map(([second, count]) => `${count} at ${second} s`).join(', ');
  return `${plot.slow.length} plots over ${SLOW_ANSWER_MS / 1000} s of ${plot.ok}${seconds === '' ? '' : ` (by start: ${seconds})`}`;
}
