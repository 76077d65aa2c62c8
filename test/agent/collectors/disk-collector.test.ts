// Tests of the agent.disk collector on a fixture procRoot: counters, targets by name, /dev path and link, and rates across two collections.
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DiskCollector } from '../../../src/agent/collectors/disk-collector.js';
import { AGENT_PROC_FILE_BYTES_MAX } from '../../../src/agent/agent-limits.js';
import { expectUnavailable, metricsOf, valueOf } from './collected-metrics.js';
import { FixtureRoot, PROC_FILES } from './proc-fixtures.js';

const NOW_MS = 1_763_700_000_000;

describe('DiskCollector', () => {
  let root: FixtureRoot;
  afterEach(() => root.remove());

  it('reports the counters, and service time and queue since boot on the first collection', async () => {
    root = new FixtureRoot();
    const metrics = metricsOf(await new DiskCollector(root).collect({ target: '/dev/vda' }, NOW_MS));
    const values = Object.fromEntries(Object.keys(metrics).map((name) => [name, valueOf(metrics, name)]));
    expect(values).toEqual({
      reads: 365257, writes: 10288263, read_bytes: 15788370 * 512, write_bytes: 191407360 * 512,
      rtime: 333061, wtime: 1803294, qtime: 2358574, time: 562948,
      service_time: 562948 / (365257 + 10288263), queue: 2358574 / 20_924_180,
    });
    expect(metrics.reads).toEqual({ t: 'uint64', v: '365257', u: 'reads' });
    expect([metrics.service_time?.t, metrics.service_time?.u, metrics.queue?.u]).toEqual(['double', 'milliseconds', 'requests']);
  });

  it('measures service time and queue over the interval between two collections', async () => {
    root = new FixtureRoot();
    const disk = new DiskCollector(root);
    metricsOf(await disk.collect({ target: 'vda' }, NOW_MS));
    // 100 reads and 300 writes more, 800 ms busier, 2000 ms more weighted time, 10 s later.
    root.write({ diskstats: ' 254 0 vda 365357 49662 15788370 333061 10288563 337842 191407360 1803294 1 563748 2360574\n' });
    const second = metricsOf(await disk.collect({ target: 'vda' }, NOW_MS + 10_000));
    expect([valueOf(second, 'service_time'), valueOf(second, 'queue'), valueOf(second, 'reads')]).toEqual([2, 0.2, 365357]);
    // No I/O in the next interval: service time 0, queue 0; the uptime file is not needed any more.
    root.write({ uptime: 'gone' });
    const third = metricsOf(await disk.collect({ target: 'vda' }, NOW_MS + 20_000));
    expect([valueOf(third, 'service_time'), valueOf(third, 'queue')]).toEqual([0, 0]);
  });

  it('measures since boot again after a counter reset', async () => {
    root = new FixtureRoot();
    const disk = new DiskCollector(root);
    await disk.collect({ target: 'vda' }, NOW_MS);
    root.write({ diskstats: ' 254 0 vda 10 0 80 5 10 0 80 5 0 20 40\n' });
    const after = metricsOf(await disk.collect({ target: 'vda' }, NOW_MS + 10_000));
    expect([valueOf(after, 'service_time'), valueOf(after, 'queue')]).toEqual([1, 40 / 20_924_180]);
  });

  it('finds a device by /dev path, kernel name, or a symbolic link to its /dev node', async () => {
    root = new FixtureRoot({ ...PROC_FILES, diskstats: `${PROC_FILES.diskstats}   1 3 null 7 0 0 0 0 0 0 0 0 0 0\n` });
    const disk = new DiskCollector(root);
    expect(valueOf(metricsOf(await disk.collect({ target: 'dm-0' }, NOW_MS)), 'reads')).toBe(1200);
    expect(valueOf(metricsOf(await disk.collect({ target: '/dev/vda1' }, NOW_MS)), 'reads')).toBe(365000);
    const link = join(root.dir, 'by-label-data');
    symlinkSync('/dev/null', link);
    expect(valueOf(metricsOf(await new DiskCollector(root).collect({ target: link }, NOW_MS)), 'reads')).toBe(7);
  });

  it('is unavailable without a target, for a device not listed, and says when diskstats was longer than the limit', async () => {
    root = new FixtureRoot();
    const disk = new DiskCollector(root);
    expectUnavailable(await disk.collect({ target: '' }, NOW_MS), /^details.target is required/);
    expectUnavailable(await disk.collect({ target: '/dev/sdz' }, NOW_MS), /^no such disk: \/dev\/sdz$/);
    const filler = '   7 0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n'.repeat(Math.ceil(AGENT_PROC_FILE_BYTES_MAX / 40));
    writeFileSync(join(root.procRoot, 'diskstats'), `${filler} 8 0 sdz 1 0 0 0 0 0 0 0 0 0 0\n`);
    expectUnavailable(await disk.collect({ target: 'sdz' }, NOW_MS), new RegExp(`^no such disk: sdz \\(only the first ${AGENT_PROC_FILE_BYTES_MAX} bytes of .*diskstats were read\\)$`));
  });

  it('is unavailable when the first collection cannot read the uptime', async () => {
    root = new FixtureRoot({ diskstats: PROC_FILES.diskstats ?? '', uptime: 'soon\n' });
    expectUnavailable(await new DiskCollector(root).collect({ target: 'vda' }, NOW_MS), /uptime does not hold an uptime$/);
  });
});
