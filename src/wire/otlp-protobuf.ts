// Owns reading an OTLP ExportMetricsServiceRequest in binary protobuf (opentelemetry/proto/collector/metrics/v1) into the OTLP mapper.
import { KIND_EXPONENTIAL_HISTOGRAM, KIND_GAUGE, KIND_HISTOGRAM, KIND_SUM, KIND_SUMMARY, type OtlpMapper } from './otlp-mapping.js';
import type { OtlpPoint } from './otlp-point.js';
import { OtlpFieldReader } from './otlp-protobuf-fields.js';
import type { OtlpSeries } from './otlp-series.js';
import type { ProtoReader } from './proto-reader.js';

/**
 * Walks one request. Fields are read by number, in whatever order they come; unknown fields are
 * skipped, so newer senders still decode. Where a message's meaning depends on a field that may
 * follow its data points (a Sum's temporality, a ResourceMetrics' resource), the message is read
 * twice: skipping a length-delimited field costs two varints, not a copy.
 */
class ProtobufWalker {
  private readonly fields: OtlpFieldReader;
  private readonly reader: ProtoReader;
  /** Start and end offsets of the data messages of the metric being read (Metric is never nested, so one list serves). */
  private readonly dataSpans: number[] = [];
  /** Where the attributes of the point being read start and end (-1 before the first), and whether another field comes between two. */
  private attributesStart = -1;
  private attributesEnd = -1;
  private attributesSplit = false;

  constructor(
    body: Uint8Array,
    private readonly mapper: OtlpMapper,
  ) {
    this.fields = new OtlpFieldReader(body);
    this.reader = this.fields.reader;
  }

  request(): void {
    const r = this.reader;
    const end = r.buf.length;
    while (r.next(end)) {
      if (r.field === 1) this.resourceMetrics(this.fields.lengthEnd());
      else r.skipField();
    }
  }

  private resourceMetrics(end: number): void {
    const r = this.reader;
    const start = r.pos;
    const service = { name: '', namespace: '', instance: '' };
    while (r.next(end)) {
      if (r.field === 1) this.resource(this.fields.lengthEnd(), service);
      else r.skipField();
    }
    this.mapper.beginResource(service.name, service.namespace, service.instance);
    r.pos = start;
    while (r.next(end)) {
      if (r.field === 2) this.scopeMetrics(this.fields.lengthEnd());
      else r.skipField();
    }
  }

  /** Reads the three resource attributes Strata keeps (service.name, .namespace, .instance.id); other values are skipped unread. */
  private resource(end: number, service: { name: string; namespace: string; instance: string }): void {
    const r = this.reader;
    while (r.next(end)) {
      if (r.field !== 1) {
        r.skipField();
        continue;
      }
      const kvEnd = this.fields.lengthEnd();
      const key = this.fields.keyValue(kvEnd);
      if (key === 'service.name') service.name = this.fields.valueText();
      else if (key === 'service.namespace') service.namespace = this.fields.valueText();
      else if (key === 'service.instance.id') service.instance = this.fields.valueText();
      r.pos = kvEnd;
    }
  }

  private scopeMetrics(end: number): void {
    const r = this.reader;
    while (r.next(end)) {
      if (r.field === 2) this.metric(this.fields.lengthEnd());
      else r.skipField();
    }
  }

