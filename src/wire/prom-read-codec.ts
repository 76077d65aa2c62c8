// Owns the Prometheus remote read bodies: the snappy-compressed ReadRequest and the SAMPLES-form ReadResponse, both ways.
import { assert } from '../core/assert.js';
import { StrataError } from '../core/errors.js';
import { ProtoReader, WIRE_FIXED64, WIRE_LENGTH_DELIMITED, WIRE_VARINT } from './proto-reader.js';
import { ProtoWriter } from './proto-writer.js';
import { PROM_READ_QUERIES_MAX } from './protocol-limits.js';
import type { Label } from './series-name.js';
import { snappyDecode, snappyEncode } from './snappy-body.js';

// Field numbers of prompb/remote.proto and prompb/types.proto.
const READ_REQUEST_QUERIES = 1;
const QUERY_START = 1;
const QUERY_END = 2;
const QUERY_MATCHERS = 3;
const QUERY_HINTS = 4;
const MATCHER_TYPE = 1;
const MATCHER_NAME = 2;
const MATCHER_VALUE = 3;
const HINTS_STEP = 1;
const HINTS_FUNC = 2;
const HINTS_START = 3;
const HINTS_END = 4;
const HINTS_RANGE = 7;
const READ_RESPONSE_RESULTS = 1;
const QUERY_RESULT_TIMESERIES = 1;
const TIMESERIES_LABELS = 1;
const TIMESERIES_SAMPLES = 2;
const LABEL_NAME = 1;
const LABEL_VALUE = 2;
const SAMPLE_VALUE = 1;
const SAMPLE_TIMESTAMP = 2;

/** How a matcher compares a label value: equal, not equal, regular expression match, no match. */
export type MatcherType = 'EQ' | 'NEQ' | 'RE' | 'NRE';

/** The matcher types by their protobuf enum number. */
const MATCHER_TYPES: readonly MatcherType[] = ['EQ', 'NEQ', 'RE', 'NRE'];

/** One label matcher of a remote read query. */
export interface LabelMatcher {
  readonly type: MatcherType;
  readonly name: string;
  readonly value: string;
}

/** What the PromQL engine says about the query it serves (Strata may ignore them). Absent fields are 0 or ''. */
export interface ReadHints {
  readonly stepMs: number;
  readonly func: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly rangeMs: number;
}

/** One query of a remote read request: the series its matchers select, in [startMs, endMs] (both inclusive, as Prometheus means them). */
export interface RemoteReadQuery {
  readonly startMs: number;
  readonly endMs: number;
  readonly matchers: readonly LabelMatcher[];
  readonly hints: ReadHints | null;
}

/** One series of a remote read answer. */
export interface ReadSeries {
  /** Every label, `__name__` included, sorted by label name. */
  readonly labels: readonly Label[];
  /** Sample times in ascending order, as long as `values`. */
  readonly timestampsMs: ArrayLike<number>;
  readonly values: ArrayLike<number>;
}

function malformed(message: string, details: Record<string, unknown> = {}): StrataError {
  return new StrataError('PROTOCOL_BODY_MALFORMED', `The remote read request is malformed: ${message}.`, details);
}

/** An int64 field that must be a safe integer of milliseconds. */
function readMs(r: ProtoReader, what: string): number {
  r.expect(WIRE_VARINT);
  const ms = r.int64();
  if (!Number.isSafeInteger(ms)) throw malformed(`${what} is not a safe integer of milliseconds`, { field: what });
  return ms;
}

function readMatcher(r: ProtoReader, end: number): LabelMatcher {
  let typeNumber = 0;
  let name = '';
  let value = '';
  while (r.next(end)) {
    if (r.field === MATCHER_TYPE) {
      r.expect(WIRE_VARINT);
      typeNumber = r.int64();
    } else if (r.field === MATCHER_NAME) {
      r.expect(WIRE_LENGTH_DELIMITED);
      name = r.string();
    } else if (r.field === MATCHER_VALUE) {
      r.expect(WIRE_LENGTH_DELIMITED);
      value = r.string();
    } else r.skipField();
  }
  const type = MATCHER_TYPES[typeNumber];
  if (type === undefined) {
    throw new StrataError('PROMETHEUS_MATCHER_INVALID', `The matcher of label ${JSON.stringify(name)} has type ${typeNumber}; known types are 0 (EQ) to 3 (NRE).`, {
      type: typeNumber,
      name,
    });
  }
  return { type, name, value };
}

