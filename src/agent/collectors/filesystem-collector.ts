// Owns the agent.filesystem collector: the size and inode counts of the file system mounted at a check's target.
import { statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { STRING_VALUE_LENGTH_MAX } from '../../core/limits.js';
import { wireMetric } from '../protocol/wire-metrics.js';
import { available, notFound, PROC_ROOT_DEFAULT, safely, targetOf, unavailable, type Collected, type Collector, type CollectorOptions } from './collector.js';
import { mountAt, parseMounts } from './mounts.js';
import { readProcFile } from './proc-file.js';

const KIB_BYTES = 1024;

/**
 * agent.filesystem: details.target is a mount point listed in /proc/mounts (a directory that is not one is refused,
 * since statfs would silently describe the file system holding it). Sizes in KiB, inode counts, mount options.
 */
export class FilesystemCollector implements Collector {
  readonly #mountsPath: string;

  constructor(options: CollectorOptions = {}) {
    this.#mountsPath = join(options.procRoot ?? PROC_ROOT_DEFAULT, 'mounts');
  }

  /** Finds the mount in /proc/mounts, then asks statfs for its figures. */
  collect(details: Readonly<Record<string, unknown>>, _nowMs: number): Promise<Collected> {
    return safely(async () => {
      const target = targetOf(details);
      if (target === undefined) return unavailable('details.target is required: the mount point of a file system');
      if (!target.startsWith('/')) return unavailable(`target ${target} is not an absolute path`);
      const { text, truncated } = await readProcFile(this.#mountsPath);
      const mount = mountAt(parseMounts(text), target);
      if (mount === undefined) return notFound(`no file system is mounted at ${target}`, this.#mountsPath, truncated);
      const fs = await statfs(mount.mountPoint);
      const kib = (blocks: number): number => Math.floor((blocks * fs.bsize) / KIB_BYTES);
      const total = kib(fs.blocks);
      const free = kib(fs.bfree);
      return available({
        total: wireMetric('int64', total, 'kilobytes'),
        free: wireMetric('int64', free, 'kilobytes'),
        used: wireMetric('int64', total - free, 'kilobytes'),
        avail: wireMetric('int64', kib(fs.bavail), 'kilobytes'),
        files: wireMetric('int64', fs.files, 'files'),
        free_files: wireMetric('int64', fs.ffree, 'free_files'),
        // Overlay mounts can carry options longer than a string metric may be; their start is what matters.
        options: wireMetric('string', mount.options.slice(0, STRING_VALUE_LENGTH_MAX), 'unknown'),
      });
    });
  }
}
