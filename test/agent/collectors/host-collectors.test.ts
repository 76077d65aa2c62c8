// Fixture tests of the cpu, memory, load average, network and filesystem collectors: files in a temporary procRoot give known metrics.
import { afterEach, describe, expect, it } from 'vitest';
import { CpuCollector } from '../../../src/agent/collectors/cpu-collector.js';
import { FilesystemCollector } from '../../../src/agent/collectors/filesystem-collector.js';
import { LoadAverageCollector } from '../../../src/agent/collectors/load-average-collector.js';
import { MemoryCollector } from '../../../src/agent/collectors/memory-collector.js';
import { NetworkCollector } from '../../../src/agent/collectors/network-collector.js';
import { expectUnavailable, metricsOf, valueOf } from './collected-metrics.js';
import { FixtureRoot, PROC_FILES } from './proc-fixtures.js';

const NOW_MS = 1_763_700_000_000;
const KIB = 1024;

describe('collectors on fixture files', () => {
  let root: FixtureRoot;
  afterEach(() => root.remove());

  it('agent.cpu: percentages since boot first, then over the interval between collections', async () => {
    root = new FixtureRoot();
    const cpu = new CpuCollector(root);
    const first = metricsOf(await cpu.collect({}, NOW_MS));
    expect(first.cpu_count).toEqual({ t: 'uint64', v: '2', u: 'count' });
    // cpu0 since boot: user 861630 + nice 60 of 2074627 ticks.
    expect(valueOf(first, 'user_percent_average')).toBeCloseTo(((861690 / 2074627) * 100 + ((1012827 + 60) / (1012887 + 130641 + 897510 + 23625 + 15392 + 457)) * 100) / 2, 9);
    root.write({ stat: 'cpu 0 0 0 0\ncpu0 861730 60 95539 1109235 4404 5 3642 412 0 0\ncpu1 1012827 60 130641 897910 23625 5 15387 457 0 0\n' });
    const second = metricsOf(await cpu.collect({}, NOW_MS + 1000));
    const values = Object.fromEntries(Object.keys(second).map((name) => [name, valueOf(second, name)]));
    expect(values).toEqual({
      cpu_count: 2, usage_average: 37.5, min_cpu_usage: 0, max_cpu_usage: 75,
      user_percent_average: 12.5, sys_percent_average: 12.5, idle_percent_average: 62.5, wait_percent_average: 12.5, irq_percent_average: 0, stolen_percent_average: 0,
    });
    expect(second.usage_average).toEqual({ t: 'double', v: '37.5', u: 'percent' });
  });

  it('agent.cpu: a file without cpu lines, or none at all, is unavailable', async () => {
    root = new FixtureRoot({ stat: 'intr 1 2 3\n' });
    expectUnavailable(await new CpuCollector(root).collect({}, NOW_MS), /^no cpu lines in .*stat$/);
    expectUnavailable(await new CpuCollector({ procRoot: `${root.dir}/absent` }).collect({}, NOW_MS), /^open .*absent\/stat: ENOENT$/);
  });

  it('agent.memory: bytes from meminfo, RAM in MiB rounded up to 8, paging counters from vmstat', async () => {
    root = new FixtureRoot();
    const metrics = metricsOf(await new MemoryCollector(root).collect({}, NOW_MS));
    expect(metrics.total).toEqual({ t: 'int64', v: String(24684092 * KIB), u: 'bytes' });
    const values = Object.fromEntries(Object.keys(metrics).map((name) => [name, valueOf(metrics, name)]));
    expect(values).toEqual({
      total: 24684092 * KIB, free: 24104948 * KIB, used: 579144 * KIB, actual_free: 24218620 * KIB, actual_used: 465472 * KIB, ram: 24112,
      swap_total: 2097148 * KIB, swap_free: 2000000 * KIB, swap_used: 97148 * KIB, swap_page_in: 12, swap_page_out: 345,
    });
    expect([metrics.ram?.u, metrics.swap_page_in?.u]).toEqual(['megabytes', 'pages']);
  });

  it('agent.memory: without vmstat the paging counters are left out; without MemTotal it is unavailable', async () => {
    root = new FixtureRoot({ meminfo: PROC_FILES.meminfo ?? '' });
    const metrics = metricsOf(await new MemoryCollector(root).collect({}, NOW_MS));
    expect(Object.keys(metrics)).not.toContain('swap_page_in');
    root.write({ meminfo: 'MemFree: 5 kB\n' });
    expectUnavailable(await new MemoryCollector(root).collect({}, NOW_MS), /meminfo: meminfo lacks MemTotal or MemFree$/);
  });

  it('agent.load_average: 1m, 5m and 15m as doubles; junk is unavailable', async () => {
    root = new FixtureRoot();
    const metrics = metricsOf(await new LoadAverageCollector(root).collect({}, NOW_MS));
    expect(metrics).toEqual({ '1m': { t: 'double', v: '0.12', u: 'unknown' }, '5m': { t: 'double', v: '0.33', u: 'unknown' }, '15m': { t: 'double', v: '0.78', u: 'unknown' } });
    root.write({ loadavg: 'busy\n' });
    expectUnavailable(await new LoadAverageCollector(root).collect({}, NOW_MS), /loadavg: loadavg does not start with three load averages$/);
  });

  it('agent.network: the interface counters, link state from sysRoot', async () => {
    root = new FixtureRoot(PROC_FILES, { 'class/net/eth0/carrier': '1\n', 'class/net/lo/carrier': 'x\n' });
    const network = new NetworkCollector(root);
    const metrics = metricsOf(await network.collect({ target: 'eth0' }, NOW_MS));
    const values = Object.fromEntries(Object.keys(metrics).filter((name) => name !== 'link_state').map((name) => [name, valueOf(metrics, name)]));
    expect(values).toEqual({
      rx_bytes: 1119763613, rx_packets: 49906, rx_errors: 3, rx_dropped: 4, rx_overruns: 5, rx_frame: 6,
      tx_bytes: 5890225, tx_packets: 44337, tx_errors: 8, tx_dropped: 9, tx_overruns: 10, tx_collisions: 11, tx_carrier: 12,
    });
    expect(metrics.rx_bytes).toEqual({ t: 'uint64', v: '1119763613', u: 'bytes' });
    expect(metrics.link_state).toEqual({ t: 'string', v: 'up', u: 'link_state' });
    expect(metricsOf(await network.collect({ target: 'lo' }, NOW_MS)).link_state?.v).toBe('unknown');
    root.writeSys({ 'class/net/eth0/carrier': '0\n' });
    expect(metricsOf(await network.collect({ target: ' eth0 ' }, NOW_MS)).link_state?.v).toBe('down');
  });

  it('agent.network: a missing target or an interface not listed is unavailable', async () => {
    root = new FixtureRoot();
    const network = new NetworkCollector(root);
    expectUnavailable(await network.collect({}, NOW_MS), /^details.target is required/);
    expectUnavailable(await network.collect({ target: 42 }, NOW_MS), /^details.target is required/);
    expectUnavailable(await network.collect({ target: 'eth9' }, NOW_MS), /^no such interface: eth9$/);
    expectUnavailable(await network.collect({ target: '../../etc' }, NOW_MS), /^no such interface/);
  });

  it('agent.filesystem: a mount point listed in mounts gets its statfs figures and options', async () => {
    root = new FixtureRoot();
    const metrics = metricsOf(await new FilesystemCollector(root).collect({ target: '/' }, NOW_MS));
    expect(Object.keys(metrics).sort()).toEqual(['avail', 'files', 'free', 'free_files', 'options', 'total', 'used']);
    expect(metrics.options).toEqual({ t: 'string', v: 'rw,relatime,discard', u: 'unknown' });
    expect(metrics.total?.u).toBe('kilobytes');
    const [total, free, used, avail] = ['total', 'free', 'used', 'avail'].map((name) => valueOf(metrics, name)) as [number, number, number, number];
    expect(total).toBeGreaterThan(0);
    expect(used).toBe(total - free);
    expect(avail).toBeLessThanOrEqual(free);
    expect(valueOf(metrics, 'free_files')).toBeLessThanOrEqual(valueOf(metrics, 'files'));
  });

  it('agent.filesystem: no target, a relative one, one not mounted, or one statfs cannot reach is unavailable', async () => {
    root = new FixtureRoot();
    const filesystem = new FilesystemCollector(root);
    expectUnavailable(await filesystem.collect({}, NOW_MS), /^details.target is required/);
    expectUnavailable(await filesystem.collect({ target: 'var' }, NOW_MS), /^target var is not an absolute path$/);
    // /tmp exists but the fixture mounts do not list it: statfs would describe the file system holding it.
    expectUnavailable(await filesystem.collect({ target: '/tmp' }, NOW_MS), /^no file system is mounted at \/tmp$/);
    expectUnavailable(await filesystem.collect({ target: '/srv/my data' }, NOW_MS), /^statfs \/srv\/my data: ENOENT$/);
  });
});
