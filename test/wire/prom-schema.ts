// Owns the reference protobufjs schema of the Prometheus remote write and read messages the wire tests encode and decode with.
import protobuf from 'protobufjs';

const { Root, Type, Field, Enum } = protobuf;

/** The prompb messages, built field by field from the numbers in prompb/remote.proto and prompb/types.proto. */
export interface PromSchema {
  readonly WriteRequest: protobuf.Type;
  readonly TimeSeries: protobuf.Type;
  readonly Label: protobuf.Type;
  readonly Sample: protobuf.Type;
  readonly Exemplar: protobuf.Type;
  readonly Histogram: protobuf.Type;
  readonly MetricMetadata: protobuf.Type;
  readonly ReadRequest: protobuf.Type;
  readonly Query: protobuf.Type;
  readonly LabelMatcher: protobuf.Type;
  readonly ReadHints: protobuf.Type;
  readonly ReadResponse: protobuf.Type;
  readonly QueryResult: protobuf.Type;
}

/** Builds the schema (a fresh root each call, so tests share no mutable state). */
export function promSchema(): PromSchema {
  const label = new Type('Label').add(new Field('name', 1, 'string')).add(new Field('value', 2, 'string'));
  const sample = new Type('Sample').add(new Field('value', 1, 'double')).add(new Field('timestamp', 2, 'int64'));
  const exemplar = new Type('Exemplar')
    .add(new Field('labels', 1, 'Label', 'repeated'))
    .add(new Field('value', 2, 'double'))
    .add(new Field('timestamp', 3, 'int64'));
  // A part of Histogram: enough fields to make a message of several wire types the decoder must skip.
  const histogram = new Type('Histogram')
    .add(new Field('countInt', 1, 'uint64'))
    .add(new Field('sum', 3, 'double'))
    .add(new Field('schema', 4, 'sint32'))
    .add(new Field('positiveDeltas', 12, 'sint64', 'repeated'))
    .add(new Field('timestamp', 15, 'int64'));
  const timeSeries = new Type('TimeSeries')
    .add(new Field('labels', 1, 'Label', 'repeated'))
    .add(new Field('samples', 2, 'Sample', 'repeated'))
    .add(new Field('exemplars', 3, 'Exemplar', 'repeated'))
    .add(new Field('histograms', 4, 'Histogram', 'repeated'));
  const metadata = new Type('MetricMetadata')
    .add(new Field('type', 1, 'int32'))
    .add(new Field('metricFamilyName', 2, 'string'))
    .add(new Field('help', 4, 'string'))
    .add(new Field('unit', 5, 'string'));
  const writeRequest = new Type('WriteRequest').add(new Field('timeseries', 1, 'TimeSeries', 'repeated')).add(new Field('metadata', 3, 'MetricMetadata', 'repeated'));
  const matcherType = new Enum('MatcherType', { EQ: 0, NEQ: 1, RE: 2, NRE: 3 });
  const matcher = new Type('LabelMatcher').add(new Field('type', 1, 'MatcherType')).add(new Field('name', 2, 'string')).add(new Field('value', 3, 'string'));
  const hints = new Type('ReadHints')
    .add(new Field('stepMs', 1, 'int64'))
    .add(new Field('func', 2, 'string'))
    .add(new Field('startMs', 3, 'int64'))
    .add(new Field('endMs', 4, 'int64'))
    .add(new Field('grouping', 5, 'string', 'repeated'))
    .add(new Field('by', 6, 'bool'))
    .add(new Field('rangeMs', 7, 'int64'));
  const query = new Type('Query')
    .add(new Field('startTimestampMs', 1, 'int64'))
    .add(new Field('endTimestampMs', 2, 'int64'))
    .add(new Field('matchers', 3, 'LabelMatcher', 'repeated'))
    .add(new Field('hints', 4, 'ReadHints'));
  const responseType = new Enum('ResponseType', { SAMPLES: 0, STREAMED_XOR_CHUNKS: 1 });
  const readRequest = new Type('ReadRequest')
    .add(new Field('queries', 1, 'Query', 'repeated'))
    .add(new Field('acceptedResponseTypes', 2, 'ResponseType', 'repeated', undefined, { packed: true }));
  const queryResult = new Type('QueryResult').add(new Field('timeseries', 1, 'TimeSeries', 'repeated'));
  const readResponse = new Type('ReadResponse').add(new Field('results', 1, 'QueryResult', 'repeated'));
  const root = new Root();
  for (const t of [label, sample, exemplar, histogram, timeSeries, metadata, writeRequest, matcherType, matcher, hints, query, responseType, readRequest, queryResult, readResponse]) root.add(t);
  root.resolveAll();
  return {
    WriteRequest: writeRequest,
    TimeSeries: timeSeries,
    Label: label,
    Sample: sample,
    Exemplar: exemplar,
    Histogram: histogram,
    MetricMetadata: metadata,
    ReadRequest: readRequest,
    Query: query,
    LabelMatcher: matcher,
    ReadHints: hints,
    ReadResponse: readResponse,
    QueryResult: queryResult,
  };
}

/** A protobufjs int64 (a Long, or a number when small) as a double. */
export function longToNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  return (value as { toNumber(): number }).toNumber();
}

/** A 64-bit integer as the {low, high} pair protobufjs writes exactly (numbers past 2^53 would round). */
export function bits64(value: bigint): { low: number; high: number; unsigned: boolean } {
  const u = BigInt.asUintN(64, value);
  return { low: Number(u & 0xffffffffn) | 0, high: Number(u >> 32n) | 0, unsigned: false };
}

/** Concatenates byte arrays. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
