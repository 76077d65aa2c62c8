// Owns the kinds `strata workload generate` makes: which values and which arrival shape each kind has, and building one.
import { generateCounterWorkload, COUNTER_UNIT } from './counter-workload.js';
import { burstPlan, inOrderPlan, latePlan, outOfOrderPlan, type ArrivalGrid, type ArrivalPlan } from './arrival-order.js';
import { generateWorkload, type ValueKind, type WorkloadColumns } from './standard-workload.js';

/** Every kind of generated workload: three value kinds of the benchmark, counters, and three arrival shapes of the walk. */
export type WorkloadKind = ValueKind | 'counter' | 'burst' | 'late' | 'out-of-order';

/** Every workload kind, in the order the CLI lists them. */
export const WORKLOAD_KINDS: readonly WorkloadKind[] = ['walk', 'rounded', 'nab', 'counter', 'burst', 'late', 'out-of-order'];

/** What to build: the grid, the seed, the kind and how points are batched. */
export interface WorkloadOptions {
  readonly kind: WorkloadKind;
  readonly series: number;
  readonly points: number;
  readonly intervalMs: number;
  readonly seed: number;
  /** Reference "now", integer ms: the last point lands 2 to 7 minutes before it. */
  readonly endMs: number;
  readonly batchPoints: number;
  /** Folder of the NAB recordings (kind 'nab'); defaultNabDir() when absent. */
  readonly nabDir?: string | undefined;
}

/** A workload ready to be written: its columns, the order and batches they are sent in, and how it was made. */
export interface BuiltWorkload {
  readonly options: WorkloadOptions;
  readonly columns: WorkloadColumns;
  readonly plan: ArrivalPlan;
  /** Unit every point carries ('count' for counters), or undefined for none. */
  readonly unit: string | undefined;
  /** The values' sentence and the arrival sentence, for the recording header. */
  readonly description: string;
}

/** The values a kind starts from: the arrival kinds reshape the full-precision walk. */
export function valueKindOf(kind: WorkloadKind): ValueKind | 'counter' {
  return kind === 'burst' || kind === 'late' || kind === 'out-of-order' ? 'walk' : kind;
}

function arrivalPlan(kind: WorkloadKind, grid: ArrivalGrid, batchPoints: number): ArrivalPlan {
  if (kind === 'burst') return burstPlan(grid, batchPoints);
  if (kind === 'late') return latePlan(grid, batchPoints);
  if (kind === 'out-of-order') return outOfOrderPlan(grid, batchPoints);
  return inOrderPlan(grid, batchPoints);
}

/** Generates a kind's columns and arrival plan. Deterministic for given options (the NAB files aside). */
export function buildWorkload(options: WorkloadOptions): BuiltWorkload {
  const { series, points, intervalMs, seed, endMs } = options;
  const values = valueKindOf(options.kind);
  const columns: WorkloadColumns =
    values === 'counter'
      ? generateCounterWorkload({ series, points, seed, endMs, intervalMs })
      : generateWorkload({ series, points, seed, endMs, intervalMs, kind: values, nabDir: options.nabDir });
  const plan = arrivalPlan(options.kind, { series, points, intervalMs, seed }, options.batchPoints);
  const unit = values === 'counter' ? COUNTER_UNIT : undefined;
  const description = `${series} series x ${points} points at ${intervalMs} ms; ${columns.description}. Arrival: ${plan.description}.`;
  return { options, columns, plan, unit, description };
}
