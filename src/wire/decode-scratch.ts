// Owns the scratch a decoder instance lends its fast loops: the name cache, the number slot and the msgpack cursor.
import { NumberSlot } from './json-number.js';
import { NameCache } from './name-cache.js';

/**
 * Where the msgpack loop's helpers leave the index just past the header or scalar they read (BAIL
 * when they bailed). A class field rather than a returned pair or a module-level `let`: stores to a
 * module `let` measured several times slower, and a class keeps the field's map to itself (an
 * object literal's map is shared with every other `{ next }` literal in the process).
 */
export class ReadCursor {
  /** Index just past what the last helper read, or -1 (BAIL). */
  next = 0;
}

/**
 * Everything the fast loops write besides the columns, owned by one decoder instance and passed
 * into each loop, so two decoders never share state. The loops run synchronously, so one scratch
 * serves every request of its decoder; the column builders, which outlive the call, are lent
 * separately.
 */
export class DecodeScratch {
  /** Metric names, units and tenants already decoded, by their bytes. */
  readonly names = new NameCache();
  /** Where the JSON loop's number reader puts each number (doubles stay out of call returns). */
  readonly slot = new NumberSlot();
  /** The msgpack loop's read position after each helper. */
  readonly cursor = new ReadCursor();
}
