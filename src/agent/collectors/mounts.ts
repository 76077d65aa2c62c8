// Owns parsing /proc/mounts: which file system is mounted where, with which options.
import { fieldsOf, linesOf } from './proc-fields.js';

/** One mount as /proc/mounts lists it, escapes decoded. */
export interface Mount {
  readonly device: string;
  readonly mountPoint: string;
  readonly fsType: string;
  /** Comma-separated mount options (`rw,relatime`). */
  readonly options: string;
}

/** Fields a mount line needs (device, mount point, type, options; dump and pass may follow). */
const MOUNT_FIELDS_MIN = 4;

/** Decodes the kernel's octal escapes (`\040` space, `\011` tab, `\012` newline, `\134` backslash); other text stays as written. */
export function unescapeMountField(field: string): string {
  return field.replace(/\\([0-3][0-7]{2})/g, (_escape, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** Parses /proc/mounts in file order; lines with fewer than four fields are skipped. */
export function parseMounts(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of linesOf(text)) {
    const fields = fieldsOf(line);
    if (fields.length < MOUNT_FIELDS_MIN) continue;
    const [device, mountPoint, fsType, options] = fields.map(unescapeMountField) as [string, string, string, string];
    if (!mountPoint.startsWith('/')) continue;
    mounts.push({ device, mountPoint, fsType, options });
  }
  return mounts;
}

/** A mount point as written in a check (`/var/`, `/var//log`) in the form /proc/mounts uses: no repeated or trailing '/'. */
export function normalizeMountPoint(path: string): string {
  const squeezed = path.replace(/\/+/g, '/');
  return squeezed.length > 1 && squeezed.endsWith('/') ? squeezed.slice(0, -1) : squeezed;
}

/** The mount visible at `mountPoint`: the last one listed there, since a later mount hides an earlier one. */
export function mountAt(mounts: readonly Mount[], mountPoint: string): Mount | undefined {
  const wanted = normalizeMountPoint(mountPoint);
  for (let i = mounts.length - 1; i >= 0; i--) {
    const mount = mounts[i];
    if (mount !== undefined && mount.mountPoint === wanted) return mount;
  }
  return undefined;
}