  /**
   * Metric: name 1, unit 3, and the data oneof (gauge 5, sum 7, histogram 9, exponential_histogram
   * 10, summary 11). A member sent twice is one message merged from both, as protobuf parsers do;
   * a different member replaces the earlier one.
   */
  private metric(end: number): void {
    const r = this.reader;
    const spans = this.dataSpans;
    spans.length = 0;
    let name = '';
    let unit = '';
    let kind = 0;
    while (r.next(end)) {
      const field = r.field;
      if (field === 1) name = this.fields.string();
      else if (field === 3) unit = this.fields.string();
      else if (field === KIND_GAUGE || field === KIND_SUM || field === KIND_HISTOGRAM || field === KIND_EXPONENTIAL_HISTOGRAM || field === KIND_SUMMARY) {
        if (field !== kind) spans.length = 0;
        kind = field;
        const dataEnd = this.fields.lengthEnd();
        spans.push(r.pos, dataEnd);
        r.pos = dataEnd;
      } else r.skipField();
    }
    let temporality = 0;
    let monotonic = false;
    for (let i = 0; kind === KIND_SUM && i < spans.length; i += 2) {
      r.pos = spans[i] as number;
      while (r.next(spans[i + 1] as number)) {
        if (r.field === 2) temporality = this.fields.varint();
        else if (r.field === 3) monotonic = this.fields.varint() !== 0;
        else r.skipField();
      }
    }
    if (kind !== 0) this.mapper.beginMetric(name, unit, kind, temporality, monotonic);
    for (let i = 0; i < spans.length; i += 2) {
      r.pos = spans[i] as number;
      this.dataPoints(kind, spans[i + 1] as number);
    }
    r.pos = end;
  }

  /** The data points (field 1) of a Gauge, Sum, Histogram, ExponentialHistogram or Summary. */
  private dataPoints(kind: number, end: number): void {
    const r = this.reader;
    while (r.next(end)) {
      if (r.field !== 1) r.skipField();
      else if (kind === KIND_GAUGE || kind === KIND_SUM) this.numberPoint(this.fields.lengthEnd());
      else if (kind === KIND_HISTOGRAM) this.histogramPoint(this.fields.lengthEnd());
      else if (kind === KIND_EXPONENTIAL_HISTOGRAM) this.exponentialPoint(this.fields.lengthEnd());
      else this.summaryPoint(this.fields.lengthEnd());
    }
  }

  /** NumberDataPoint: attributes 7, time_unix_nano 3, as_double 4, as_int 6, flags 8. */
  private numberPoint(end: number): void {
    const r = this.reader;
    const start = this.beginPoint();
    const point = this.mapper.point;
    for (let at = start; r.next(end); at = r.pos) {
      const field = r.field;
      if (field === 7) this.skipAttribute(at);
      else if (field === 3) point.timeMs = this.fields.nanosAsMillis();
      else if (field === 4 || field === 6) {
        point.value = field === 4 ? this.fields.double() : this.fields.sfixed64();
        point.hasValue = true;
      } else if (field === 8) point.flags = this.fields.varint();
      else r.skipField();
    }
    this.mapper.endPoint(this.series(7, start, end));
  }

  /** HistogramDataPoint: attributes 9, time 3, count 4, sum 5, bucket_counts 6, explicit_bounds 7, flags 10. */
  private histogramPoint(end: number): void {
    const r = this.reader;
    const start = this.beginPoint();
    const point = this.mapper.point;
    for (let at = start; r.next(end); at = r.pos) {
      switch (r.field) {
        case 9:
          this.skipAttribute(at);
          break;
        case 3:
          point.timeMs = this.fields.nanosAsMillis();
          break;
        case 4:
          point.count = this.fields.fixed64();
          break;
        case 5:
          this.sum(point);
          break;
        case 6: {
          const run = this.fields.eightByteRun();
          if (run < 0) point.addBucketCount(r.fixed64());
          else while (r.pos < run) point.addBucketCount(r.fixed64());
          break;
        }
        case 7: {
          const run = this.fields.eightByteRun();
          if (run < 0) point.addBound(r.double());
          else while (r.pos < run) point.addBound(r.double());
          break;
        }
        case 10:
          point.flags = this.fields.varint();
          break;
        default:
          r.skipField();
      }
    }
    this.mapper.endPoint(this.series(9, start, end));
  }

  /** ExponentialHistogramDataPoint: attributes 1, time 3, count 4, sum 5, flags 10; its buckets are not stored. */
  private exponentialPoint(end: number): void {
    const r = this.reader;
    const start = this.beginPoint();
    const point = this.mapper.point;
    for (let at = start; r.next(end); at = r.pos) {
      const field = r.field;
      if (field === 1) this.skipAttribute(at);
      else if (field === 3) point.timeMs = this.fields.nanosAsMillis();
      else if (field === 4) point.count = this.fields.fixed64();
      else if (field === 5) this.sum(point);
      else if (field === 10) point.flags = this.fields.varint();
      else r.skipField();
    }
    this.mapper.endPoint(this.series(1, start, end));
  }

