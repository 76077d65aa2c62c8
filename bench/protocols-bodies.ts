// Owns encoding the standard workload's batches in each protocol the protocols bench sends: msgpack, Prometheus remote write, OTLP protobuf and JSON, Graphite lines.
import { ProtoWriter } from '../src/wire/proto-writer.js';
import { encodeRemoteWrite } from '../src/wire/prom-write-decoder.js';
import { metricName, type Workload } from '../src/workload/standard-workload.js';
import { encodeBatches } from './http-ingest.js';

/** A way into Strata the protocols bench measures. */
export type ProtocolFormat = 'msgpack' | 'prometheus' | 'otlp-protobuf' | 'otlp-json' | 'graphite';

/** Every format, the native msgpack path first as the yardstick. */
export const PROTOCOL_FORMATS: readonly ProtocolFormat[] = ['msgpack', 'prometheus', 'otlp-protobuf', 'otlp-json', 'graphite'];

/** The metric name the labelled protocols send; the series index goes into a label, as exporters do. */
const LABELLED_NAME = 'bench_value';
const SERIES_LABEL = 'series';
/** Nanoseconds per millisecond, as a BigInt for OTLP's fixed64 times. */
const NS_PER_MS = 1_000_000n;

/** The points of one batch, grouped by series in first-seen order (how an exporter groups samples). */
function bySeries(wl: Workload, start: number, end: number): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  for (let i = start; i < end; i++) {
    const s = wl.seriesIndex[i] as number;
    let group = groups.get(s);
    if (group === undefined) groups.set(s, (group = []));
    group.push(i);
  }
  return groups;
}

function prometheusBody(wl: Workload, start: number, end: number): Buffer {
  const series = [...bySeries(wl, start, end)].map(([s, points]) => ({
    labels: [
      { name: '__name__', value: LABELLED_NAME },
      { name: SERIES_LABEL, value: String(s) },
    ],
    samples: points.map((i) => ({ timestampMs: wl.timestampsMs[i] as number, value: wl.values[i] as number })),
  }));
  return Buffer.from(encodeRemoteWrite(series));
}

/** One OTLP ExportMetricsServiceRequest: one resource, one scope, one gauge with a data point per point. */
function otlpProtobufBody(wl: Workload, start: number, end: number): Buffer {
  const w = new ProtoWriter();
  w.begin(1); // resource_metrics
  w.begin(1).begin(1).tag(1, 2).string('service.name').begin(2).tag(1, 2).string('bench').end().end().end(); // resource.attributes
  w.begin(2).begin(1).tag(1, 2).string('bench').end(); // scope_metrics, scope
  w.begin(2).tag(1, 2).string(LABELLED_NAME).begin(5); // metrics: name, gauge
  for (let i = start; i < end; i++) {
    w.begin(1); // data_points
    w.begin(7).tag(1, 2).string(SERIES_LABEL).begin(2).tag(1, 2).string(String(wl.seriesIndex[i])).end().end();
    w.tag(3, 1).fixed64((wl.timestampsMs[i] as number) * 1_000_000);
    w.tag(4, 1).double(wl.values[i] as number);
    w.end();
  }
  w.end().end().end().end();
  return Buffer.from(w.finish());
}

function otlpJsonBody(wl: Workload, start: number, end: number): Buffer {
  const dataPoints = [];
  for (let i = start; i < end; i++) {
    dataPoints.push({
      attributes: [{ key: SERIES_LABEL, value: { stringValue: String(wl.seriesIndex[i]) } }],
      timeUnixNano: (BigInt(wl.timestampsMs[i] as number) * NS_PER_MS).toString(),
      asDouble: wl.values[i],
    });
  }
  const request = {
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] },
        scopeMetrics: [{ scope: { name: 'bench' }, metrics: [{ name: LABELLED_NAME, gauge: { dataPoints } }] }],
      },
    ],
  };
  return Buffer.from(JSON.stringify(request));
}

/** Graphite plaintext: `path value seconds` per point; the workload's times are whole seconds. */
function graphiteBody(wl: Workload, start: number, end: number): Buffer {
  let text = '';
  for (let i = start; i < end; i++) text += `${metricName(wl.seriesIndex[i] as number)} ${wl.values[i] as number} ${(wl.timestampsMs[i] as number) / 1000}\n`;
  return Buffer.from(text);
}

const ENCODERS: Readonly<Record<Exclude<ProtocolFormat, 'msgpack'>, (wl: Workload, start: number, end: number) => Buffer>> = {
  prometheus: prometheusBody,
  'otlp-protobuf': otlpProtobufBody,
  'otlp-json': otlpJsonBody,
  graphite: graphiteBody,
};

/** The workload cut into batches of `batchPoints`, each encoded in `format` (before any clock starts). */
export function encodeProtocolBatches(wl: Workload, batchPoints: number, format: ProtocolFormat): Buffer[] {
  if (format === 'msgpack') return encodeBatches(wl, batchPoints, 'msgpack');
  const encode = ENCODERS[format];
  const bodies: Buffer[] = [];
  for (let start = 0; start < wl.length; start += batchPoints) bodies.push(encode(wl, start, Math.min(start + batchPoints, wl.length)));
  return bodies;
}
