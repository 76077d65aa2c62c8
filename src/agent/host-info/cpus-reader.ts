// Owns the `cpus` host information: each logical CPU's cumulative times from /proc/stat with its vendor, model and clock from /proc/cpuinfo.
import { readProcFile } from '../collectors/proc-file.js';
import { parseProcStat, type CpuTimes } from '../collectors/proc-stat.js';
import { coreCount, parseCpuinfo, socketCount, type CpuInfoEntry } from './cpuinfo.js';
import { orUndefined, under, type HostPaths } from './host-files.js';
import { USER_HZ } from './host-info-limits.js';

/** One item of the `cpus` answer: times in ms since boot, as the reference's (sigar's) cpu list. */
export interface CpuItem {
  readonly name: string;
  readonly vendor: string | null;
  readonly model: string | null;
  readonly mhz: number | null;
  readonly user: number;
  readonly nice: number;
  readonly sys: number;
  readonly idle: number;
  readonly wait: number;
  readonly irq: number;
  readonly soft_irq: number;
  readonly stolen: number;
  readonly total: number;
  readonly total_cores: number;
  readonly total_sockets: number | null;
}

/** Milliseconds of a count of USER_HZ ticks. */
export function ticksToMs(ticks: number): number {
  return Math.round((ticks * 1000) / USER_HZ);
}

/** The items of /proc/stat's per-CPU lines (the all-CPU line when there are none) joined with /proc/cpuinfo by processor number. */
export function cpuItems(times: readonly CpuTimes[], info: readonly CpuInfoEntry[]): CpuItem[] {
  const byProcessor = new Map(info.map((entry) => [entry.processor, entry] as const));
  const totalCores = coreCount(info, times.length);
  const totalSockets = socketCount(info);
  return times.map((cpu) => {
    const index = cpu.id === 'cpu' ? 0 : Number(cpu.id.slice('cpu'.length));
    const entry = byProcessor.get(index);
    const ms = (ticks: number): number => ticksToMs(ticks);
    const total = cpu.user + cpu.nice + cpu.system + cpu.idle + cpu.iowait + cpu.irq + cpu.softirq + cpu.steal;
    return {
      name: `cpu.${index}`,
      vendor: entry?.vendor ?? null,
      model: entry?.model ?? null,
      mhz: entry?.mhz ?? null,
      user: ms(cpu.user),
      nice: ms(cpu.nice),
      sys: ms(cpu.system),
      idle: ms(cpu.idle),
      wait: ms(cpu.iowait),
      irq: ms(cpu.irq),
      soft_irq: ms(cpu.softirq),
      stolen: ms(cpu.steal),
      total: ms(total),
      total_cores: totalCores,
      total_sockets: totalSockets,
    };
  });
}

/** Reads /proc/stat (required: its failure is the answer's error) and /proc/cpuinfo (optional: vendor, model and clock null without it). */
export async function readCpus(paths: HostPaths): Promise<CpuItem[]> {
  const stat = parseProcStat((await readProcFile(under(paths.procRoot, 'stat'))).text);
  const times = stat.cpus.length > 0 ? stat.cpus : stat.all === undefined ? [] : [stat.all];
  // /proc/cpuinfo runs past a small file on hosts with hundreds of CPUs: read it as the collectors read /proc.
  const cpuinfo = await orUndefined(() => readProcFile(under(paths.procRoot, 'cpuinfo')));
  return cpuItems(times, parseCpuinfo(cpuinfo?.text ?? ''));
}
