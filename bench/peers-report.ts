// Owns the peer bench's report: per-kind tables of every system, and Strata's same-run ratios to VictoriaMetrics against the goals.
import type { ValueKind } from '../src/workload/standard-workload.js';
import type { PeerRun } from './peers-measure.js';
import type { PeerSystemName } from './peers-system.js';
import { rate, renderTable } from './report.js';
import { spreadOf, type Spread } from './spread.js';
import { mark } from './targets.js';

/** Goal: Strata's msgpack ingest rate over VictoriaMetrics' in the same run. */
export const MSGPACK_INGEST_OVER_VM_MIN = 2;
/** Goal: Strata's JSON ingest rate over VictoriaMetrics' in the same run. */
export const JSON_INGEST_OVER_VM_MIN = 1.2;
/** Goal: Strata's 288-point plot p50 over VictoriaMetrics' in the same run. */
export const PLOT_P50_OVER_VM_MAX = 0.5;

const MIB = 2 ** 20;

/** Labels of the systems in the tables. */
export const SYSTEM_LABELS: Readonly<Record<PeerSystemName, string>> = {
  'strata-msgpack': 'Strata (HTTP, msgpack)',
  'strata-json': 'Strata (HTTP, JSON)',
  vm: 'VictoriaMetrics',
  influx: 'InfluxDB',
};

/** One system's runs on one kind, summarised. */
export interface SystemSummary {
  readonly system: PeerSystemName;
  readonly runs: number;
  readonly pointsPerSecond: Spread;
  readonly bytesPerPoint: Spread;
  readonly fullBytesPerPoint: Spread | null;
  readonly plotP50Ms: Spread;
  readonly plotP99Ms: Spread;
  readonly peakRssMb: Spread;
  readonly readBackExact: Spread;
  readonly readBackChecked: number;
  /** Runs whose count did not reach every point (written, but not all readable in time). */
  readonly incompleteRuns: number;
}

/** Strata over VictoriaMetrics, run by run (both measured in the same run of the bench). */
export interface RatioSummary {
  readonly system: PeerSystemName;
  readonly ingestOverVm: Spread;
  readonly plotP50OverVm: Spread;
  readonly ingestGoal: number;
  readonly ingestMet: boolean;
  readonly plotMet: boolean;
}

/** Summarises every system's runs on one kind. */
export function summariseSystems(runs: readonly PeerRun[]): SystemSummary[] {
  const systems = [...new Set(runs.map((r) => r.system))];
  return systems.map((system) => {
    const mine = runs.filter((r) => r.system === system);
    const full = mine.map((r) => r.fullBytesPerPoint).filter((v): v is number => v !== null);
    return {
      system,
      runs: mine.length,
      pointsPerSecond: spreadOf(mine.map((r) => r.pointsPerSecond)),
      bytesPerPoint: spreadOf(mine.map((r) => r.bytesPerPoint)),
      fullBytesPerPoint: full.length === 0 ? null : spreadOf(full),
      plotP50Ms: spreadOf(mine.map((r) => r.plot.p50Ms)),
      plotP99Ms: spreadOf(mine.map((r) => r.plot.p99Ms)),
      peakRssMb: spreadOf(mine.map((r) => r.peakRssBytes / MIB)),
      readBackExact: spreadOf(mine.map((r) => r.readBack.exact)),
      readBackChecked: mine[0]?.readBack.checked ?? 0,
      incompleteRuns: mine.filter((r) => !r.count.complete).length,
    };
  });
}

