// Tests the cpus reader: /proc/cpuinfo parsed per processor, joined with /proc/stat's per-CPU times in ms, on x86 and ARM texts; /proc/stat required, cpuinfo optional.
import { describe, expect, it } from 'vitest';
import { coreCount, parseCpuinfo, socketCount } from '../../../src/agent/host-info/cpuinfo.js';
import { readCpus } from '../../../src/agent/host-info/cpus-reader.js';
import { hostPathsOf } from '../../../src/agent/host-info/host-files.js';
import { PROC_STAT } from '../collectors/proc-fixtures.js';
import { CPUINFO_ARM, CPUINFO_X86, treesRemovedAfterEach } from './host-fixtures.js';

const procWith = treesRemovedAfterEach();

describe('parseCpuinfo', () => {
  it('reads each x86 processor block: vendor named as the reference names it, model with blanks collapsed, MHz rounded, socket and core', () => {
    expect(parseCpuinfo(CPUINFO_X86)).toEqual([
      { processor: 0, vendor: 'Intel', model: 'Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz', mhz: 2500, physicalId: 0, coreId: 0 },
      { processor: 1, vendor: 'Intel', model: 'Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz', mhz: 2500, physicalId: 0, coreId: 1 },
    ]);
  });

  it('reads ARM blocks with what they lack as null, and skips the header block without a processor', () => {
    const entries = parseCpuinfo(CPUINFO_ARM);
    expect(entries).toEqual([
      { processor: 0, vendor: null, model: null, mhz: null, physicalId: null, coreId: null },
      { processor: 1, vendor: null, model: null, mhz: null, physicalId: null, coreId: null },
    ]);
    expect(socketCount(entries)).toBeNull();
    expect(coreCount(entries, 2)).toBe(2);
  });

  it('counts sockets and cores from physical and core ids (hyperthreads share a core)', () => {
    const threads = parseCpuinfo('processor: 0\nphysical id: 0\ncore id: 0\n\nprocessor: 1\nphysical id: 0\ncore id: 0\n\nprocessor: 2\nphysical id: 1\ncore id: 0\n');
    expect(socketCount(threads)).toBe(2);
    expect(coreCount(threads, 3)).toBe(2);
    expect(parseCpuinfo('vendor_id: AuthenticAMD\nprocessor: 0\n')).toMatchObject([{ processor: 0 }]);
    expect(parseCpuinfo('processor: 0\nvendor_id: AuthenticAMD\n')[0]?.vendor).toBe('AMD');
    expect(parseCpuinfo('processor: 0\nvendor_id: SomeVendor\n')[0]?.vendor).toBe('SomeVendor');
  });
});

describe('readCpus', () => {
  it('lists cpu.0 and cpu.1 with ticks as ms (USER_HZ 100) and the cpuinfo of each', async () => {
    const procRoot = procWith({ stat: PROC_STAT, cpuinfo: CPUINFO_X86 });
    const items = await readCpus(hostPathsOf({ procRoot }));
    // cpu0 861630 60 95439 1109135 4304 5 3642 412
    expect(items[0]).toEqual({
      name: 'cpu.0',
      vendor: 'Intel',
      model: 'Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz',
      mhz: 2500,
      user: 8_616_300,
      nice: 600,
      sys: 954_390,
      idle: 11_091_350,
      wait: 43_040,
      irq: 50,
      soft_irq: 36_420,
      stolen: 4_120,
      total: (861630 + 60 + 95439 + 1109135 + 4304 + 5 + 3642 + 412) * 10,
      total_cores: 2,
      total_sockets: 1,
    });
    expect(items.map((item) => item.name)).toEqual(['cpu.0', 'cpu.1']);
  });

  it('answers without /proc/cpuinfo (vendor, model, mhz null; one core per CPU) and rejects without /proc/stat', async () => {
    const items = await readCpus(hostPathsOf({ procRoot: procWith({ stat: PROC_STAT }) }));
    expect(items[1]).toMatchObject({ name: 'cpu.1', vendor: null, model: null, mhz: null, total_cores: 2, total_sockets: null });
    await expect(readCpus(hostPathsOf({ procRoot: procWith({ cpuinfo: CPUINFO_X86 }) }))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('uses the all-CPU line when the kernel lists no per-CPU lines', async () => {
    const items = await readCpus(hostPathsOf({ procRoot: procWith({ stat: 'cpu  10 0 20 30 0 0 0 0\nbtime 1\n' }) }));
    expect(items).toEqual([expect.objectContaining({ name: 'cpu.0', user: 100, sys: 200, idle: 300, total: 600 })]);
  });
});