/** Reads one ReadHints message into `hints` (a repeated message field merges, as protobuf says). */
function readHints(r: ProtoReader, end: number, hints: ReadHints): ReadHints {
  let { stepMs, func, startMs, endMs, rangeMs } = hints;
  while (r.next(end)) {
    if (r.field === HINTS_STEP) stepMs = readMs(r, 'hints.step_ms');
    else if (r.field === HINTS_START) startMs = readMs(r, 'hints.start_ms');
    else if (r.field === HINTS_END) endMs = readMs(r, 'hints.end_ms');
    else if (r.field === HINTS_RANGE) rangeMs = readMs(r, 'hints.range_ms');
    else if (r.field === HINTS_FUNC) {
      r.expect(WIRE_LENGTH_DELIMITED);
      func = r.string();
    } else r.skipField(); // grouping and by: Strata does not aggregate on read.
  }
  return { stepMs, func, startMs, endMs, rangeMs };
}

function readQuery(r: ProtoReader, end: number): RemoteReadQuery {
  let startMs = 0;
  let endMs = 0;
  const matchers: LabelMatcher[] = [];
  let hints: ReadHints | null = null;
  while (r.next(end)) {
    if (r.field === QUERY_START) startMs = readMs(r, 'start_timestamp_ms');
    else if (r.field === QUERY_END) endMs = readMs(r, 'end_timestamp_ms');
    else if (r.field === QUERY_MATCHERS) {
      r.expect(WIRE_LENGTH_DELIMITED);
      matchers.push(readMatcher(r, r.lengthEnd()));
    } else if (r.field === QUERY_HINTS) {
      r.expect(WIRE_LENGTH_DELIMITED);
      hints = readHints(r, r.lengthEnd(), hints ?? { stepMs: 0, func: '', startMs: 0, endMs: 0, rangeMs: 0 });
    } else r.skipField();
  }
  if (startMs > endMs) throw malformed(`a query starts at ${startMs} ms, after its end at ${endMs} ms`, { startMs, endMs });
  return { startMs, endMs, matchers, hints };
}

/**
 * Decodes a remote read body (a snappy-compressed ReadRequest). Throws PROMETHEUS_READ_TOO_LARGE
 * past PROM_READ_QUERIES_MAX queries, PROMETHEUS_MATCHER_INVALID for an unknown matcher type,
 * PROTOCOL_BODY_MALFORMED for bad bytes, a start after the end or a time that is not a safe
 * integer, PROTOCOL_BODY_TOO_LARGE for a body that declares too many decompressed bytes.
 * accepted_response_types is read past: Strata answers only the SAMPLES form, which every
 * client accepts (a request without the field asks for it).
 */
export function decodeRemoteRead(body: Uint8Array): RemoteReadQuery[] {
  const bytes = snappyDecode(body);
  const r = new ProtoReader(bytes);
  const queries: RemoteReadQuery[] = [];
  while (r.next(bytes.length)) {
    if (r.field !== READ_REQUEST_QUERIES) {
      r.skipField();
      continue;
    }
    r.expect(WIRE_LENGTH_DELIMITED);
    if (queries.length === PROM_READ_QUERIES_MAX) {
      throw new StrataError('PROMETHEUS_READ_TOO_LARGE', `The remote read request holds more than ${PROM_READ_QUERIES_MAX} queries.`, { limit: PROM_READ_QUERIES_MAX });
    }
    queries.push(readQuery(r, r.lengthEnd()));
  }
  return queries;
}

/** A snappy-compressed ReadRequest of `queries` (for tests and the bench; hints written when not null). */
export function encodeRemoteRead(queries: readonly RemoteReadQuery[]): Uint8Array {
  const w = new ProtoWriter();
  for (const query of queries) {
    w.begin(READ_REQUEST_QUERIES);
    w.tag(QUERY_START, WIRE_VARINT).int64(query.startMs).tag(QUERY_END, WIRE_VARINT).int64(query.endMs);
    for (const m of query.matchers) {
      w.begin(QUERY_MATCHERS).tag(MATCHER_TYPE, WIRE_VARINT).varint(MATCHER_TYPES.indexOf(m.type));
      w.tag(MATCHER_NAME, WIRE_LENGTH_DELIMITED).string(m.name).tag(MATCHER_VALUE, WIRE_LENGTH_DELIMITED).string(m.value).end();
    }
    const h = query.hints;
    if (h !== null) {
      w.begin(QUERY_HINTS).tag(HINTS_STEP, WIRE_VARINT).int64(h.stepMs).tag(HINTS_FUNC, WIRE_LENGTH_DELIMITED).string(h.func);
      w.tag(HINTS_START, WIRE_VARINT).int64(h.startMs).tag(HINTS_END, WIRE_VARINT).int64(h.endMs).tag(HINTS_RANGE, WIRE_VARINT).int64(h.rangeMs).end();
    }
    w.end();
  }
  return snappyEncode(w.finish());
}

