// Owns the `disks` host information: the I/O counters of each mounted block device from /proc/diskstats, named by where it is mounted as the reference's are.
import { readProcFile } from '../collectors/proc-file.js';
import { diskNameOf, parseDiskstats, type DiskStats } from '../collectors/diskstats.js';
import { parseMounts, type Mount } from '../collectors/mounts.js';
import { cutText, mapBounded, orUndefined, under, type HostPaths } from './host-files.js';

/** /proc/diskstats counts sectors of 512 bytes whatever the device's own sector size. */
const SECTOR_BYTES = 512;

/** One item of the `disks` answer: counters since boot, times in ms. */
export interface DiskItem {
  /** Where the device is mounted (its first mount in /proc/mounts), as the reference names disks. */
  readonly name: string;
  /** The kernel's device name (`vda1`, `dm-0`): beyond the reference, which has only the mount point. */
  readonly device: string;
  readonly reads: number;
  readonly read_bytes: number;
  readonly rtime: number;
  readonly writes: number;
  readonly write_bytes: number;
  readonly wtime: number;
  readonly time: number;
}

/** A mount of a device node, with the kernel name its device resolves to (after following /dev/mapper and /dev/disk links). */
export interface MountedDevice {
  readonly mount: Mount;
  readonly kernelName: string;
}

/** The items of the mounted devices found in /proc/diskstats, one per device (its first mount), in mount order. */
export function diskItems(mounted: readonly MountedDevice[], disks: readonly DiskStats[]): DiskItem[] {
  const byName = new Map(disks.map((disk) => [disk.name, disk] as const));
  const seen = new Set<string>();
  const items: DiskItem[] = [];
  for (const { mount, kernelName } of mounted) {
    const disk = byName.get(kernelName);
    if (disk === undefined || seen.has(kernelName)) continue;
    seen.add(kernelName);
    items.push({
      name: cutText(mount.mountPoint),
      device: cutText(kernelName),
      reads: disk.reads,
      read_bytes: disk.readSectors * SECTOR_BYTES,
      rtime: disk.readMs,
      writes: disk.writes,
      write_bytes: disk.writeSectors * SECTOR_BYTES,
      wtime: disk.writeMs,
      time: disk.ioMs,
    });
  }
  return items;
}

/** Reads /proc/mounts and /proc/diskstats; each `/dev/...` device is resolved through its links (a link that cannot be followed is taken as written). */
export async function readDisks(paths: HostPaths): Promise<DiskItem[]> {
  const mounts = parseMounts((await readProcFile(under(paths.procRoot, 'mounts'))).text).filter((mount) => mount.device.startsWith('/dev/'));
  const disks = parseDiskstats((await readProcFile(under(paths.procRoot, 'diskstats'))).text);
  const mounted = await mapBounded(mounts, async (mount) => {
    const resolved = (await orUndefined(() => paths.fs.realpath(mount.device))) ?? mount.device;
    return { mount, kernelName: diskNameOf(resolved) };
  });
  return diskItems(mounted, disks);
}
