// Owns reading the scalar fields of OTLP/JSON (the proto3 JSON mapping): 64-bit integers as strings or numbers, doubles, enums, bytes, shapes.
import { Buffer } from 'node:buffer';
import { StrataError } from '../core/errors.js';

/** A JSON object of the parsed body. */
export type JsonObject = Readonly<Record<string, unknown>>;

const UNSIGNED_DECIMAL = /^[0-9]+$/;
const SIGNED_DECIMAL = /^-?[0-9]+$/;
/** A JSON number literal, which proto3 JSON also accepts inside a string for numeric fields. */
const NUMBER_TEXT = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
/** Standard or URL-safe base64, padded or not (proto3 JSON accepts both alphabets). */
const BASE64_TEXT = /^[A-Za-z0-9+/_-]*={0,2}$/;
const UINT64_MAX_TEXT = '18446744073709551615';
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const TWO_64 = 2 ** 64;
const TWO_63 = 2 ** 63;

/** PROTOCOL_BODY_MALFORMED naming the JSON field at fault. */
export function jsonMalformed(field: string, rule: string): StrataError {
  return new StrataError('PROTOCOL_BODY_MALFORMED', `The OTLP/JSON body is malformed: ${field} ${rule}.`, { field });
}

/** A message field: an object, or undefined when absent or null (proto3 JSON's null is the default). */
export function jsonObject(value: unknown, field: string): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw jsonMalformed(field, 'must be an object');
  return value as JsonObject;
}

/** A repeated field: an array (empty when absent or null). */
export function jsonList(value: unknown, field: string): readonly unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw jsonMalformed(field, 'must be an array');
  return value;
}

/** An element of a repeated message field: an object (null is not a message). */
export function jsonElement(value: unknown, field: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw jsonMalformed(field, 'must hold objects');
  return value as JsonObject;
}

export function jsonString(value: unknown, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw jsonMalformed(field, 'must be a string');
  return value;
}

export function jsonBool(value: unknown, field: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw jsonMalformed(field, 'must be true or false');
  return value;
}

/** An enum: OTLP/JSON sends enums as integers only, never by name. */
export function jsonEnum(value: unknown, field: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw jsonMalformed(field, 'must be an integer (OTLP/JSON enums are numbers)');
  return value;
}

/** A uint32 (flags): a number or a decimal string. */
export function jsonUint32(value: unknown, field: string): number {
  if (value === undefined || value === null) return 0;
  const n = typeof value === 'string' && UNSIGNED_DECIMAL.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 0xffffffff) throw jsonMalformed(field, 'must be a uint32');
  return n;
}

/** Whether unsigned decimal `digits` is at most `max` (both without a sign), compared as text. */
function decimalAtMost(digits: string, max: string): boolean {
  let i = 0;
  while (i < digits.length - 1 && digits[i] === '0') i++;
  const significant = digits.length - i;
  return significant < max.length || (significant === max.length && digits.slice(i) <= max);
}

/** A fixed64 or uint64 (counts) as a double: a non-negative integer number or decimal string. */
export function jsonUint64(value: unknown, field: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'string') {
    if (UNSIGNED_DECIMAL.test(value) && decimalAtMost(value, UINT64_MAX_TEXT)) return Number(value);
  } else if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < TWO_64) return value;
  throw jsonMalformed(field, 'must be an unsigned 64-bit integer (a decimal string or a number)');
}

/**
 * A fixed64 count of nanoseconds as whole milliseconds, floored, exactly: for a decimal string,
 * dropping its last six digits is the floored division by 10^6, and what remains (at most 14
 * digits) is exact in a double. A number is exact as far as the double it parsed to.
 */
export function jsonNanosAsMillis(value: unknown, field: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'string') {
    if (UNSIGNED_DECIMAL.test(value) && decimalAtMost(value, UINT64_MAX_TEXT)) return value.length > 6 ? Number(value.slice(0, -6)) : 0;
  } else if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < TWO_64) {
    return Number(BigInt(value) / 1_000_000n);
  }
  throw jsonMalformed(field, 'must be an unsigned 64-bit count of nanoseconds (a decimal string or a number)');
}

/** An int64 (as_int) as a double, rounded once from its decimal text: exact to 2^53. */
export function jsonInt64(value: unknown, field: string): number {
  const n = typeof value === 'string' && SIGNED_DECIMAL.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < -TWO_63 || n >= TWO_63) throw jsonMalformed(field, 'must be a signed 64-bit integer (a decimal string or a number)');
  return n;
}

/** An int64 (AnyValue int_value) as exact, canonical decimal text ("007" is "7", "-0" is "0"). */
export function jsonInt64Text(value: unknown, field: string): string {
  if (typeof value === 'string' && SIGNED_DECIMAL.test(value)) {
    if (value.length <= 15) return String(Number(value));
    const n = BigInt(value);
    if (n >= INT64_MIN && n <= INT64_MAX) return n.toString();
  } else if (typeof value === 'number' && Number.isInteger(value) && value >= -TWO_63 && value < TWO_63) {
    return Number.isSafeInteger(value) ? String(value) : BigInt(value).toString();
  }
  throw jsonMalformed(field, 'must be a signed 64-bit integer (a decimal string or a number)');
}

/** A double: a number, `"NaN"`, `"Infinity"`, `"-Infinity"`, or a number inside a string. */
export function jsonDouble(value: unknown, field: string): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    if (value === 'NaN') return Number.NaN;
    if (value === 'Infinity') return Number.POSITIVE_INFINITY;
    if (value === '-Infinity') return Number.NEGATIVE_INFINITY;
    if (NUMBER_TEXT.test(value)) return Number(value);
  }
  throw jsonMalformed(field, 'must be a number');
}

/** Bytes: base64 text (either alphabet, padding optional). */
export function jsonBytes(value: unknown, field: string): Uint8Array {
  if (typeof value !== 'string' || !BASE64_TEXT.test(value) || value.replace(/=+$/, '').length % 4 === 1) throw jsonMalformed(field, 'must be base64');
  // Node's base64 decoder reads both alphabets.
  return Buffer.from(value, 'base64');
}
