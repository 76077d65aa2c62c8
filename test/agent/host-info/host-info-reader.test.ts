// Tests the agent's host info reader over fixture hosts: every type answers {timestamp, metrics, error, truncated}; a read whose required file is missing answers an empty list or object with the reason; lists are cut at their bounds.
import { describe, expect, it } from 'vitest';
import { HOST_INFO_ITEMS_MAX } from '../../../src/agent/host-info/host-info-limits.js';
import { HostInfoReader } from '../../../src/agent/host-info/host-info-reader.js';
import { HOST_INFO_TYPES } from '../../../src/agent/protocol/messages.js';
import { ManualClock } from '../../../src/core/clock.js';
import { PROC_MEMINFO, PROC_NET_DEV, PROC_STAT } from '../collectors/proc-fixtures.js';
import { treesRemovedAfterEach, utmpRecord } from './host-fixtures.js';

const hostWith = treesRemovedAfterEach();

describe('HostInfoReader', () => {
  it('names the eight types the API serves', () => {
    expect(new HostInfoReader(new ManualClock(0)).types()).toEqual(['cpus', 'disks', 'filesystems', 'memory', 'network_interfaces', 'processes', 'system', 'who']);
  });

  it('answers a failed read with an empty list or object and the reason, stamped by the clock, never a throw', async () => {
    const empty = hostWith({ 'x': '' });
    const reader = new HostInfoReader(new ManualClock(1234), { procRoot: `${empty}/proc`, sysRoot: `${empty}/sys`, utmpPath: `${empty}/utmp`, osReleasePaths: [], networkInterfaces: () => ({}), machine: () => 'x86_64' });
    for (const type of ['cpus', 'disks', 'filesystems', 'network_interfaces', 'processes'] as const) {
      const result = await reader.read(type);
      expect(result).toEqual({ timestamp: 1234, metrics: [], error: expect.stringMatching(/ENOENT/), truncated: null });
    }
    expect(await reader.read('memory')).toEqual({ timestamp: 1234, metrics: {}, error: expect.stringContaining('meminfo: ENOENT'), truncated: null });
    // Nothing is required of system and who: they answer what they find.
    expect(await reader.read('system')).toEqual({ timestamp: 1234, metrics: { name: null, arch: 'x86_64', version: null, vendor: null, vendor_version: null }, error: null, truncated: null });
    expect(await reader.read('who')).toEqual({ timestamp: 1234, metrics: [], error: null, truncated: null });
  });

  it('reads each type of a fixture host', async () => {
    const root = hostWith({
      'proc/stat': PROC_STAT,
      'proc/meminfo': PROC_MEMINFO,
      'proc/net/dev': PROC_NET_DEV,
      'proc/mounts': '',
      'proc/diskstats': '',
      utmp: utmpRecord({ type: 7, line: 'pts/0', user: 'ops', seconds: 10 }),
    });
    const reader = new HostInfoReader(new ManualClock(9), { procRoot: `${root}/proc`, sysRoot: `${root}/sys`, utmpPath: `${root}/utmp`, osReleasePaths: [], networkInterfaces: () => ({}), machine: () => 'x86_64' });
    for (const type of HOST_INFO_TYPES) expect((await reader.read(type)).error, type).toBeNull();
    expect((await reader.read('who')).metrics).toEqual([{ user: 'ops', device: 'pts/0', time: 10 }]);
    expect((await reader.read('memory')).metrics).toMatchObject({ total: 24684092 * 1024 });
  });

  it('cuts a list at HOST_INFO_ITEMS_MAX and says so', async () => {
    const sessions = Array.from({ length: HOST_INFO_ITEMS_MAX + 2 }, (_, i) => utmpRecord({ type: 7, line: `pts/${i}`, user: 'ops', seconds: i }));
    const root = hostWith({ utmp: Buffer.concat(sessions) });
    const result = await new HostInfoReader(new ManualClock(0), { utmpPath: `${root}/utmp` }).read('who');
    expect((result.metrics as unknown[]).length).toBe(HOST_INFO_ITEMS_MAX);
    expect(result.truncated).toEqual({ listed: HOST_INFO_ITEMS_MAX, total: HOST_INFO_ITEMS_MAX + 2 });
  });
});
