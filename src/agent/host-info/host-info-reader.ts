// Owns answering the endpoint's host information requests on the agent: which types it reads, the reader of each, and one bounded result whatever happens.
import type { Clock } from '../../core/clock.js';
import { reasonOf, statusText } from '../collectors/collector.js';
import { HOST_INFO_OBJECT_TYPES, HOST_INFO_TYPES, type HostInfoResult, type HostInfoType } from '../protocol/messages.js';
import { readCpus } from './cpus-reader.js';
import { readDisks } from './disks-reader.js';
import { readFilesystems } from './filesystems-reader.js';
import { hostPathsOf, type HostInfoOptions, type HostPaths } from './host-files.js';
import { HOST_INFO_PROCESSES_MAX } from './host-info-limits.js';
import { readMemory } from './memory-reader.js';
import { readNetworkInterfaces } from './network-reader.js';
import { readProcesses } from './processes-reader.js';
import { failedResult, fitList, objectResult } from './result-fit.js';
import { readSystem } from './system-reader.js';
import { readWho } from './who-reader.js';

type Item = Readonly<Record<string, unknown>>;

/** What one reader gives: a list with how many it found (cut at its own bound when total > items.length), or one object. */
type Read = { readonly kind: 'list'; readonly items: readonly Item[]; readonly total: number; readonly itemsMax?: number } | { readonly kind: 'object'; readonly info: Item };

function list(items: readonly object[], total: number = items.length, itemsMax?: number): Read {
  return { kind: 'list', items: items as readonly Item[], total, ...(itemsMax !== undefined ? { itemsMax } : {}) };
}

/** Each type's reader over the host paths. */
const READERS: Readonly<Record<HostInfoType, (paths: HostPaths) => Promise<Read>>> = {
  cpus: async (paths) => list(await readCpus(paths)),
  disks: async (paths) => list(await readDisks(paths)),
  filesystems: async (paths) => {
    const read = await readFilesystems(paths);
    return list(read.items, read.total);
  },
  memory: async (paths) => ({ kind: 'object', info: { ...(await readMemory(paths)) } }),
  network_interfaces: async (paths) => {
    const read = await readNetworkInterfaces(paths);
    return list(read.items, read.total);
  },
  processes: async (paths) => {
    const read = await readProcesses(paths);
    return list(read.items, read.total, HOST_INFO_PROCESSES_MAX);
  },
  system: async (paths) => ({ kind: 'object', info: { ...(await readSystem(paths)) } }),
  who: async (paths) => list(await readWho(paths)),
};

/**
 * The agent's host information: read-only (files under /proc, /sys and /etc, statfs, readlink, getifaddrs and uname;
 * never a process), asynchronous, and bounded (lists by item count and by the bytes of a protocol line). A read that
 * fails (its one required file unreadable) answers an empty list or object with the reason as `error`, never throws.
 */
export class HostInfoReader {
  readonly #paths: HostPaths;

  constructor(
    private readonly clock: Clock,
    options: HostInfoOptions = {},
  ) {
    this.#paths = hostPathsOf(options);
  }

  /** The types this agent reads (host_info_types.get). */
  types(): readonly HostInfoType[] {
    return HOST_INFO_TYPES;
  }

  /** Reads one type; the timestamp is when the read finished. */
  async read(type: HostInfoType): Promise<HostInfoResult> {
    let read: Read;
    try {
      read = await READERS[type](this.#paths);
    } catch (error) {
      return failedResult(this.clock.now(), HOST_INFO_OBJECT_TYPES.includes(type), statusText(reasonOf(error)));
    }
    const nowMs = this.clock.now();
    return read.kind === 'object' ? objectResult(nowMs, read.info) : fitList(nowMs, read.items, read.total, read.itemsMax);
  }
}
