// Reads every host info type of this Linux host: no error, plausible values, each result within a protocol line; it assumes only what every Linux test machine has (/proc, a loopback interface with 127.0.0.1, a mount on /).
import { readFileSync, readlinkSync, statfsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { statfsSafe } from '../../../src/agent/host-info/filesystems-reader.js';
import { HOST_INFO_RESULT_BYTES_MAX } from '../../../src/agent/host-info/host-info-limits.js';
import { HostInfoReader } from '../../../src/agent/host-info/host-info-reader.js';
import { systemClock } from '../../../src/core/clock.js';

const reader = new HostInfoReader(systemClock);
/** How far this process's start time read from /proc may lie from the one Node reports: a sanity bound, wide enough for clock steps and a loaded machine. */
const START_TIME_TOLERANCE_MS = 10 * 60_000;

async function read(type: Parameters<HostInfoReader['read']>[0]): Promise<any> {
  const result = await reader.read(type);
  expect(result.error, `${type}: ${result.error}`).toBeNull();
  expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(HOST_INFO_RESULT_BYTES_MAX);
  return result;
}

describe('host info of this host', () => {
  it('cpus: one item per CPU of /proc/stat, total the sum of the states', async () => {
    const { metrics } = await read('cpus');
    const cpuLines = readFileSync('/proc/stat', 'utf8').split('\n').filter((line) => /^cpu\d+ /.test(line));
    expect(metrics).toHaveLength(cpuLines.length);
    for (const cpu of metrics) {
      expect(cpu.name).toMatch(/^cpu\.\d+$/);
      const sum = cpu.user + cpu.nice + cpu.sys + cpu.idle + cpu.wait + cpu.irq + cpu.soft_irq + cpu.stolen;
      expect(Math.abs(cpu.total - sum)).toBeLessThanOrEqual(10);
      expect(cpu.total_cores).toBeGreaterThanOrEqual(1);
    }
  });

  it('memory and system: the host figures', async () => {
    const memory = (await read('memory')).metrics;
    const meminfoKb = Number(/^MemTotal:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1]);
    expect(memory.total).toBe(meminfoKb * 1024);
    expect(memory.used + memory.free).toBe(memory.total);
    const system = (await read('system')).metrics;
    expect(system).toMatchObject({ name: 'Linux', version: readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim() });
    expect(typeof system.arch).toBe('string');
  });

  it('filesystems: the root mount with sizes; processes: this process with its executable and start time', async () => {
    const filesystems = (await read('filesystems')).metrics;
    const root = filesystems.find((fs: any) => fs.dir_name === '/');
    expect(root, 'a mount on /').toBeDefined();
    // Sizes are asked of statfs unless the type may hang it (a remote or FUSE root is listed without them).
    if (statfsSafe(root.sys_type_name)) {
      const figures = statfsSync('/');
      expect(root.total).toBe(Math.floor((figures.blocks * figures.bsize) / 1024));
      expect(root.used + root.free).toBe(root.total);
    } else {
      expect(root.total).toBeNull();
    }
    const processes = (await read('processes')).metrics;
    const self = processes.find((p: any) => p.pid === process.pid);
    expect(self?.exe_name).toBe(readlinkSync('/proc/self/exe'));
    expect(self.memory_resident).toBeGreaterThan(0);
    expect(Math.abs(self.time_start_time - (Date.now() - process.uptime() * 1000))).toBeLessThanOrEqual(START_TIME_TOLERANCE_MS);
  });

  it('network interfaces (the loopback with 127.0.0.1 among them), disks and who answer lists', async () => {
    const interfaces = (await read('network_interfaces')).metrics;
    expect(interfaces).toContainEqual(expect.objectContaining({ name: expect.any(String), address: '127.0.0.1' }));
    expect(Array.isArray((await read('disks')).metrics)).toBe(true);
    expect(Array.isArray((await read('who')).metrics)).toBe(true);
  });
});
