// Tests the memory and system readers: meminfo and vmstat figures under the reference's names, nulls where /proc does not say; kernel, machine and os-release.
import { describe, expect, it } from 'vitest';
import { hostPathsOf } from '../../../src/agent/host-info/host-files.js';
import { memoryInfo, readMemory } from '../../../src/agent/host-info/memory-reader.js';
import { readSystem, systemInfo } from '../../../src/agent/host-info/system-reader.js';
import { PROC_MEMINFO, PROC_VMSTAT } from '../collectors/proc-fixtures.js';
import { OS_RELEASE, treesRemovedAfterEach } from './host-fixtures.js';

const treeWith = treesRemovedAfterEach();

describe('memory', () => {
  it('gives bytes, ram in MiB rounded up to 8, and the swap page counts of vmstat', async () => {
    const info = await readMemory(hostPathsOf({ procRoot: treeWith({ meminfo: PROC_MEMINFO, vmstat: PROC_VMSTAT }) }));
    const kib = 1024;
    expect(info).toEqual({
      total: 24684092 * kib,
      free: 24104948 * kib,
      used: (24684092 - 24104948) * kib,
      actual_free: 24218620 * kib,
      actual_used: (24684092 - 24218620) * kib,
      ram: 24112,
      swap_total: 2097148 * kib,
      swap_free: 2000000 * kib,
      swap_used: 97148 * kib,
      swap_page_in: 12,
      swap_page_out: 345,
    });
  });

  it('answers null swap pages without vmstat, every field null without MemTotal, and rejects without meminfo', async () => {
    expect(memoryInfo(PROC_MEMINFO, undefined)).toMatchObject({ swap_page_in: null, swap_page_out: null, total: 24684092 * 1024 });
    expect(Object.values(memoryInfo('MemFree: 1 kB\n', PROC_VMSTAT)).every((value) => value === null)).toBe(true);
    await expect(readMemory(hostPathsOf({ procRoot: treeWith({ vmstat: PROC_VMSTAT }) }))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('system', () => {
  it('reads the kernel name and release, the machine, and NAME and VERSION_ID of os-release', async () => {
    const root = treeWith({ 'proc/sys/kernel/ostype': 'Linux\n', 'proc/sys/kernel/osrelease': '6.8.0-45-generic\n', 'etc/os-release': OS_RELEASE });
    const paths = hostPathsOf({ procRoot: `${root}/proc`, osReleasePaths: [`${root}/etc/os-release`], machine: () => 'aarch64' });
    expect(await readSystem(paths)).toEqual({ name: 'Linux', arch: 'aarch64', version: '6.8.0-45-generic', vendor: 'Ubuntu', vendor_version: '24.04' });
  });

  it('falls back to /usr/lib/os-release, and answers null for what cannot be read', async () => {
    const root = treeWith({ 'usr/lib/os-release': 'NAME=Debian\nVERSION_ID=12\n' });
    const paths = hostPathsOf({
      procRoot: `${root}/proc`,
      osReleasePaths: [`${root}/etc/os-release`, `${root}/usr/lib/os-release`],
      machine: () => {
        throw new Error('no uname');
      },
    });
    expect(await readSystem(paths)).toEqual({ name: null, arch: null, version: null, vendor: 'Debian', vendor_version: '12' });
    expect(systemInfo(undefined, '\n', '', undefined)).toEqual({ name: null, arch: null, version: null, vendor: null, vendor_version: null });
  });
});
