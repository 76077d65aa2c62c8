// Owns the float column: picks, per column, the smaller of Gorilla XOR and decimal, behind a scheme byte.
import { assert } from '../core/assert.js';
import type { BitReader, BitWriter } from './bit-stream.js';
import { readDecimalFloats, scaleToDecimal } from './decimal-column.js';
import { writePackedInts } from './int-column.js';
import { readXorFloats, writeXorFloats, xorFloatsBitCost } from './xor-column.js';

// The scheme byte: high nibble the scheme, low nibble the decimal places (0..15) for DECIMAL.
const SCHEME_XOR = 0x00;
const SCHEME_DECIMAL = 0x10;

/**
 * Writes `length` doubles of `values` bit-exactly: a scheme byte, then either scaled integers
 * (when every value has at most 15 decimal places and that is smaller) or Gorilla XOR.
 * `scratch` must hold at least `length` elements; it is overwritten, and passing it in lets
 * callers encoding many columns avoid an allocation per column.
 */
export function writeFloatColumn(writer: BitWriter, values: Float64Array, length: number, scratch: Float64Array): void {
  if (length === 0) return;
  const digits = scaleToDecimal(values, length, scratch);
  if (digits >= 0) {
    // Write the decimal form, then count XOR only as far as it takes to lose: decimal data such
    // as a 2-decimal walk costs a few bits a value and XOR 50 or more, so the count stops after
    // a few dozen values and the decimal bits stay.
    const start = writer.bitLength;
    writer.writeBits(SCHEME_DECIMAL | digits, 8);
    writePackedInts(writer, scratch, length);
    const decimalBits = writer.bitLength - start - 8;
    if (xorFloatsBitCost(values, length, decimalBits) > decimalBits) return;
    writer.truncate(start);
  }
  writer.writeBits(SCHEME_XOR, 8);
  writeXorFloats(writer, values, length);
}

/** Reads `length` doubles written by writeFloatColumn into `out`. */
export function readFloatColumn(reader: BitReader, out: Float64Array, length: number): void {
  if (length === 0) return;
  const scheme = reader.readBits(8);
  if (scheme === SCHEME_XOR) {
    readXorFloats(reader, out, length);
  } else {
    assert((scheme & 0xf0) === SCHEME_DECIMAL, `unknown float column scheme ${scheme}`);
    readDecimalFloats(reader, out, length, scheme & 0x0f);
  }
}
