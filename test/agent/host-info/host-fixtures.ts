// Owns the host info tests' fixtures: realistic /proc, /sys and /etc texts, utmp records, and temporary host trees built from them.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import { UTMP_RECORD_BYTES } from '../../../src/agent/host-info/host-info-limits.js';

/** /proc/cpuinfo of a 2-CPU x86 host (one socket, two cores), trimmed to the keys that matter and a few that do not. */
export const CPUINFO_X86 = `processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 85
model name\t: Intel(R) Xeon(R)   Platinum 8259CL CPU @ 2.50GHz
cpu MHz\t\t: 2499.998
physical id\t: 0
core id\t\t: 0
flags\t\t: fpu vme de pse

processor\t: 1
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R)   Platinum 8259CL CPU @ 2.50GHz
cpu MHz\t\t: 2500.004
physical id\t: 0
core id\t\t: 1

`;

/** /proc/cpuinfo of an ARM64 host: no vendor_id, model name, MHz or physical id, and a trailing header block. */
export const CPUINFO_ARM = `processor\t: 0
BogoMIPS\t: 50.00
CPU implementer\t: 0x41

processor\t: 1
BogoMIPS\t: 50.00
CPU implementer\t: 0x41

Hardware\t: some board
`;

/** /proc/mounts with a root on a device-mapper volume, a boot partition, pseudo, tmpfs, NFS and FUSE mounts. */
export const MOUNTS = `/dev/mapper/vg-root / ext4 rw,relatime,errors=remount-ro 0 0
proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
/dev/vda1 /boot ext4 rw,relatime 0 0
tmpfs /run tmpfs rw,nosuid,nodev,size=1632604k,mode=755 0 0
server:/export /mnt/nfs nfs4 rw,relatime,vers=4.2 0 0
sshfs#me@host: /mnt/remote fuse.sshfs rw,nosuid,nodev 0 0
/dev/vda1 /srv/bind ext4 rw,relatime 0 0
/dev/vdb /mnt/data\\040disk xfs rw,noatime 0 0
`;

/** /etc/os-release of Ubuntu 24.04 (quoted and bare values, a comment). */
export const OS_RELEASE = `# written by the distribution
PRETTY_NAME="Ubuntu 24.04.1 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
VERSION="24.04.1 LTS (Noble Numbat)"
ID=ubuntu
ID_LIKE=debian
`;

/** One /proc/<pid>/stat line (proc(5) fields 1 to 52) of a process named `comm`. */
export function pidStatLine(pid: number, comm: string, values: { minflt?: number; majflt?: number; utime?: number; stime?: number; priority?: number; threads?: number; start?: number; vsize?: number; rss?: number } = {}): string {
  const f = { minflt: 7810, majflt: 24, utime: 7, stime: 201, priority: 20, threads: 1, start: 4200, vsize: 24387584, rss: 510, ...values };
  // Fields 3 to 52: state, ppid, pgrp, session, tty, tpgid, flags, minflt, cminflt, majflt, cmajflt, utime, stime, cutime, cstime, priority, nice, threads, itrealvalue, start, vsize, rss, then 28 more.
  const rest = ['S', 0, pid, pid, 0, -1, 4194560, f.minflt, 100, f.majflt, 3, f.utime, f.stime, 5, 6, f.priority, 0, f.threads, 0, f.start, f.vsize, f.rss, ...Array.from({ length: 28 }, () => 0)];
  return `${pid} (${comm}) ${rest.join(' ')}\n`;
}

/** A /proc/<pid>/status of a user process: VmRSS 2040 kB, RssFile 1300 kB, RssShmem 4 kB. */
export const PID_STATUS = `Name:\tinit
Umask:\t0022
State:\tS (sleeping)
Pid:\t1
Uid:\t0\t0\t0\t0
VmSize:\t   23816 kB
VmRSS:\t    2040 kB
RssAnon:\t     736 kB
RssFile:\t    1300 kB
RssShmem:\t       4 kB
Threads:\t1
`;

/** One utmp record in little- or big-endian order. */
export function utmpRecord(fields: { type: number; pid?: number; line: string; user: string; host?: string; seconds: number }, littleEndian = true): Buffer {
  const record = Buffer.alloc(UTMP_RECORD_BYTES);
  if (littleEndian) {
    record.writeInt16LE(fields.type, 0);
    record.writeInt32LE(fields.pid ?? 0, 4);
    record.writeUInt32LE(fields.seconds, 340);
  } else {
    record.writeInt16BE(fields.type, 0);
    record.writeInt32BE(fields.pid ?? 0, 4);
    record.writeUInt32BE(fields.seconds, 340);
  }
  Buffer.from(fields.line).copy(record, 8, 0, 32);
  Buffer.from(fields.user).copy(record, 44, 0, 32);
  Buffer.from(fields.host ?? '').copy(record, 76, 0, 256);
  return record;
}

/** A file of a fixture tree: text or bytes, or a symbolic link to a target. */
export type FixtureEntry = string | Buffer | { readonly link: string };

/** A temporary directory holding `files` (paths relative to it); `remove()` deletes it. */
export function fixtureTree(files: Readonly<Record<string, FixtureEntry>>): { readonly root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'strata-host-info-'));
  for (const [path, entry] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    if (typeof entry === 'object' && !Buffer.isBuffer(entry)) symlinkSync(entry.link, full);
    else writeFileSync(full, entry);
  }
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** A maker of fixture trees removed after each test of the calling file; it answers each new tree's root directory. */
export function treesRemovedAfterEach(): (files: Readonly<Record<string, FixtureEntry>>) => string {
  const trees: { remove(): void }[] = [];
  afterEach(() => trees.splice(0).forEach((tree) => tree.remove()));
  return (files) => {
    const tree = fixtureTree(files);
    trees.push(tree);
    return tree.root;
  };
}
