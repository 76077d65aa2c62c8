// Owns the agent.memory arithmetic: from /proc/meminfo and /proc/vmstat values to the reference agent's memory and swap figures.
import type { ParseResult } from './proc-fields.js';

/** The agent.memory figures; byte amounts unless named otherwise. */
export interface MemoryFigures {
  readonly total: number;
  readonly free: number;
  readonly used: number;
  /** Memory available to programs without swapping: MemAvailable, or MemFree + Buffers + Cached on kernels before 3.14. */
  readonly actualFree: number;
  readonly actualUsed: number;
  /** Installed RAM in MiB, rounded up to a multiple of 8 as the reference agent's library does. */
  readonly ramMb: number;
  readonly swapTotal: number;
  readonly swapFree: number;
  readonly swapUsed: number;
  /** Pages swapped in since boot (vmstat pswpin), when /proc/vmstat was read. */
  readonly swapPagesIn: number | undefined;
  /** Pages swapped out since boot (vmstat pswpout), when /proc/vmstat was read. */
  readonly swapPagesOut: number | undefined;
}

const MIB_BYTES = 1024 * 1024;
/** The reference agent reports RAM rounded up to a multiple of this many MiB. */
const RAM_ROUNDING_MB = 8;

function ramMbOf(totalBytes: number): number {
  const mb = Math.floor(totalBytes / MIB_BYTES);
  const remainder = mb % RAM_ROUNDING_MB;
  return remainder === 0 ? mb : mb + RAM_ROUNDING_MB - remainder;
}

/**
 * The memory figures of one sample. MemTotal and MemFree are required; a free amount larger than its total
 * (a torn read) is taken as the total, so that used amounts are never negative.
 */
export function memoryFigures(meminfo: ReadonlyMap<string, number>, vmstat: ReadonlyMap<string, number> | undefined): ParseResult<MemoryFigures> {
  const total = meminfo.get('MemTotal');
  const memFree = meminfo.get('MemFree');
  if (total === undefined || memFree === undefined) return { ok: false, error: 'meminfo lacks MemTotal or MemFree' };
  const free = Math.min(memFree, total);
  const legacyFree = memFree + (meminfo.get('Buffers') ?? 0) + (meminfo.get('Cached') ?? 0);
  const actualFree = Math.min(meminfo.get('MemAvailable') ?? legacyFree, total);
  const swapTotal = meminfo.get('SwapTotal') ?? 0;
  const swapFree = Math.min(meminfo.get('SwapFree') ?? 0, swapTotal);
  return {
    ok: true,
    value: {
      total,
      free,
      used: total - free,
      actualFree,
      actualUsed: total - actualFree,
      ramMb: ramMbOf(total),
      swapTotal,
      swapFree,
      swapUsed: swapTotal - swapFree,
      swapPagesIn: vmstat?.get('pswpin'),
      swapPagesOut: vmstat?.get('pswpout'),
    },
  };
}
