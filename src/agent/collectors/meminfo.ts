// Owns parsing /proc/meminfo: `Name:   value kB` lines into byte counts by name.
import { fieldsOf, linesOf, parseCount } from './proc-fields.js';

/** Bytes per `kB` of /proc/meminfo (the kernel's kB are KiB). */
const KIB_BYTES = 1024;

/**
 * Parses /proc/meminfo into values by field name (`MemTotal`, `Active(anon)`: letters, digits, `_`, parentheses): `kB` values become bytes,
 * unitless ones (HugePages_Total) stay counts. Lines of another shape are skipped; a repeated name keeps its first value.
 */
export function parseMeminfo(text: string): ReadonlyMap<string, number> {
  const values = new Map<string, number>();
  for (const line of linesOf(text)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon);
    if (!/^[A-Za-z0-9_()]+$/.test(name) || values.has(name)) continue;
    const fields = fieldsOf(line.slice(colon + 1));
    const count = parseCount(fields[0]);
    if (count === undefined || fields.length > 2) continue;
    if (fields.length === 2 && fields[1] !== 'kB') continue;
    values.set(name, fields.length === 2 ? count * KIB_BYTES : count);
  }
  return values;
}
