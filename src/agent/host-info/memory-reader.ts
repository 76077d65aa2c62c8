// Owns the `memory` host information: the agent.memory figures from /proc/meminfo and /proc/vmstat, named as the reference's host info names them.
import { parseMeminfo } from '../collectors/meminfo.js';
import { memoryFigures } from '../collectors/memory-figures.js';
import { readProcFile } from '../collectors/proc-file.js';
import { parseVmstat } from '../collectors/vmstat.js';
import { orUndefined, under, type HostPaths } from './host-files.js';

/** The `memory` answer: bytes, but `ram` in MiB (rounded up to 8, as the reference's) and the swap page counts; null where /proc does not say. */
export interface MemoryInfo {
  readonly total: number | null;
  readonly used: number | null;
  readonly free: number | null;
  readonly actual_free: number | null;
  readonly actual_used: number | null;
  readonly ram: number | null;
  readonly swap_total: number | null;
  readonly swap_used: number | null;
  readonly swap_free: number | null;
  readonly swap_page_in: number | null;
  readonly swap_page_out: number | null;
}

/** The answer from the two files' text (vmstat undefined when it could not be read); every field null when meminfo lacks MemTotal or MemFree. */
export function memoryInfo(meminfoText: string, vmstatText: string | undefined): MemoryInfo {
  const figures = memoryFigures(parseMeminfo(meminfoText), vmstatText === undefined ? undefined : parseVmstat(vmstatText));
  if (!figures.ok) {
    return { total: null, used: null, free: null, actual_free: null, actual_used: null, ram: null, swap_total: null, swap_used: null, swap_free: null, swap_page_in: null, swap_page_out: null };
  }
  const f = figures.value;
  return {
    total: f.total,
    used: f.used,
    free: f.free,
    actual_free: f.actualFree,
    actual_used: f.actualUsed,
    ram: f.ramMb,
    swap_total: f.swapTotal,
    swap_used: f.swapUsed,
    swap_free: f.swapFree,
    swap_page_in: f.swapPagesIn ?? null,
    swap_page_out: f.swapPagesOut ?? null,
  };
}

/** Reads /proc/meminfo (required) and /proc/vmstat (optional). */
export async function readMemory(paths: HostPaths): Promise<MemoryInfo> {
  const meminfo = await readProcFile(under(paths.procRoot, 'meminfo'));
  const vmstat = await orUndefined(() => readProcFile(under(paths.procRoot, 'vmstat')));
  return memoryInfo(meminfo.text, vmstat?.text);
}
