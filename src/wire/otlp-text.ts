// Owns the text forms OTLP values take in Strata series: sanitised metric and label names, and AnyValues as label values or compact JSON.
import { Buffer } from 'node:buffer';

/** A metric name already in the Prometheus form: a letter, `_` or `:` first, then letters, digits, `_` and `:`. */
const METRIC_NAME_CLEAN = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
/** A label name already in the Prometheus form: a letter or `_` first, then letters, digits and `_`. */
const LABEL_NAME_CLEAN = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** The first character is a digit: Prometheus names may not start with one. */
const LEADING_DIGIT = /^[0-9]/;

/**
 * The Prometheus-compatible form of an OTLP metric name: every character (code point) outside
 * `[a-zA-Z0-9_:]` becomes `_`, and a leading digit gets a `_` before it, so PromQL can name the
 * series that remote read serves. The empty name stays empty (the caller refuses it).
 */
export function metricNameOf(otlpName: string): string {
  if (otlpName === '' || METRIC_NAME_CLEAN.test(otlpName)) return otlpName;
  // One `_` per code point (the `u` flag), so a surrogate pair is one character; the global
  // pattern is made here, not shared at module level, as a global RegExp carries state.
  const replaced = otlpName.replace(/[^a-zA-Z0-9_:]/gu, '_');
  return LEADING_DIGIT.test(replaced) ? `_${replaced}` : replaced;
}

/**
 * The Prometheus-compatible form of an attribute key: every character (code point) outside
 * `[a-zA-Z0-9_]` becomes `_` (`http.route` is `http_route`), and a leading digit gets a `_`
 * before it. The empty key stays empty (seriesProblem refuses it).
 */
export function labelNameOf(key: string): string {
  if (key === '' || LABEL_NAME_CLEAN.test(key)) return key;
  const replaced = key.replace(/[^a-zA-Z0-9_]/gu, '_');
  return LEADING_DIGIT.test(replaced) ? `_${replaced}` : replaced;
}

/** A double as a label value: JavaScript's shortest round-trip text (`0.1`, `1e+21`, `NaN`, `-Infinity`). */
export function doubleText(value: number): string {
  return String(value);
}

/** A double inside compact JSON: a number when finite, else the proto3 JSON strings `"NaN"`, `"Infinity"`, `"-Infinity"`. */
export function doubleJson(value: number): string {
  return Number.isFinite(value) ? String(value) : `"${String(value)}"`;
}

/** Bytes as a label value: standard base64 with padding (the form OTLP/JSON carries them in). */
export function bytesText(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** A string inside compact JSON. */
export function stringJson(value: string): string {
  return JSON.stringify(value);
}

/** The JSON of an AnyValue that holds nothing (an unset oneof, or an array element the sender left empty). */
export const EMPTY_JSON = 'null';

/** The JSON of one key of a key-value list, `"key":value`. */
export function memberJson(key: string, valueJson: string): string {
  return `${JSON.stringify(key)}:${valueJson}`;
}
