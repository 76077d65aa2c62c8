// Owns how the host information readers touch the host: where they read (injectable roots and file system calls, all read-only), bounded reads of small files, and bounded concurrency.
import { open, readdir, readlink, realpath, statfs } from 'node:fs/promises';
import { machine, networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { join } from 'node:path';
import { HOST_INFO_READ_CONCURRENCY, HOST_INFO_SMALL_FILE_BYTES_MAX, HOST_INFO_TEXT_LENGTH_MAX } from './host-info-limits.js';

/** The statfs figures the filesystems reader uses. */
export interface FsFigures {
  readonly bsize: number;
  readonly blocks: number;
  readonly bfree: number;
  readonly bavail: number;
  readonly files: number;
  readonly ffree: number;
}

/** The read-only file system calls the readers make; tests replace some. */
export interface HostFs {
  readonly readdir: (path: string) => Promise<string[]>;
  readonly readlink: (path: string) => Promise<string>;
  readonly realpath: (path: string) => Promise<string>;
  readonly statfs: (path: string) => Promise<FsFigures>;
}

/** Where the readers look; every path defaults to the real host's. */
export interface HostInfoOptions {
  /** Directory standing for /proc. */
  readonly procRoot?: string;
  /** Directory standing for /sys. */
  readonly sysRoot?: string;
  /** os-release files tried in order (default /etc/os-release, then /usr/lib/os-release). */
  readonly osReleasePaths?: readonly string[];
  /** The utmp file (default /var/run/utmp). */
  readonly utmpPath?: string;
  readonly fs?: Partial<HostFs>;
  /** The interfaces' addresses (default os.networkInterfaces: getifaddrs, no process). */
  readonly networkInterfaces?: () => NodeJS.Dict<NetworkInterfaceInfo[]>;
  /** The machine architecture (default os.machine: uname). */
  readonly machine?: () => string;
}

/** HostInfoOptions with every default filled in. */
export interface HostPaths {
  readonly procRoot: string;
  readonly sysRoot: string;
  readonly osReleasePaths: readonly string[];
  readonly utmpPath: string;
  readonly fs: HostFs;
  readonly networkInterfaces: () => NodeJS.Dict<NetworkInterfaceInfo[]>;
  readonly machine: () => string;
}

const REAL_FS: HostFs = { readdir: (path) => readdir(path), readlink: (path) => readlink(path), realpath: (path) => realpath(path), statfs: (path) => statfs(path) };

/** The options with the real host's paths and calls where none are given. */
export function hostPathsOf(options: HostInfoOptions = {}): HostPaths {
  return {
    procRoot: options.procRoot ?? '/proc',
    sysRoot: options.sysRoot ?? '/sys',
    osReleasePaths: options.osReleasePaths ?? ['/etc/os-release', '/usr/lib/os-release'],
    utmpPath: options.utmpPath ?? '/var/run/utmp',
    fs: { ...REAL_FS, ...options.fs },
    networkInterfaces: options.networkInterfaces ?? networkInterfaces,
    machine: options.machine ?? machine,
  };
}

/** A path under a root. */
export function under(root: string, ...parts: string[]): string {
  return join(root, ...parts);
}

/** Bytes asked of the kernel per read: the buffers never outgrow what a file holds by more than this. */
const READ_CHUNK_BYTES = 64 * 1024;

/** Reads at most `bytesMax` bytes of a file (binary files such as utmp, or small text files). */
export async function readHead(path: string, bytesMax: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < bytesMax) {
      const want = Math.min(READ_CHUNK_BYTES, bytesMax - total);
      const chunk = Buffer.allocUnsafe(want);
      const { bytesRead } = await handle.read(chunk, 0, want, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}

/** A small text file (up to HOST_INFO_SMALL_FILE_BYTES_MAX bytes), or undefined when it cannot be read (missing, not allowed, gone). */
export async function readSmall(path: string): Promise<string | undefined> {
  try {
    return (await readHead(path, HOST_INFO_SMALL_FILE_BYTES_MAX)).toString('utf8');
  } catch {
    return undefined;
  }
}

/** Runs `run` on a promise-returning call, undefined when it rejects (a file gone or not allowed reads as unknown). */
export async function orUndefined<T>(run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run();
  } catch {
    return undefined;
  }
}

/** A text cut to HOST_INFO_TEXT_LENGTH_MAX characters. */
export function cutText(text: string): string {
  return text.length <= HOST_INFO_TEXT_LENGTH_MAX ? text : text.slice(0, HOST_INFO_TEXT_LENGTH_MAX);
}

/** Maps `items` through `run` with at most HOST_INFO_READ_CONCURRENCY calls at once, results in the items' order. */
export async function mapBounded<T, R>(items: readonly T[], run: (item: T) => Promise<R>, concurrency: number = HOST_INFO_READ_CONCURRENCY): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