  /** SummaryDataPoint: attributes 7, time 3, count 4, sum 5, quantile_values 6 (quantile 1, value 2), flags 8. */
  private summaryPoint(end: number): void {
    const r = this.reader;
    const start = this.beginPoint();
    const point = this.mapper.point;
    for (let at = start; r.next(end); at = r.pos) {
      const field = r.field;
      if (field === 7) this.skipAttribute(at);
      else if (field === 3) point.timeMs = this.fields.nanosAsMillis();
      else if (field === 4) point.count = this.fields.fixed64();
      else if (field === 5) this.sum(point);
      else if (field === 6) {
        const quantileEnd = this.fields.lengthEnd();
        let quantile = 0;
        let value = 0;
        while (r.next(quantileEnd)) {
          if (r.field === 1) quantile = this.fields.double();
          else if (r.field === 2) value = this.fields.double();
          else r.skipField();
        }
        point.addQuantile(quantile, value);
      } else if (field === 8) point.flags = this.fields.varint();
      else r.skipField();
    }
    this.mapper.endPoint(this.series(7, start, end));
  }

  private sum(point: OtlpPoint): void {
    point.sum = this.fields.double();
    point.hasSum = true;
  }

  /** Starts reading a data point: no attributes seen yet. Returns where the point starts. */
  private beginPoint(): number {
    this.attributesStart = -1;
    this.attributesEnd = -1;
    this.attributesSplit = false;
    return this.reader.pos;
  }

  /** Steps over one attribute (a KeyValue whose tag starts at `at`), noting where the point's attributes lie. */
  private skipAttribute(at: number): void {
    const end = this.fields.lengthEnd();
    if (this.attributesStart < 0) this.attributesStart = at;
    else if (at !== this.attributesEnd) this.attributesSplit = true;
    this.attributesEnd = end;
    this.reader.pos = end;
  }

  /**
   * The series of the point just read, whose attributes are field `field` of [start, end). When
   * its attributes came together (every known sender writes them so), their bytes, tags included,
   * are the key: a point of a series seen before costs a hash and a compare. Otherwise, or on a
   * miss, the attributes are read and the mapping names the series (and the cache keeps it).
   */
  private series(field: number, start: number, end: number): OtlpSeries {
    const mapper = this.mapper;
    const cache = mapper.cache.bytes;
    const keyed = !this.attributesSplit;
    // Together, the attributes are read from their own span; apart, from the whole point.
    const keyStart = keyed ? Math.max(this.attributesStart, 0) : start;
    const keyEnd = keyed ? Math.max(this.attributesEnd, 0) : end;
    const view = this.fields.view;
    const hash = keyed ? cache.keyHash(mapper.context, view, keyStart, keyEnd) : 0;
    if (keyed) {
      const seen = cache.get(hash, mapper.context, view, keyStart, keyEnd);
      if (seen !== undefined) return seen;
    }
    const r = this.reader;
    const point = mapper.point;
    r.pos = keyStart;
    while (r.next(keyEnd)) {
      if (r.field === field) this.attribute(point);
      else r.skipField();
    }
    r.pos = end;
    const series = mapper.seriesOfPoint();
    if (keyed) cache.set(hash, mapper.context, view, keyStart, keyEnd, series, series.bytes);
    return series;
  }

  /** One KeyValue of a data point's attributes, its value as a label value. */
  private attribute(point: OtlpPoint): void {
    const kvEnd = this.fields.lengthEnd();
    const key = this.fields.keyValue(kvEnd);
    point.addAttribute(key, this.fields.valueText());
    this.reader.pos = kvEnd;
  }
}

/** Decodes a binary protobuf ExportMetricsServiceRequest into `mapper`; throws PROTOCOL_BODY_MALFORMED. */
export function decodeOtlpProtobuf(body: Uint8Array, mapper: OtlpMapper): void {
  new ProtobufWalker(body, mapper).request();
}
