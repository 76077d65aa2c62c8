// Owns the `filesystems` host information: every mount in /proc/mounts with statfs's sizes, skipping the file systems statfs could hang on.
import { readProcFile } from '../collectors/proc-file.js';
import { parseMounts, type Mount } from '../collectors/mounts.js';
import { cutText, mapBounded, orUndefined, under, type FsFigures, type HostPaths } from './host-files.js';
import { HOST_INFO_ITEMS_MAX } from './host-info-limits.js';

const KIB_BYTES = 1024;

/** One item of the `filesystems` answer: sizes in KiB (as the reference's), inode counts; the figures null when not asked of statfs or it failed. */
export interface FilesystemItem {
  readonly dir_name: string;
  readonly dev_name: string;
  readonly sys_type_name: string;
  readonly options: string;
  readonly total: number | null;
  readonly free: number | null;
  readonly used: number | null;
  readonly avail: number | null;
  readonly files: number | null;
  readonly free_files: number | null;
}

/**
 * File system types whose statfs may block for as long as a server or daemon does not answer (remote file systems,
 * FUSE, the automounter): they are listed without sizes rather than risk a read that never ends.
 */
const UNSAFE_TYPES = new Set(['nfs', 'nfs4', 'cifs', 'smb3', 'smbfs', 'ncpfs', 'afs', 'ceph', 'glusterfs', 'lustre', 'gpfs', '9p', 'autofs', 'davfs', 'fuse', 'sshfs']);

/** True when statfs is asked about a mount of this type. */
export function statfsSafe(fsType: string): boolean {
  return !UNSAFE_TYPES.has(fsType) && !fsType.startsWith('fuse.') && !fsType.startsWith('fuseblk.');
}

/** The item of one mount and its statfs figures (undefined: not asked or failed). */
export function filesystemItem(mount: Mount, figures: FsFigures | undefined): FilesystemItem {
  const kib = (blocks: number): number => Math.floor((blocks * (figures?.bsize ?? 0)) / KIB_BYTES);
  const base = { dir_name: cutText(mount.mountPoint), dev_name: cutText(mount.device), sys_type_name: cutText(mount.fsType), options: cutText(mount.options) };
  if (figures === undefined) return { ...base, total: null, free: null, used: null, avail: null, files: null, free_files: null };
  const total = kib(figures.blocks);
  const free = kib(figures.bfree);
  return { ...base, total, free, used: total - free, avail: kib(figures.bavail), files: figures.files, free_files: figures.ffree };
}

/** Reads /proc/mounts and asks statfs about each mount it is safe to ask about (the first HOST_INFO_ITEMS_MAX mounts; the caller reports the cut). */
export async function readFilesystems(paths: HostPaths): Promise<{ items: FilesystemItem[]; total: number }> {
  const mounts = parseMounts((await readProcFile(under(paths.procRoot, 'mounts'))).text);
  const kept = mounts.slice(0, HOST_INFO_ITEMS_MAX);
  const items = await mapBounded(kept, async (mount) => {
    const figures = statfsSafe(mount.fsType) ? await orUndefined(() => paths.fs.statfs(mount.mountPoint)) : undefined;
    return filesystemItem(mount, figures);
  });
  return { items, total: mounts.length };
}
