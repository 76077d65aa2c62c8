// Owns parsing /proc/diskstats: each block device's cumulative I/O counters, and finding a device by a check's target.
import { fieldsOf, linesOf, parseCounts } from './proc-fields.js';

/** One block device's counters since boot (kernel Documentation/admin-guide/iostats.rst, fields 1 to 11). */
export interface DiskStats {
  /** The kernel's name (`sda`, `nvme0n1p1`, `dm-0`; `cciss!c0d0` for /dev/cciss/c0d0). */
  readonly name: string;
  readonly reads: number;
  /** 512-byte sectors read, whatever the device's own sector size. */
  readonly readSectors: number;
  readonly readMs: number;
  readonly writes: number;
  readonly writeSectors: number;
  readonly writeMs: number;
  /** I/Os in flight now (the only field that is not a counter). */
  readonly inFlight: number;
  /** Time the device had at least one I/O in flight. */
  readonly ioMs: number;
  /** Time spent on I/O weighted by the number in flight (sum of each I/O's wait and service time). */
  readonly weightedIoMs: number;
}

/** Counters a line must carry after major, minor and name (kernels since 2.6.25 write 11; newer ones 15 or 17). */
const DISK_COUNTERS_MIN = 11;

function diskStatsOf(line: string): DiskStats | undefined {
  const fields = fieldsOf(line);
  const [major, minor, name, ...rest] = fields;
  if (name === undefined || rest.length < DISK_COUNTERS_MIN) return undefined;
  const counts = parseCounts([major ?? '', minor ?? '', ...rest]);
  if (counts === undefined) return undefined;
  const at = (field: number): number => counts[field + 1] ?? 0; // iostats field n (1-based) sits after major and minor
  return {
    name,
    reads: at(1),
    readSectors: at(3),
    readMs: at(4),
    writes: at(5),
    writeSectors: at(7),
    writeMs: at(8),
    inFlight: at(9),
    ioMs: at(10),
    weightedIoMs: at(11),
  };
}

/** Parses /proc/diskstats; lines of another shape (the 4-counter partition lines of old kernels, junk) are skipped, and so is a repeated name. */
export function parseDiskstats(text: string): DiskStats[] {
  const disks: DiskStats[] = [];
  const seen = new Set<string>();
  for (const line of linesOf(text)) {
    const disk = diskStatsOf(line);
    if (disk === undefined || seen.has(disk.name)) continue;
    seen.add(disk.name);
    disks.push(disk);
  }
  return disks;
}

/** The kernel name a check target means: `sda1` as given, `/dev/sda1` without `/dev/`, and `/dev/cciss/c0d0` as `cciss!c0d0`. */
export function diskNameOf(target: string): string {
  const bare = target.startsWith('/dev/') ? target.slice('/dev/'.length) : target;
  return bare.replaceAll('/', '!');
}

/** The device a target names, or undefined. */
export function findDisk(disks: readonly DiskStats[], target: string): DiskStats | undefined {
  const name = diskNameOf(target);
  return disks.find((disk) => disk.name === name);
}
