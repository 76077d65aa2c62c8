// Owns parsing /proc/cpuinfo: each logical CPU's vendor, model, clock and its place (socket, core) in the host.
import { linesOf } from '../collectors/proc-fields.js';

/** What /proc/cpuinfo says of one logical CPU; null where the architecture's file does not say (ARM writes no vendor_id, MHz or physical id). */
export interface CpuInfoEntry {
  /** The `processor` number: N of `cpuN` in /proc/stat. */
  readonly processor: number;
  readonly vendor: string | null;
  readonly model: string | null;
  readonly mhz: number | null;
  readonly physicalId: number | null;
  readonly coreId: number | null;
}

/** vendor_id values as the reference agent's library names them; others are shown as written. */
const VENDOR_NAMES: Readonly<Record<string, string>> = { GenuineIntel: 'Intel', AuthenticAMD: 'AMD', HygonGenuine: 'Hygon', CentaurHauls: 'Centaur' };

function wholeNumber(text: string | undefined): number | null {
  return text !== undefined && /^\d{1,9}$/.test(text) ? Number(text) : null;
}

function megahertz(text: string | undefined): number | null {
  return text !== undefined && /^\d{1,9}(\.\d{1,9})?$/.test(text) ? Math.round(Number(text)) : null;
}

function entryOf(fields: ReadonlyMap<string, string>): CpuInfoEntry | undefined {
  const processor = wholeNumber(fields.get('processor'));
  if (processor === null) return undefined;
  const vendorId = fields.get('vendor_id');
  const model = fields.get('model name');
  return {
    processor,
    vendor: vendorId === undefined || vendorId === '' ? null : (VENDOR_NAMES[vendorId] ?? vendorId),
    model: model === undefined || model === '' ? null : model,
    mhz: megahertz(fields.get('cpu MHz')),
    physicalId: wholeNumber(fields.get('physical id')),
    coreId: wholeNumber(fields.get('core id')),
  };
}

/**
 * Parses /proc/cpuinfo: `key<tabs>: value` lines, one block per logical CPU started by its `processor` line (blocks
 * also end at blank lines). Values are trimmed and inner runs of blanks collapsed. Blocks without a numeric processor
 * (ARM's header lines) are skipped, and so is a repeated processor number.
 */
export function parseCpuinfo(text: string): CpuInfoEntry[] {
  const entries: CpuInfoEntry[] = [];
  const seen = new Set<number>();
  let fields = new Map<string, string>();
  const flush = (): void => {
    const entry = entryOf(fields);
    if (entry !== undefined && !seen.has(entry.processor)) {
      seen.add(entry.processor);
      entries.push(entry);
    }
    fields = new Map();
  };
  for (const line of linesOf(text)) {
    const colon = line.indexOf(':');
    if (colon < 0) {
      if (line.trim() === '') flush();
      continue;
    }
    const key = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim().replace(/\s+/g, ' ');
    if (key === 'processor' && fields.has('processor')) flush();
    if (!fields.has(key)) fields.set(key, value);
  }
  flush();
  return entries;
}

/** Sockets: distinct physical ids, or null when the file gives none. */
export function socketCount(entries: readonly CpuInfoEntry[]): number | null {
  const ids = new Set(entries.flatMap((entry) => (entry.physicalId === null ? [] : [entry.physicalId])));
  return ids.size === 0 ? null : ids.size;
}

/** Physical cores: distinct (physical id, core id) pairs when every CPU gives both, else one per logical CPU listed. */
export function coreCount(entries: readonly CpuInfoEntry[], logicalCpus: number): number {
  if (entries.length === 0 || entries.some((entry) => entry.physicalId === null || entry.coreId === null)) return logicalCpus;
  return new Set(entries.map((entry) => `${entry.physicalId}:${entry.coreId}`)).size;
}
