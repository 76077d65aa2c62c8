// Owns parsing the cpu lines of /proc/stat: each CPU's cumulative time per state since boot.
import { fieldsOf, linesOf, parseCounts } from './proc-fields.js';

/** Time one CPU (id `cpuN`, or `cpu` for all of them) spent in each state since boot, in USER_HZ ticks. */
export interface CpuTimes {
  readonly id: string;
  readonly user: number;
  readonly nice: number;
  readonly system: number;
  readonly idle: number;
  readonly iowait: number;
  readonly irq: number;
  readonly softirq: number;
  readonly steal: number;
}

/** The cpu lines of /proc/stat: the all-CPU line and one line per online CPU, in file order. */
export interface ProcStat {
  readonly all: CpuTimes | undefined;
  readonly cpus: readonly CpuTimes[];
}

/** Fewest numbers a cpu line has (user nice system idle: kernels before 2.5.41); later fields missing count as 0. */
const CPU_FIELDS_MIN = 4;
/** The fields read; guest and guest_nice (9th and 10th) are already counted in user and nice. */
const CPU_FIELDS_READ = 8;

function cpuTimesOf(line: string): CpuTimes | undefined {
  const [id, ...rest] = fieldsOf(line);
  if (id === undefined || !/^cpu\d*$/.test(id) || rest.length < CPU_FIELDS_MIN) return undefined;
  const values = parseCounts(rest);
  if (values === undefined) return undefined;
  const at = (index: number): number => (index < CPU_FIELDS_READ ? (values[index] ?? 0) : 0);
  return { id, user: at(0), nice: at(1), system: at(2), idle: at(3), iowait: at(4), irq: at(5), softirq: at(6), steal: at(7) };
}

/** Parses /proc/stat; lines that are not well-formed cpu lines (intr, ctxt, junk) are skipped, and so is a repeated cpu id. */
export function parseProcStat(text: string): ProcStat {
  let all: CpuTimes | undefined;
  const cpus: CpuTimes[] = [];
  const seen = new Set<string>();
  for (const line of linesOf(text)) {
    if (!line.startsWith('cpu')) continue;
    const times = cpuTimesOf(line);
    if (times === undefined || seen.has(times.id)) continue;
    seen.add(times.id);
    if (times.id === 'cpu') all = times;
    else cpus.push(times);
  }
  return { all, cpus };
}