/** Each Strata system's ratios to VictoriaMetrics, pairing runs by their number; empty without VM. */
export function strataRatios(runs: readonly PeerRun[]): RatioSummary[] {
  const vmByRun = new Map(runs.filter((r) => r.system === 'vm').map((r) => [r.run, r]));
  const strata: PeerSystemName[] = ['strata-msgpack', 'strata-json'];
  return strata.flatMap((system) => {
    const pairs = runs.filter((r) => r.system === system && vmByRun.has(r.run)).map((r) => [r, vmByRun.get(r.run) as PeerRun] as const);
    if (pairs.length === 0) return [];
    const ingestOverVm = spreadOf(pairs.map(([s, vm]) => s.pointsPerSecond / vm.pointsPerSecond));
    const plotP50OverVm = spreadOf(pairs.map(([s, vm]) => s.plot.p50Ms / vm.plot.p50Ms));
    const ingestGoal = system === 'strata-msgpack' ? MSGPACK_INGEST_OVER_VM_MIN : JSON_INGEST_OVER_VM_MIN;
    return [{ system, ingestOverVm, plotP50OverVm, ingestGoal, ingestMet: ingestOverVm.median >= ingestGoal, plotMet: plotP50OverVm.median <= PLOT_P50_OVER_VM_MAX }];
  });
}

/** A spread as "median (min–max)" when there was more than one run. */
export function spreadText(s: Spread, format: (v: number) => string): string {
  return s.runs.length > 1 && s.min !== s.max ? `${format(s.median)} (${format(s.min)}–${format(s.max)})` : format(s.median);
}

const two = (v: number): string => v.toFixed(2);
const msText = (v: number): string => v.toFixed(2);
const whole = (v: number): string => v.toFixed(0);

/** The table of one kind: a row per system. */
export function renderKindTable(summaries: readonly SystemSummary[]): string {
  const rows = summaries.map((s) => [
    SYSTEM_LABELS[s.system],
    spreadText(s.pointsPerSecond, rate),
    spreadText(s.bytesPerPoint, two),
    s.fullBytesPerPoint === null ? '–' : spreadText(s.fullBytesPerPoint, two),
    `${spreadText(s.plotP50Ms, msText)} / ${spreadText(s.plotP99Ms, msText)}`,
    spreadText(s.peakRssMb, whole),
    `${spreadText(s.readBackExact, whole)}/${s.readBackChecked}`,
  ]);
  return renderTable(['system', 'points/s', 'B/pt whole dir', 'B/pt FULL (Strata)', 'plot p50 / p99 ms', 'peak RSS MB', 'read-back exact'], rows);
}

/** The verdict lines of the ratios to VictoriaMetrics. */
export function renderRatios(ratios: readonly RatioSummary[]): string[] {
  const times = (v: number): string => `${v.toFixed(2)}×`;
  return ratios.flatMap((r) => [
    `  ${mark(r.ingestMet)} ${SYSTEM_LABELS[r.system]} ingest ${spreadText(r.ingestOverVm, times)} VM (goal ≥ ${r.ingestGoal}×)`,
    `  ${mark(r.plotMet)} ${SYSTEM_LABELS[r.system]} plot p50 ${spreadText(r.plotP50OverVm, times)} VM (goal ≤ ${PLOT_P50_OVER_VM_MAX}×)`,
  ]);
}

/** The whole printed section of one kind: its table, warnings about incomplete counts, and the ratios. */
export function renderKind(kind: ValueKind, description: string, runs: readonly PeerRun[]): string {
  const summaries = summariseSystems(runs);
  const ratios = strataRatios(runs);
  const warnings = summaries
    .filter((s) => s.incompleteRuns > 0)
    .map((s) => `  ! ${SYSTEM_LABELS[s.system]}: in ${s.incompleteRuns} of ${s.runs} runs the count never reached every point (see peers.json)`);
  const runsNote = (summaries[0]?.runs ?? 0) > 1 ? `median (min–max) of ${summaries[0]?.runs} runs` : 'one run';
  return [
    `${kind}: ${description}`,
    `(${runsNote}; points/s from the first send until every point was readable)`,
    'B/pt: du --block-size=1 after settling / points; Strata\'s whole dir holds its 5 rollup tiers, catalog and identity too, FULL is its raw-resolution partition files alone',
    renderKindTable(summaries),
    ...warnings,
    ratios.length > 0 ? 'Strata / VictoriaMetrics in the same run:' : 'Strata / VictoriaMetrics: not measured (VictoriaMetrics or Strata not selected)',
    ...renderRatios(ratios),
  ].join('\n');
}
