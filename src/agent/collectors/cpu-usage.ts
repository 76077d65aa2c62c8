// Owns the CPU usage arithmetic: from two samples of /proc/stat cpu times to the percentages the agent.cpu check reports.
import { assert } from '../../core/assert.js';
import type { CpuTimes } from './proc-stat.js';

/** The share of time a CPU spent in each of the reference agent's six states, in percent (they sum to 100). */
export interface CpuStatePercents {
  /** user + nice. */
  readonly user: number;
  readonly sys: number;
  readonly idle: number;
  /** iowait. */
  readonly wait: number;
  /** irq + softirq. */
  readonly irq: number;
  /** steal. */
  readonly stolen: number;
}

/** What agent.cpu reports: the per-state averages over CPUs, and each CPU's usage (100 - idle) averaged, least and most. */
export interface CpuUsage {
  readonly cpuCount: number;
  readonly averages: CpuStatePercents;
  readonly usageAverage: number;
  readonly minUsage: number;
  readonly maxUsage: number;
}

const STATES = ['user', 'sys', 'idle', 'wait', 'irq', 'stolen'] as const;
type State = (typeof STATES)[number];
type StateTicks = Record<State, number>;

function ticksOf(times: CpuTimes): StateTicks {
  return {
    user: times.user + times.nice,
    sys: times.system,
    idle: times.idle,
    wait: times.iowait,
    irq: times.irq + times.softirq,
    stolen: times.steal,
  };
}

function sum(ticks: StateTicks): number {
  return STATES.reduce((total, state) => total + ticks[state], 0);
}

/**
 * The ticks of one CPU since its previous sample. A state whose counter went back (iowait can, on tickless
 * kernels) counts 0; a CPU with no previous sample, or whose counters did not advance at all, is measured since boot.
 */
function deltaTicks(current: CpuTimes, previous: CpuTimes | undefined): StateTicks {
  const now = ticksOf(current);
  if (previous === undefined) return now;
  const before = ticksOf(previous);
  const delta = {} as StateTicks;
  for (const state of STATES) delta[state] = Math.max(0, now[state] - before[state]);
  return sum(delta) > 0 ? delta : now;
}

/** Percent of each state; a CPU that has no ticks at all (a fresh or fabricated sample) counts as wholly idle. */
function percentsOf(ticks: StateTicks): CpuStatePercents {
  const total = sum(ticks);
  if (total <= 0) return { user: 0, sys: 0, idle: 100, wait: 0, irq: 0, stolen: 0 };
  const percent = (state: State): number => (ticks[state] / total) * 100;
  return { user: percent('user'), sys: percent('sys'), idle: percent('idle'), wait: percent('wait'), irq: percent('irq'), stolen: percent('stolen') };
}

/** Keeps a computed percentage inside [0, 100] against floating-point drift (100 - 100.00000000000001). */
function clampPercent(value: number): number {
  return Math.min(100, Math.max(0, value));
}

/**
 * CPU usage of `current` since `previous` (matched by CPU id; undefined on the first collection: since boot).
 * Percentages are computed per CPU and then averaged, as the reference agent does, so every CPU weighs the same.
 */
export function cpuUsage(previous: readonly CpuTimes[] | undefined, current: readonly CpuTimes[]): CpuUsage {
  assert(current.length > 0, 'cpuUsage needs at least one CPU');
  const before = new Map((previous ?? []).map((times) => [times.id, times] as const));
  const perCpu = current.map((times) => percentsOf(deltaTicks(times, before.get(times.id))));
  const averages = {} as Record<State, number>;
  for (const state of STATES) averages[state] = clampPercent(perCpu.reduce((total, p) => total + p[state], 0) / perCpu.length);
  const usages = perCpu.map((p) => clampPercent(100 - p.idle));
  return {
    cpuCount: current.length,
    averages,
    usageAverage: clampPercent(usages.reduce((total, usage) => total + usage, 0) / usages.length),
    minUsage: Math.min(...usages),
    maxUsage: Math.max(...usages),
  };
}
