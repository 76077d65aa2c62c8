// Fixture tests of the /proc parsers: realistic files give the numbers a reader of them would.
import { describe, expect, it } from 'vitest';
import { findDisk, parseDiskstats } from '../../../src/agent/collectors/diskstats.js';
import { parseLoadavg } from '../../../src/agent/collectors/loadavg.js';
import { parseMeminfo } from '../../../src/agent/collectors/meminfo.js';
import { mountAt, parseMounts } from '../../../src/agent/collectors/mounts.js';
import { parseNetDev } from '../../../src/agent/collectors/net-dev.js';
import { parseProcStat } from '../../../src/agent/collectors/proc-stat.js';
import { parseUptime } from '../../../src/agent/collectors/uptime.js';
import { parseVmstat } from '../../../src/agent/collectors/vmstat.js';
import { PROC_DISKSTATS, PROC_LOADAVG, PROC_MEMINFO, PROC_MOUNTS, PROC_NET_DEV, PROC_STAT, PROC_UPTIME, PROC_VMSTAT } from './proc-fixtures.js';

describe('/proc parsers on realistic files', () => {
  it('/proc/stat: the all-CPU line and one line per CPU, other lines ignored', () => {
    const stat = parseProcStat(PROC_STAT);
    expect(stat.all).toEqual({ id: 'cpu', user: 1874457, nice: 120, system: 226081, idle: 2006645, iowait: 27929, irq: 10, softirq: 19029, steal: 869 });
    expect(stat.cpus.map((cpu) => cpu.id)).toEqual(['cpu0', 'cpu1']);
    expect(stat.cpus[1]).toMatchObject({ user: 1012827, idle: 897510, iowait: 23625, steal: 457 });
  });

  it('/proc/stat of an old kernel: four fields, the rest 0', () => {
    expect(parseProcStat('cpu0 10 20 30 40\n').cpus[0]).toEqual({ id: 'cpu0', user: 10, nice: 20, system: 30, idle: 40, iowait: 0, irq: 0, softirq: 0, steal: 0 });
  });

  it('/proc/meminfo and /proc/vmstat', () => {
    const meminfo = parseMeminfo(PROC_MEMINFO);
    expect(meminfo.get('MemTotal')).toBe(24684092 * 1024);
    expect(meminfo.get('Active(anon)')).toBe(178600 * 1024);
    expect(meminfo.get('HugePages_Total')).toBe(0);
    expect(meminfo.size).toBe(13);
    expect([parseVmstat(PROC_VMSTAT).get('pswpin'), parseVmstat(PROC_VMSTAT).get('pswpout')]).toEqual([12, 345]);
  });

  it('/proc/loadavg and /proc/uptime', () => {
    expect(parseLoadavg(PROC_LOADAVG)).toEqual({ ok: true, value: { load1m: 0.12, load5m: 0.33, load15m: 0.78 } });
    expect(parseUptime(PROC_UPTIME)).toEqual({ ok: true, value: 20_924_180 });
  });

  it('/proc/diskstats: 17-counter and 11-counter lines; targets by name or /dev path', () => {
    const disks = parseDiskstats(PROC_DISKSTATS);
    expect(disks.map((disk) => disk.name)).toEqual(['loop0', 'vda', 'vda1', 'dm-0']);
    expect(findDisk(disks, '/dev/vda')).toEqual({
      name: 'vda', reads: 365257, readSectors: 15788370, readMs: 333061, writes: 10288263, writeSectors: 191407360, writeMs: 1803294, inFlight: 0, ioMs: 562948, weightedIoMs: 2358574,
    });
    expect(findDisk(disks, 'dm-0')).toMatchObject({ reads: 1200, weightedIoMs: 1300 });
    expect(findDisk(disks, 'vda1')?.inFlight).toBe(2);
    expect(findDisk(disks, 'sda')).toBeUndefined();
  });

  it('/proc/net/dev: headers skipped, columns mapped', () => {
    const [lo, eth0] = parseNetDev(PROC_NET_DEV);
    expect(lo).toMatchObject({ name: 'lo', rxBytes: 215803833373, txPackets: 23222203 });
    expect(eth0).toEqual({
      name: 'eth0', rxBytes: 1119763613, rxPackets: 49906, rxErrors: 3, rxDropped: 4, rxFifo: 5, rxFrame: 6,
      txBytes: 5890225, txPackets: 44337, txErrors: 8, txDropped: 9, txFifo: 10, txCollisions: 11, txCarrier: 12,
    });
  });

  it('/proc/mounts: escapes decoded, the later of two mounts at one point wins', () => {
    const mounts = parseMounts(PROC_MOUNTS);
    expect(mounts).toHaveLength(5);
    expect(mountAt(mounts, '/srv/my data')).toEqual({ device: '/dev/vdb', mountPoint: '/srv/my data', fsType: 'xfs', options: 'rw,noatime' });
    expect(mountAt(mounts, '/mnt/old/')?.options).toBe('ro,relatime,size=2048k');
    expect(mountAt(mounts, '/mnt')).toBeUndefined();
  });
});
