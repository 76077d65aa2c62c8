// Owns the Prometheus remote write 1.0 body: a snappy-compressed WriteRequest read straight into a ProtocolBatch, series named through a cross-request cache, and its encoder.
import { StrataError } from '../core/errors.js';
import { INGEST_BATCH_POINTS_MAX, METRIC_NAME_LENGTH_MAX } from '../core/limits.js';
import { ProtoReader, WIRE_FIXED64, WIRE_LENGTH_DELIMITED, WIRE_VARINT } from './proto-reader.js';
import { ProtoWriter } from './proto-writer.js';
import type { ProtocolBatch } from './protocol-batch.js';
import { SERIES_LABELS_MAX } from './protocol-limits.js';
import { SeriesCache, type SeriesCacheOptions, type SeriesCacheStats } from './series-cache.js';
import { type Label, seriesMetricName, seriesProblem } from './series-name.js';
import { snappyDecode, snappyEncode } from './snappy-body.js';

// Field numbers of prompb/remote.proto and prompb/types.proto.
const WRITE_REQUEST_TIMESERIES = 1;
const TIMESERIES_LABELS = 1;
const TIMESERIES_SAMPLES = 2;
const TIMESERIES_HISTOGRAMS = 4;
const LABEL_NAME = 1;
const LABEL_VALUE = 2;
const SAMPLE_VALUE = 1;
const SAMPLE_TIMESTAMP = 2;
/** The one-byte tags of a Sample's fields: field number << 3 | wire type. */
const SAMPLE_VALUE_TAG = (SAMPLE_VALUE << 3) | WIRE_FIXED64;
const SAMPLE_TIMESTAMP_TAG = (SAMPLE_TIMESTAMP << 3) | WIRE_VARINT;

/** The label Prometheus carries the metric name in. */
const METRIC_NAME_LABEL = '__name__';

/** The labels of one TimeSeries: `__name__` apart, the others in the order sent. */
interface SeriesLabels {
  name: string;
  readonly others: Label[];
}

/** How a label set names its series: the metric, or why it cannot and the name as far as it forms. */
interface SeriesName {
  readonly metric: string | undefined;
  readonly problem: string | undefined;
  /** The name a rejection reports. */
  readonly shown: string;
}

/** The state of one decode: the reader, the batch, and the decoder's cache of named label sets. */
interface WriteDecode {
  readonly r: ProtoReader;
  readonly batch: ProtocolBatch;
  /** A DataView of the decompressed body, for hashing and comparing label bytes a word at a time. */
  readonly view: DataView;
  readonly names: SeriesCache<SeriesName>;
  /** Set by scanSeries: where the first field that is not a label starts. */
  firstOther: number;
  /** Set by scanSeries: whether a label comes after such a field. */
  labelsLater: boolean;
}

/** Reads one Label message ending at `end` into `into`. */
function readLabel(r: ProtoReader, end: number, into: SeriesLabels): void {
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
  // A second __name__ stays among the others, where seriesProblem names it.
  if (name === METRIC_NAME_LABEL && into.name === '') into.name = value;
  else into.others.push({ name, value });
}

/** The labels among the fields in [start, end), other fields skipped. */
function readLabels(r: ProtoReader, start: number, end: number): SeriesLabels {
  const labels: SeriesLabels = { name: '', others: [] };
  r.pos = start;
  while (r.next(end)) {
    if (r.field !== TIMESERIES_LABELS) {
      r.skipField();
      continue;
    }
    r.expect(WIRE_LENGTH_DELIMITED);
    readLabel(r, r.lengthEnd(), labels);
  }
  return labels;
}

/**
 * First pass over a TimeSeries, reading only tags and lengths: where its leading labels end and
 * whether a label follows another field (protobuf allows any order; every known sender writes the
 * labels first).
 */
function scanSeries(d: WriteDecode, start: number, end: number): void {
  const r = d.r;
  d.firstOther = end;
  d.labelsLater = false;
  r.pos = start;
  for (;;) {
    const at = r.pos;
    if (!r.next(end)) return;
    if (r.field === TIMESERIES_LABELS) {
      r.expect(WIRE_LENGTH_DELIMITED);
      if (d.firstOther !== end) d.labelsLater = true;
    } else if (d.firstOther === end) d.firstOther = at;
    r.skipField();
  }
}

/**
 * The name a rejection of a refused series reports: formed as far as it goes, so the sender can
 * tell which series it was, from at most SERIES_LABELS_MAX labels and cut to METRIC_NAME_LENGTH_MAX
 * characters (a response must not echo a huge label set).
 */