/** Bytes of a varint of an int64: ten for a negative one (two's complement). */
function int64Bytes(value: number): number {
  if (value < 0) return 10;
  let bytes = 1;
  for (let v = value; v >= 0x80; v = Math.floor(v / 128)) bytes++;
  return bytes;
}

function writeSeries(w: ProtoWriter, series: ReadSeries): void {
  const { timestampsMs, values } = series;
  assert(timestampsMs.length === values.length, 'a read series has as many times as values');
  w.begin(QUERY_RESULT_TIMESERIES);
  for (const label of series.labels) {
    w.begin(TIMESERIES_LABELS).tag(LABEL_NAME, WIRE_LENGTH_DELIMITED).string(label.name).tag(LABEL_VALUE, WIRE_LENGTH_DELIMITED).string(label.value).end();
  }
  for (let i = 0; i < values.length; i++) {
    const timestampMs = timestampsMs[i] as number;
    // A Sample's length is known up front (tag + double, tag + varint): no padded length prefix.
    w.tag(TIMESERIES_SAMPLES, WIRE_LENGTH_DELIMITED).varint(10 + int64Bytes(timestampMs));
    w.tag(SAMPLE_VALUE, WIRE_FIXED64).double(values[i] as number).tag(SAMPLE_TIMESTAMP, WIRE_VARINT).int64(timestampMs);
  }
  w.end();
}

/** The SAMPLES-form answer: a snappy-compressed ReadResponse with one QueryResult per query, in the request's order. */
export function encodeRemoteReadResponse(results: readonly (readonly ReadSeries[])[]): Uint8Array {
  const w = new ProtoWriter();
  for (const result of results) {
    w.begin(READ_RESPONSE_RESULTS);
    for (const series of result) writeSeries(w, series);
    w.end();
  }
  return snappyEncode(w.finish());
}

function readLabelMessage(r: ProtoReader, end: number): Label {
  let name = '';
  let value = '';
  while (r.next(end)) {
    if (r.field === LABEL_NAME) {
      r.expect(WIRE_LENGTH_DELIMITED);
      name = r.string();
    } else if (r.field === LABEL_VALUE) {
      r.expect(WIRE_LENGTH_DELIMITED);
      value = r.string();
    } else r.skipField();
  }
  return { name, value };
}

function readSample(r: ProtoReader, end: number, timestampsMs: number[], values: number[]): void {
  let value = 0;
  let timestampMs = 0;
  while (r.next(end)) {
    if (r.field === SAMPLE_VALUE) {
      r.expect(WIRE_FIXED64);
      value = r.double();
    } else if (r.field === SAMPLE_TIMESTAMP) {
      r.expect(WIRE_VARINT);
      timestampMs = r.int64();
    } else r.skipField();
  }
  timestampsMs.push(timestampMs);
  values.push(value);
}

function readResultSeries(r: ProtoReader, end: number): ReadSeries {
  const labels: Label[] = [];
  const timestampsMs: number[] = [];
  const values: number[] = [];
  while (r.next(end)) {
    if (r.field === TIMESERIES_LABELS) {
      r.expect(WIRE_LENGTH_DELIMITED);
      labels.push(readLabelMessage(r, r.lengthEnd()));
    } else if (r.field === TIMESERIES_SAMPLES) {
      r.expect(WIRE_LENGTH_DELIMITED);
      readSample(r, r.lengthEnd(), timestampsMs, values);
    } else r.skipField();
  }
  return { labels, timestampsMs, values };
}

/** Decodes a SAMPLES-form ReadResponse (for tests and the bench). */
export function decodeRemoteReadResponse(body: Uint8Array): ReadSeries[][] {
  const bytes = snappyDecode(body);
  const r = new ProtoReader(bytes);
  const results: ReadSeries[][] = [];
  while (r.next(bytes.length)) {
    if (r.field !== READ_RESPONSE_RESULTS) {
      r.skipField();
      continue;
    }
    r.expect(WIRE_LENGTH_DELIMITED);
    const end = r.lengthEnd();
    const series: ReadSeries[] = [];
    while (r.next(end)) {
      if (r.field === QUERY_RESULT_TIMESERIES) {
        r.expect(WIRE_LENGTH_DELIMITED);
        series.push(readResultSeries(r, r.lengthEnd()));
      } else r.skipField();
    }
    results.push(series);
  }
  return results;
}
