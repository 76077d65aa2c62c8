// Owns the `processes` host information: each process's /proc/<pid>/stat and status and its exe, cwd and root links, the lowest pids first, bounded.
import { parseMeminfo } from '../collectors/meminfo.js';
import { readProcFile } from '../collectors/proc-file.js';
import { ticksToMs } from './cpus-reader.js';
import { cutText, mapBounded, orUndefined, readSmall, under, type HostPaths } from './host-files.js';
import { HOST_INFO_PROCESSES_MAX } from './host-info-limits.js';
import { bootTimeSeconds, parsePidStat, type PidStat } from './proc-pid.js';

/** One item of the `processes` answer: times in ms, sizes in bytes; links null when the process is gone or the agent may not read them. */
export interface ProcessItem {
  readonly pid: number;
  readonly exe_name: string | null;
  readonly exe_cwd: string | null;
  readonly exe_root: string | null;
  readonly time_total: number;
  readonly time_sys: number;
  readonly time_user: number;
  /** When the process started, ms since the epoch (null when /proc/stat has no btime). */
  readonly time_start_time: number | null;
  readonly state_name: string;
  readonly state_priority: number;
  readonly state_threads: number;
  readonly memory_size: number;
  readonly memory_resident: number | null;
  readonly memory_share: number | null;
  readonly memory_major_faults: number;
  readonly memory_minor_faults: number;
  readonly memory_page_faults: number;
}

/** The links of a process (undefined: unreadable). */
export interface ProcessLinks {
  readonly exe: string | undefined;
  readonly cwd: string | undefined;
  readonly root: string | undefined;
}

/**
 * The item of one process from its stat line, its status lines (resident and shared sizes in kB there, so no page size
 * is assumed) and its links. Kernel threads have no VmRSS: with no resident pages their sizes are 0.
 */
export function processItem(stat: PidStat, statusText: string | undefined, links: ProcessLinks, bootSeconds: number | undefined): ProcessItem {
  const status = parseMeminfo(statusText ?? '');
  const none = stat.rssPages === 0 ? 0 : null;
  const rssFile = status.get('RssFile');
  const rssShmem = status.get('RssShmem');
  const text = (value: string | undefined): string | null => (value === undefined ? null : cutText(value));
  return {
    pid: stat.pid,
    exe_name: text(links.exe),
    exe_cwd: text(links.cwd),
    exe_root: text(links.root),
    time_total: ticksToMs(stat.utime + stat.stime),
    time_sys: ticksToMs(stat.stime),
    time_user: ticksToMs(stat.utime),
    time_start_time: bootSeconds === undefined ? null : bootSeconds * 1000 + ticksToMs(stat.startTicks),
    state_name: cutText(stat.comm),
    state_priority: stat.priority,
    state_threads: stat.threads,
    memory_size: stat.vsizeBytes,
    memory_resident: status.get('VmRSS') ?? none,
    memory_share: rssFile !== undefined && rssShmem !== undefined ? rssFile + rssShmem : none,
    memory_major_faults: stat.majorFaults,
    memory_minor_faults: stat.minorFaults,
    memory_page_faults: stat.majorFaults + stat.minorFaults,
  };
}

/** The pids of /proc's numeric entries, ascending. */
export function pidsOf(entries: readonly string[]): number[] {
  return entries.filter((name) => /^\d{1,10}$/.test(name)).map(Number).sort((a, b) => a - b);
}

async function readProcess(paths: HostPaths, pid: number, bootSeconds: number | undefined): Promise<ProcessItem | undefined> {
  const dir = under(paths.procRoot, String(pid));
  const statText = await readSmall(under(dir, 'stat'));
  const stat = statText === undefined ? undefined : parsePidStat(statText);
  // Gone between the directory listing and now, or not a stat line: not listed.
  if (stat === undefined) return undefined;
  const link = (name: string): Promise<string | undefined> => orUndefined(() => paths.fs.readlink(under(dir, name)));
  const [statusText, exe, cwd, root] = await Promise.all([readSmall(under(dir, 'status')), link('exe'), link('cwd'), link('root')]);
  return processItem(stat, statusText, { exe, cwd, root }, bootSeconds);
}

/**
 * Reads the first HOST_INFO_PROCESSES_MAX pids of /proc (ascending). `total` counts the processes listed and those left
 * unread past the bound (processes gone while they were read count in neither), so total > items.length means cut.
 */
export async function readProcesses(paths: HostPaths): Promise<{ items: ProcessItem[]; total: number }> {
  const pids = pidsOf(await paths.fs.readdir(paths.procRoot));
  const bootSeconds = bootTimeSeconds((await readProcFile(under(paths.procRoot, 'stat'))).text);
  const kept = pids.slice(0, HOST_INFO_PROCESSES_MAX);
  const items = (await mapBounded(kept, (pid) => readProcess(paths, pid, bootSeconds))).filter((item): item is ProcessItem => item !== undefined);
  return { items, total: items.length + pids.length - kept.length };
}
