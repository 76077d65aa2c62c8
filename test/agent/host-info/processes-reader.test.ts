// Tests the processes reader on fixture /proc trees: stat, status and links per pid, kernel threads, vanished and unreadable processes, the lowest pids first and the cut at HOST_INFO_PROCESSES_MAX.
import { describe, expect, it } from 'vitest';
import { hostPathsOf } from '../../../src/agent/host-info/host-files.js';
import { HOST_INFO_PROCESSES_MAX } from '../../../src/agent/host-info/host-info-limits.js';
import { HostInfoReader } from '../../../src/agent/host-info/host-info-reader.js';
import { bootTimeSeconds, parsePidStat } from '../../../src/agent/host-info/proc-pid.js';
import { pidsOf, readProcesses } from '../../../src/agent/host-info/processes-reader.js';
import { ManualClock } from '../../../src/core/clock.js';
import { PROC_STAT } from '../collectors/proc-fixtures.js';
import { pidStatLine, PID_STATUS, treesRemovedAfterEach, type FixtureEntry } from './host-fixtures.js';

const treeWith = treesRemovedAfterEach();

function procWith(files: Record<string, FixtureEntry>): string {
  return treeWith({ stat: PROC_STAT, ...files });
}

/** btime of PROC_STAT, in seconds. */
const BOOT_SECONDS = 1763632932;

describe('parsePidStat', () => {
  it('reads the fields by their proc(5) numbers, the name up to the last parenthesis', () => {
    expect(parsePidStat(pidStatLine(42, 'my (odd) name', { priority: -100, threads: 7, start: 123, vsize: 9, rss: 2 }))).toEqual({
      pid: 42,
      comm: 'my (odd) name',
      minorFaults: 7810,
      majorFaults: 24,
      utime: 7,
      stime: 201,
      priority: -100,
      threads: 7,
      startTicks: 123,
      vsizeBytes: 9,
      rssPages: 2,
    });
  });

  it('refuses lines that are not a stat line', () => {
    for (const text of ['', '1 (x) S 0', 'x (y) S ' + '0 '.repeat(30), '1 x) S ' + '0 '.repeat(30), pidStatLine(1, 'a').replace(' 24 ', ' x ')]) expect(parsePidStat(text)).toBeUndefined();
    expect(bootTimeSeconds(PROC_STAT)).toBe(BOOT_SECONDS);
    expect(bootTimeSeconds('cpu 1 2 3 4\n')).toBeUndefined();
  });
});

describe('readProcesses', () => {
  it('lists each process with the reference fields: times in ms, start time from btime, sizes in bytes, links', async () => {
    const procRoot = procWith({
      '1/stat': pidStatLine(1, 'init'),
      '1/status': PID_STATUS,
      '1/exe': { link: '/sbin/init' },
      '1/cwd': { link: '/' },
      '1/root': { link: '/' },
      // A kernel thread: no status sizes, no exe link.
      '2/stat': pidStatLine(2, 'kthreadd', { vsize: 0, rss: 0 }),
      '2/status': 'Name:\tkthreadd\nThreads:\t1\n',
      'self': { link: '1' },
      'net/dev': '',
    });
    const { items, total } = await readProcesses(hostPathsOf({ procRoot }));
    expect(total).toBe(2);
    expect(items[0]).toEqual({
      pid: 1,
      exe_name: '/sbin/init',
      exe_cwd: '/',
      exe_root: '/',
      time_total: 2080,
      time_sys: 2010,
      time_user: 70,
      time_start_time: BOOT_SECONDS * 1000 + 42_000,
      state_name: 'init',
      state_priority: 20,
      state_threads: 1,
      memory_size: 24387584,
      memory_resident: 2040 * 1024,
      memory_share: (1300 + 4) * 1024,
      memory_major_faults: 24,
      memory_minor_faults: 7810,
      memory_page_faults: 7834,
    });
    expect(items[1]).toMatchObject({ pid: 2, exe_name: null, exe_cwd: null, exe_root: null, state_name: 'kthreadd', memory_size: 0, memory_resident: 0, memory_share: 0 });
  });

  it('skips a process gone before its stat was read, and gives null sizes when status is unreadable for a process with pages', async () => {
    const procRoot = procWith({ '7/status': PID_STATUS, '9/stat': pidStatLine(9, 'worker') });
    const { items, total } = await readProcesses(hostPathsOf({ procRoot }));
    expect(items.map((item) => item.pid)).toEqual([9]);
    expect(total).toBe(1);
    expect(items[0]).toMatchObject({ memory_resident: null, memory_share: null, exe_name: null });
  });

  it('reads the lowest HOST_INFO_PROCESSES_MAX pids and says the answer was cut', async () => {
    const files: Record<string, FixtureEntry> = {};
    const count = HOST_INFO_PROCESSES_MAX + 3;
    for (let pid = 1; pid <= count; pid++) files[`${pid}/stat`] = pidStatLine(pid, `p${pid}`);
    const procRoot = procWith(files);
    const read = await readProcesses(hostPathsOf({ procRoot }));
    expect(read.items).toHaveLength(HOST_INFO_PROCESSES_MAX);
    expect(read.items.at(-1)?.pid).toBe(HOST_INFO_PROCESSES_MAX);
    expect(read.total).toBe(count);
    const result = await new HostInfoReader(new ManualClock(5), { procRoot }).read('processes');
    expect(result.truncated).toEqual({ listed: HOST_INFO_PROCESSES_MAX, total: count });
    expect(result.timestamp).toBe(5);
  });

  it('orders pids numerically and ignores non-numeric entries', () => {
    expect(pidsOf(['10', 'self', '9', '100', 'net', '1'])).toEqual([1, 9, 10, 100]);
  });
});
