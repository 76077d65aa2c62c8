// Owns what every collector shares: the Collector interface and its result, the options, and how any failure becomes an unavailable result.
import { AGENT_FIELD_LENGTH_MAX, AGENT_PROC_FILE_BYTES_MAX } from '../agent-limits.js';
import type { WireDimension, WireMetric } from '../protocol/messages.js';

/** What one collection of an agent check produced. */
export interface Collected {
  readonly available: boolean;
  readonly status: string;
  readonly metrics: readonly WireDimension[];
}

/** Gathers one agent check type's metrics; keeps what rates need between calls (per instance). */
export interface Collector {
  collect(details: Readonly<Record<string, unknown>>, nowMs: number): Promise<Collected>;
}

/** Where collectors read the kernel's files; tests point them at directories of fixture files. */
export interface CollectorOptions {
  /** Directory standing for /proc (stat, meminfo, vmstat, loadavg, uptime, diskstats, net/dev, mounts). */
  readonly procRoot?: string;
  /** Directory standing for /sys (class/net/<interface>/carrier). */
  readonly sysRoot?: string;
}

/** The default procRoot. */
export const PROC_ROOT_DEFAULT = '/proc';
/** The default sysRoot. */
export const SYS_ROOT_DEFAULT = '/sys';
/** The status of a successful collection (the reference agent's default). */
export const STATUS_SUCCESS = 'success';

/** A status cut to what the protocol carries (AGENT_FIELD_LENGTH_MAX characters). */
export function statusText(text: string): string {
  return text.length <= AGENT_FIELD_LENGTH_MAX ? text : `${text.slice(0, AGENT_FIELD_LENGTH_MAX - 3)}...`;
}

/** A collection that could not be made, and why; it carries no metrics. */
export function unavailable(status: string): Collected {
  return { available: false, status: statusText(status), metrics: [] };
}

/** A successful collection: the metrics in the one null dimension, as the reference agent's host checks send them. */
export function available(metrics: Readonly<Record<string, WireMetric>>, status: string = STATUS_SUCCESS): Collected {
  return { available: true, status: statusText(status), metrics: [[null, metrics]] };
}

/** A short reason for a thrown value: a file system error as `open /proc/stat: ENOENT`, anything else by its message. */
export function reasonOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, syscall, path, message } = error as { code?: unknown; syscall?: unknown; path?: unknown; message?: unknown };
    if (typeof code === 'string' && typeof path === 'string') return `${typeof syscall === 'string' ? syscall : 'read'} ${path}: ${code}`;
    if (typeof message === 'string') return message;
  }
  return String(error);
}

/** Runs one collection so that nothing escapes it: a rejection or throw becomes an unavailable result naming the reason. */
export async function safely(run: () => Promise<Collected>): Promise<Collected> {
  try {
    return await run();
  } catch (error) {
    return unavailable(reasonOf(error));
  }
}

/** The status of a target not found in a file, saying so when the file was longer than the limit and only its start was read. */
export function notFound(message: string, path: string, truncated: boolean): Collected {
  return unavailable(truncated ? `${message} (only the first ${AGENT_PROC_FILE_BYTES_MAX} bytes of ${path} were read)` : message);
}

/** The `target` detail of a check (a mount point, device or interface), or undefined when it is missing, blank or not a string. */
export function targetOf(details: Readonly<Record<string, unknown>> | null | undefined): string | undefined {
  const target = details?.target;
  return typeof target === 'string' && target.trim() !== '' ? target.trim() : undefined;
}
