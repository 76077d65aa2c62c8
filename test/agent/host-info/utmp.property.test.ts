// Properties of the utmp parser: generated records in either byte order parse back; any bytes parse to one record per whole 384 bytes without throwing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UTMP_RECORD_BYTES } from '../../../src/agent/host-info/host-info-limits.js';
import { parseUtmp } from '../../../src/agent/host-info/utmp.js';
import { utmpRecord } from './host-fixtures.js';

/** ASCII text without NUL that fits a field of `bytes` bytes. */
const field = (bytes: number): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom('a', 'Z', '0', '/', '.', ':', '-', '_', ' '), maxLength: bytes });
const record = fc.record({
  type: fc.integer({ min: -32768, max: 32767 }),
  pid: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  line: field(32),
  user: field(32),
  host: field(256),
  seconds: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
});

describe('parseUtmp', () => {
  it('parses generated records back in either byte order', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 8 }), fc.boolean(), (records, littleEndian) => {
        const bytes = Buffer.concat(records.map((r) => utmpRecord(r, littleEndian)));
        expect(parseUtmp(bytes, littleEndian)).toEqual(records);
      }),
    );
  });

  it('never throws on any bytes and reads one record per whole record size', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: UTMP_RECORD_BYTES * 3 + 50 }), fc.boolean(), (bytes, littleEndian) => {
        expect(parseUtmp(Buffer.from(bytes), littleEndian)).toHaveLength(Math.floor(bytes.length / UTMP_RECORD_BYTES));
      }),
    );
  });
});