function refusedName(labels: SeriesLabels): string {
  const formed = seriesMetricName(labels.name, labels.others.slice(0, SERIES_LABELS_MAX));
  return formed.length > METRIC_NAME_LENGTH_MAX ? `${formed.slice(0, METRIC_NAME_LENGTH_MAX)}…` : formed;
}

function nameOf(labels: SeriesLabels): SeriesName {
  const problem =
    labels.others.length > SERIES_LABELS_MAX
      ? `the series has ${labels.others.length} labels besides __name__; the limit is ${SERIES_LABELS_MAX}`
      : seriesProblem(labels.name, labels.others);
  if (problem !== undefined) return { metric: undefined, problem, shown: refusedName(labels) };
  const metric = seriesMetricName(labels.name, labels.others);
  return { metric, problem, shown: metric };
}

/**
 * The name of the TimeSeries in [start, end), after scanSeries. Its leading labels' bytes are the
 * cache key: a cached label set, from this request or an earlier one, costs a hash and a compare,
 * with no string read and no check (a refusal is cached too). Labels sent after a sample (no known
 * sender does that) are read the slow way.
 */
function seriesName(d: WriteDecode, start: number, end: number): SeriesName {
  if (d.labelsLater) return nameOf(readLabels(d.r, start, end));
  const labelsEnd = d.firstOther;
  const hash = d.names.keyHash(0, d.view, start, labelsEnd);
  const seen = d.names.get(hash, 0, d.view, start, labelsEnd);
  if (seen !== undefined) return seen;
  const named = nameOf(readLabels(d.r, start, labelsEnd));
  d.names.set(hash, 0, d.view, start, labelsEnd, named, named.shown.length + (named.problem?.length ?? 0));
  return named;
}

/**
 * Second pass over a TimeSeries from its first non-label field: its samples into the batch (or
 * only counted when `metric` is undefined, the series being refused), its native histograms
 * counted. Returns [samples, histograms].
 */
function readPoints(r: ProtoReader, start: number, end: number, metric: string | undefined, batch: ProtocolBatch): [number, number] {
  let samples = 0;
  let histograms = 0;
  r.pos = start;
  while (r.next(end)) {
    if (r.field === TIMESERIES_SAMPLES) {
      r.expect(WIRE_LENGTH_DELIMITED);
      readSample(r, r.lengthEnd(), metric, batch);
      samples++;
    } else if (r.field === TIMESERIES_HISTOGRAMS) {
      r.expect(WIRE_LENGTH_DELIMITED);
      r.skipField();
      histograms++;
    } else if (r.field === TIMESERIES_LABELS) {
      // Read by the first pass; a label after a sample lands here.
      r.expect(WIRE_LENGTH_DELIMITED);
      r.skipField();
    } else r.skipField();
  }
  return [samples, histograms];
}

/** Reads one Sample message ending at `end`; adds it to the batch unless `metric` is undefined. */
function readSample(r: ProtoReader, end: number, metric: string | undefined, batch: ProtocolBatch): void {
  let value = 0;
  let timestampMs = 0;
  // Fast path for the layout every sender writes (value tag, 8 bytes, timestamp tag, varint); the
  // loop below reads whatever follows, and next(end) catches a read past the sample's end.
  const buf = r.buf;
  if (buf[r.pos] === SAMPLE_VALUE_TAG && r.pos < end) {
    r.pos++;
    value = r.double();
    if (buf[r.pos] === SAMPLE_TIMESTAMP_TAG && r.pos < end) {
      r.pos++;
      timestampMs = r.int64();
    }
  }
  while (r.next(end)) {
    if (r.field === SAMPLE_VALUE) {
      r.expect(WIRE_FIXED64);
      value = r.double();
    } else if (r.field === SAMPLE_TIMESTAMP) {
      r.expect(WIRE_VARINT);
      timestampMs = r.int64();
    } else r.skipField();
  }
  if (metric !== undefined) addSample(batch, metric, timestampMs, value);
}

function addSample(batch: ProtocolBatch, metric: string, timestampMs: number, value: number): void {
  if (!Number.isSafeInteger(timestampMs)) {
    batch.reject(metric, 'PROTOCOL_POINT_INVALID', `a sample time of ${timestampMs} ms is not a safe integer`);
    return;
  }
  if (batch.columns.length >= INGEST_BATCH_POINTS_MAX && Number.isFinite(value)) {
    throw new StrataError('INGEST_BATCH_TOO_LARGE', `The remote write request holds more than ${INGEST_BATCH_POINTS_MAX} points; send smaller batches (queue_config max_samples_per_send).`, {
      limit: INGEST_BATCH_POINTS_MAX,
    });
  }
  batch.addNumber(metric, timestampMs, value);
}

