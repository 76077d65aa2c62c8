// Owns parsing /proc/vmstat: `name value` lines of kernel virtual-memory counters.
import { fieldsOf, linesOf, parseCount } from './proc-fields.js';

/** Parses /proc/vmstat into counters by name (`pswpin`, `pswpout`...); lines of another shape are skipped, a repeated name keeps its first value. */
export function parseVmstat(text: string): ReadonlyMap<string, number> {
  const values = new Map<string, number>();
  for (const line of linesOf(text)) {
    const fields = fieldsOf(line);
    if (fields.length !== 2) continue;
    const [name, token] = fields as [string, string];
    const count = parseCount(token);
    if (count === undefined || !/^[a-z0-9_]+$/.test(name) || values.has(name)) continue;
    values.set(name, count);
  }
  return values;
}
