// Owns realistic /proc file contents for the collector tests, and a temporary procRoot/sysRoot built from them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** /proc/stat of a 2-CPU host (kernel 5.x: ten cpu fields, then the other lines). */
export const PROC_STAT = `cpu  1874457 120 226081 2006645 27929 10 19029 869 0 0
cpu0 861630 60 95439 1109135 4304 5 3642 412 0 0
cpu1 1012827 60 130641 897510 23625 5 15387 457 0 0
intr 113549013 0 9 0 0 0 0 0 0 0 0 0 0 124 0 0 0 0 0 0 0 0 0 0 0 0 0
ctxt 201718290
btime 1763632932
processes 312410
procs_running 2
procs_blocked 0
softirq 61498383 2 19054452 41 2356018 0 0 1390 18707104 0 21379376
`;

/** /proc/meminfo of a 24 GiB host (the head of the file; the parser ignores the rest). */
export const PROC_MEMINFO = `MemTotal:       24684092 kB
MemFree:        24104948 kB
MemAvailable:   24218620 kB
Buffers:            1908 kB
Cached:           138956 kB
SwapCached:            0 kB
Active:           196520 kB
Inactive:         188216 kB
Active(anon):     178600 kB
SwapTotal:       2097148 kB
SwapFree:        2000000 kB
HugePages_Total:       0
Hugepagesize:       2048 kB
`;

/** /proc/vmstat lines around the swap counters. */
export const PROC_VMSTAT = `nr_free_pages 6026237
nr_zone_inactive_anon 0
pgpgin 7894185
pgpgout 95703680
pswpin 12
pswpout 345
pgalloc_dma 0
`;

/** /proc/loadavg. */
export const PROC_LOADAVG = '0.12 0.33 0.78 1/109 17312\n';

/** /proc/uptime: 20924.18 s up. */
export const PROC_UPTIME = '20924.18 20066.46\n';

/** /proc/diskstats of a kernel 5.5+ host (17 counters a line) with a virtio disk, a partition and a device-mapper volume. */
export const PROC_DISKSTATS = `   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 254       0 vda 365257 49662 15788370 333061 10288263 337842 191407360 1803294 0 562948 2358574 1625327 49 88333288 101229 2964624 120989
 254       1 vda1 365000 49000 15700000 333000 10288000 337000 191400000 1803000 2 562000 2358000 1625000 49 88333000 101000 0 0
 253       0 dm-0 1200 0 96000 400 3000 0 24000 900 0 1000 1300
`;

/** /proc/net/dev with loopback and one Ethernet interface. */
export const PROC_NET_DEV = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo: 215803833373 23222203    0    0    0     0          0         0 215803833373 23222203    0    0    0     0       0          0
  eth0: 1119763613   49906    3    4    5     6          0         7  5890225   44337    8    9   10    11      12          0
`;

/** /proc/mounts with an escaped mount point (a space) and a mount hidden by a later one at the same place. */
export const PROC_MOUNTS = `proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
/dev/vda / ext4 rw,relatime,discard 0 0
tmpfs /mnt/old tmpfs rw,relatime,size=1024k 0 0
tmpfs /mnt/old tmpfs ro,relatime,size=2048k 0 0
/dev/vdb /srv/my\\040data xfs rw,noatime 0 0
`;

/** Files of a fixture procRoot, by path relative to it. */
export type ProcFiles = Readonly<Record<string, string>>;

/** Every fixture above, at its /proc path. */
export const PROC_FILES: ProcFiles = {
  stat: PROC_STAT,
  meminfo: PROC_MEMINFO,
  vmstat: PROC_VMSTAT,
  loadavg: PROC_LOADAVG,
  uptime: PROC_UPTIME,
  diskstats: PROC_DISKSTATS,
  'net/dev': PROC_NET_DEV,
  mounts: PROC_MOUNTS,
};

/** A temporary directory with `proc/` and `sys/` trees; write() replaces files between collections, remove() deletes it all. */
export class FixtureRoot {
  readonly dir = mkdtempSync(join(tmpdir(), 'strata-collectors-'));
  readonly procRoot = join(this.dir, 'proc');
  readonly sysRoot = join(this.dir, 'sys');

  constructor(procFiles: ProcFiles = PROC_FILES, sysFiles: ProcFiles = {}) {
    this.write(procFiles);
    this.writeSys(sysFiles);
  }

  /** Writes files under procRoot. */
  write(files: ProcFiles): void {
    writeUnder(this.procRoot, files);
  }

  /** Writes files under sysRoot. */
  writeSys(files: ProcFiles): void {
    writeUnder(this.sysRoot, files);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function writeUnder(root: string, files: ProcFiles): void {
  mkdirSync(root, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
}