/** Reads one TimeSeries spanning [start, end) into the batch. */
function readSeries(d: WriteDecode, start: number, end: number): void {
  scanSeries(d, start, end);
  const firstOther = d.firstOther;
  const named = seriesName(d, start, end);
  const [samples, histograms] = readPoints(d.r, firstOther, end, named.metric, d.batch);
  if (named.metric === undefined) {
    if (samples + histograms > 0) d.batch.reject(named.shown, 'PROTOCOL_SERIES_INVALID', named.problem as string, samples + histograms);
  } else if (histograms > 0) {
    d.batch.reject(named.metric, 'PROTOCOL_POINT_INVALID', 'native histograms are not stored (send classic histograms)', histograms);
  }
}

/**
 * Decodes remote write 1.0 bodies (a snappy-compressed WriteRequest) into ProtocolBatches, with no
 * object per sample; a server makes one. Each series is named by seriesMetricName; a series that
 * cannot be named has all its points refused (PROTOCOL_SERIES_INVALID), a native histogram or a
 * time that is not a safe integer is refused (PROTOCOL_POINT_INVALID), non-finite values
 * (staleness markers) are counted skipped by the batch; exemplars and metadata are ignored. The
 * decoder keeps the naming of the label sets it reads in a bounded cache, by the label bytes:
 * Prometheus sends the same series in every request, and a label set is stored the second time it
 * comes, so from then on a series costs a hash and a compare of its label bytes (a series seen once
 * takes no entry). Two decoders share nothing.
 */
export class RemoteWriteDecoder {
  private readonly names: SeriesCache<SeriesName>;

  /** `cache` shrinks the cache or replaces its hash (tests); the protocol limits by default. */
  constructor(cache: SeriesCacheOptions = {}) {
    this.names = new SeriesCache(cache);
  }

  /** Label sets the cache holds now, and the series it named from the cache since the decoder was made. */
  cacheStats(): SeriesCacheStats {
    return this.names.stats();
  }

  /**
   * Decodes `body` into `batch`. Throws PROTOCOL_BODY_MALFORMED or PROTOCOL_BODY_TOO_LARGE for a
   * body that cannot be read, INGEST_BATCH_TOO_LARGE past INGEST_BATCH_POINTS_MAX stored points; the
   * batch is then partly filled and must be dropped.
   */
  decode(body: Uint8Array, batch: ProtocolBatch): void {
    const bytes = snappyDecode(body);
    const r = new ProtoReader(bytes);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const d: WriteDecode = { r, batch, view, names: this.names, firstOther: 0, labelsLater: false };
    while (r.next(bytes.length)) {
      if (r.field !== WRITE_REQUEST_TIMESERIES) {
        r.skipField();
        continue;
      }
      r.expect(WIRE_LENGTH_DELIMITED);
      const end = r.lengthEnd();
      readSeries(d, r.pos, end);
      r.pos = end;
    }
  }
}

/** Decodes one remote write body into `batch` with a fresh decoder (no cache across calls); see RemoteWriteDecoder. */
export function decodeRemoteWrite(body: Uint8Array, batch: ProtocolBatch): void {
  new RemoteWriteDecoder().decode(body, batch);
}

/** One series to encode: labels as given (`__name__` among them) and its samples. */
export interface RemoteWriteSeries {
  readonly labels: readonly Label[];
  readonly samples: readonly { readonly timestampMs: number; readonly value: number }[];
}

/** A snappy-compressed WriteRequest of `series`, labels in the order given (for tests and the bench). */
export function encodeRemoteWrite(series: readonly RemoteWriteSeries[]): Uint8Array {
  const w = new ProtoWriter();
  for (const one of series) {
    w.begin(WRITE_REQUEST_TIMESERIES);
    for (const label of one.labels) {
      w.begin(TIMESERIES_LABELS).tag(LABEL_NAME, WIRE_LENGTH_DELIMITED).string(label.name).tag(LABEL_VALUE, WIRE_LENGTH_DELIMITED).string(label.value).end();
    }
    for (const sample of one.samples) {
      w.begin(TIMESERIES_SAMPLES).tag(SAMPLE_VALUE, WIRE_FIXED64).double(sample.value).tag(SAMPLE_TIMESTAMP, WIRE_VARINT).int64(sample.timestampMs).end();
    }
    w.end();
  }
  return snappyEncode(w.finish());
}
