// Owns the `system` host information: the kernel's name and release from /proc/sys/kernel, the machine from uname, the distribution from os-release.
import { cutText, orUndefined, readSmall, under, type HostPaths } from './host-files.js';
import { parseOsRelease } from './os-release.js';

/** The `system` answer; null where the host does not say. */
export interface SystemInfo {
  /** The kernel's name (`Linux`). */
  readonly name: string | null;
  /** The machine (`x86_64`, `aarch64`). */
  readonly arch: string | null;
  /** The kernel release (`6.1.0-18-amd64`). */
  readonly version: string | null;
  /** The distribution (os-release NAME: `Ubuntu`, `Debian GNU/Linux`). */
  readonly vendor: string | null;
  /** The distribution's version (os-release VERSION_ID: `24.04`). */
  readonly vendor_version: string | null;
}

function line(text: string | undefined): string | null {
  const value = text?.split('\n')[0]?.trim();
  return value === undefined || value === '' ? null : cutText(value);
}

/** The answer from the kernel files' text, the machine and the os-release text (each undefined when unreadable). */
export function systemInfo(ostype: string | undefined, osrelease: string | undefined, machine: string | undefined, osRelease: string | undefined): SystemInfo {
  const release = parseOsRelease(osRelease ?? '');
  return {
    name: line(ostype),
    arch: line(machine),
    version: line(osrelease),
    vendor: line(release.get('NAME')),
    vendor_version: line(release.get('VERSION_ID')),
  };
}

/** The first os-release file that can be read (/etc/os-release, else /usr/lib/os-release). */
async function readOsRelease(paths: HostPaths): Promise<string | undefined> {
  for (const path of paths.osReleasePaths) {
    const text = await readSmall(path);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** Reads the kernel's name and release, the machine and os-release; none is required. */
export async function readSystem(paths: HostPaths): Promise<SystemInfo> {
  const kernel = (name: string): Promise<string | undefined> => readSmall(under(paths.procRoot, 'sys', 'kernel', name));
  const [ostype, osrelease, osRelease] = await Promise.all([kernel('ostype'), kernel('osrelease'), readOsRelease(paths)]);
  const machine = await orUndefined(async () => paths.machine());
  return systemInfo(ostype, osrelease, machine, osRelease);
}
