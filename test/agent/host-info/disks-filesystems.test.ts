// Tests the disks and filesystems readers on fixture /proc/mounts and /proc/diskstats: devices resolved through their links and named by mount point; statfs sizes in KiB, skipped on remote and FUSE mounts.
import { describe, expect, it } from 'vitest';
import { diskItems, readDisks } from '../../../src/agent/host-info/disks-reader.js';
import { filesystemItem, readFilesystems, statfsSafe } from '../../../src/agent/host-info/filesystems-reader.js';
import { hostPathsOf, type FsFigures } from '../../../src/agent/host-info/host-files.js';
import { HOST_INFO_ITEMS_MAX } from '../../../src/agent/host-info/host-info-limits.js';
import { PROC_DISKSTATS } from '../collectors/proc-fixtures.js';
import { MOUNTS, treesRemovedAfterEach } from './host-fixtures.js';

const procWith = treesRemovedAfterEach();

/** /dev/mapper names are links to dm-N; /dev/vdb resolves to itself. */
const LINKS: Record<string, string> = { '/dev/mapper/vg-root': '/dev/dm-0', '/dev/vda1': '/dev/vda1' };
const realpath = async (path: string): Promise<string> => {
  const target = LINKS[path];
  if (target === undefined) throw Object.assign(new Error(`ENOENT ${path}`), { code: 'ENOENT' });
  return target;
};

describe('readDisks', () => {
  it('lists each mounted device of /proc/diskstats once, named by its first mount point, counters in bytes and ms', async () => {
    const procRoot = procWith({ mounts: MOUNTS, diskstats: PROC_DISKSTATS });
    const items = await readDisks(hostPathsOf({ procRoot, fs: { realpath } }));
    // dm-0 1200 0 96000 400 3000 0 24000 900 0 1000 1300; vda1 is mounted twice (/boot first); vdb is not in diskstats.
    expect(items).toEqual([
      { name: '/', device: 'dm-0', reads: 1200, read_bytes: 96000 * 512, rtime: 400, writes: 3000, write_bytes: 24000 * 512, wtime: 900, time: 1000 },
      { name: '/boot', device: 'vda1', reads: 365000, read_bytes: 15700000 * 512, rtime: 333000, writes: 10288000, write_bytes: 191400000 * 512, wtime: 1803000, time: 562000 },
    ]);
  });

  it('takes a device whose link cannot be followed as written', () => {
    const mount = { device: '/dev/vda', mountPoint: '/data', fsType: 'ext4', options: 'rw' };
    const disks = [{ name: 'vda', reads: 1, readSectors: 2, readMs: 3, writes: 4, writeSectors: 5, writeMs: 6, inFlight: 0, ioMs: 7, weightedIoMs: 8 }];
    expect(diskItems([{ mount, kernelName: 'vda' }], disks)).toEqual([{ name: '/data', device: 'vda', reads: 1, read_bytes: 1024, rtime: 3, writes: 4, write_bytes: 2560, wtime: 6, time: 7 }]);
    expect(diskItems([{ mount, kernelName: 'sdz' }], disks)).toEqual([]);
  });
});

describe('readFilesystems', () => {
  const figures: FsFigures = { bsize: 4096, blocks: 1000, bfree: 400, bavail: 300, files: 5000, ffree: 4000 };

  it('lists every mount with statfs figures in KiB, and none for NFS and FUSE mounts (statfs could hang)', async () => {
    const asked: string[] = [];
    const statfs = async (path: string): Promise<FsFigures> => {
      asked.push(path);
      if (path === '/proc') return { bsize: 4096, blocks: 0, bfree: 0, bavail: 0, files: 0, ffree: 0 };
      return figures;
    };
    const { items, total } = await readFilesystems(hostPathsOf({ procRoot: procWith({ mounts: MOUNTS }), fs: { statfs } }));
    expect(total).toBe(8);
    expect(asked).not.toContain('/mnt/nfs');
    expect(asked).not.toContain('/mnt/remote');
    expect(items[0]).toEqual({ dir_name: '/', dev_name: '/dev/mapper/vg-root', sys_type_name: 'ext4', options: 'rw,relatime,errors=remount-ro', total: 4000, free: 1600, used: 2400, avail: 1200, files: 5000, free_files: 4000 });
    expect(items.find((item) => item.dir_name === '/mnt/nfs')).toMatchObject({ sys_type_name: 'nfs4', total: null, free: null, used: null, avail: null, files: null, free_files: null });
    expect(items.find((item) => item.dir_name === '/mnt/remote')).toMatchObject({ sys_type_name: 'fuse.sshfs', total: null });
    expect(items.find((item) => item.dir_name === '/mnt/data disk')).toMatchObject({ dev_name: '/dev/vdb', total: 4000 });
  });

  it('gives null figures for a mount statfs fails on, and stops at HOST_INFO_ITEMS_MAX mounts', async () => {
    const statfs = async (): Promise<FsFigures> => {
      throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
    };
    const { items } = await readFilesystems(hostPathsOf({ procRoot: procWith({ mounts: MOUNTS }), fs: { statfs } }));
    expect(items.every((item) => item.total === null)).toBe(true);
    const many = Array.from({ length: HOST_INFO_ITEMS_MAX + 5 }, (_, i) => `tmpfs /t${i} tmpfs rw 0 0`).join('\n');
    const cut = await readFilesystems(hostPathsOf({ procRoot: procWith({ mounts: many }), fs: { statfs: async () => figures } }));
    expect(cut.items).toHaveLength(HOST_INFO_ITEMS_MAX);
    expect(cut.total).toBe(HOST_INFO_ITEMS_MAX + 5);
  });

  it('asks statfs only about local file systems', () => {
    for (const type of ['ext4', 'xfs', 'tmpfs', 'proc', 'overlay', 'btrfs']) expect(statfsSafe(type)).toBe(true);
    for (const type of ['nfs', 'nfs4', 'cifs', 'fuse', 'fuse.sshfs', 'fuseblk.ntfs', 'autofs', '9p', 'ceph']) expect(statfsSafe(type)).toBe(false);
    expect(filesystemItem({ device: 'd', mountPoint: '/x', fsType: 'ext4', options: 'rw' }, { bsize: 1024, blocks: 3, bfree: 1, bavail: 1, files: 0, ffree: 0 })).toMatchObject({ total: 3, free: 1, used: 2 });
  });
});
