// Owns the example tests of the OTLP metrics decoders: each mapping rule, skip and refusal, in both encodings, on requests built with a protobufjs schema and as JSON.
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import { INGEST_BATCH_POINTS_MAX } from '../../src/core/limits.js';
import { pointsOf } from '../../src/model/point-columns.js';
import { decodeOtlpMetrics, type OtlpEncoding } from '../../src/wire/otlp-decoder.js';
import { ProtoWriter } from '../../src/wire/proto-writer.js';
import { ProtocolBatch } from '../../src/wire/protocol-batch.js';
import { PROTOBUF_DEPTH_MAX, SERIES_LABELS_MAX } from '../../src/wire/protocol-limits.js';
import { encodeRequest, otlpSchema } from './otlp-schema.js';

const schema = otlpSchema();
/** 2023-11-14T22:13:20.123456789Z: past 2^53 nanoseconds, so a double would round it. */
const T_NANOS = '1700000000123456789';
const T_MS = 1_700_000_000_123;

type Json = Record<string, unknown>;

function decode(body: Uint8Array, encoding: OtlpEncoding): ProtocolBatch {
  const batch = new ProtocolBatch('t');
  decodeOtlpMetrics(body, encoding, batch);
  return batch;
}

function outcome(batch: ProtocolBatch): Json {
  return { points: pointsOf(batch.columns), rejected: batch.rejectedPoints, skipped: batch.skippedPoints, rejections: batch.rejections };
}

/** Decodes `request` (camelCase, the OTLP/JSON shape, which protobufjs also takes) in both encodings; requires the same outcome. */
function decodeBoth(request: Json): ProtocolBatch {
  const proto = decode(encodeRequest(schema, request), 'protobuf');
  const json = decode(Buffer.from(JSON.stringify(request)), 'json');
  expect(outcome(json)).toEqual(outcome(proto));
  return proto;
}

/** The stored points as `metric → value` pairs, in order. */
function stored(batch: ProtocolBatch): [string, number][] {
  return pointsOf(batch.columns).map((p) => [p.metric, p.value as number]);
}

function request(metrics: Json[], resourceAttributes: Json[] = []): Json {
  return { resourceMetrics: [{ resource: { attributes: resourceAttributes }, scopeMetrics: [{ scope: { name: 'test', version: '1' }, metrics }] }] };
}

const str = (key: string, value: string): Json => ({ key, value: { stringValue: value } });
const point = (value: number, attributes: Json[] = [], extra: Json = {}): Json => ({ timeUnixNano: T_NANOS, asDouble: value, attributes, ...extra });
const gauge = (name: string, dataPoints: Json[], unit?: string): Json => ({ name, unit, gauge: { dataPoints } });
const sum = (name: string, temporality: number, monotonic: boolean, dataPoints: Json[]): Json => ({ name, sum: { dataPoints, aggregationTemporality: temporality, isMonotonic: monotonic } });

function expectCode(run: () => unknown, code: string): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(StrataError);
    expect((error as StrataError).code).toBe(code);
    return;
  }
  expect.fail(`expected ${code}`);
}

describe('metric names and kinds', () => {
  it('sanitises names for PromQL and stores gauges under the name, with the unit and the time floored to ms', () => {
    const batch = decodeBoth(request([gauge('http.server.active-requests', [point(3)], '{request}'), gauge('1st:ratio', [point(0.5)]), gauge('größe', [point(1)])]));
    expect(pointsOf(batch.columns)).toEqual([
      { tenant: 't', metric: 'http_server_active_requests', timestamp: T_MS, value: 3, unit: '{request}' },
      { tenant: 't', metric: '_1st:ratio', timestamp: T_MS, value: 0.5, unit: undefined },
      { tenant: 't', metric: 'gr__e', timestamp: T_MS, value: 1, unit: undefined },
    ]);
  });

  it('adds _total to monotonic cumulative sums only, never twice, and stores other sums as sent', () => {
    const batch = decodeBoth(
      request([sum('requests', 2, true, [point(10)]), sum('bytes_total', 2, true, [point(5)]), sum('delta.requests', 1, true, [point(2)]), sum('queue', 2, false, [point(-4)]), sum('unspecified', 0, true, [point(1)])]),
    );
    expect(stored(batch)).toEqual([
      ['requests_total', 10],
      ['bytes_total', 5],
      ['delta_requests', 2],
      ['queue', -4],
      ['unspecified', 1],
    ]);
  });

  it('stores as_int values and reads the oneof whichever member is sent', () => {
    const batch = decodeBoth(request([gauge('g', [{ timeUnixNano: T_NANOS, asInt: '-9007199254740991' }, { timeUnixNano: T_NANOS, asInt: 42 }])]));
    expect(stored(batch)).toEqual([
      ['g', -9007199254740991],
      ['g', 42],
    ]);
  });

  it('expands an explicit-bucket histogram into cumulative _bucket series, +Inf, _count and _sum; the unit goes on _sum only', () => {
    const histogram = { timeUnixNano: T_NANOS, attributes: [str('route', '/a'), str('le', 'dropped')], count: 10, sum: 2.5, bucketCounts: [1, 2, 3, 4], explicitBounds: [0.005, 1, 1e21] };
    const batch = decodeBoth(request([{ name: 'latency', unit: 's', histogram: { dataPoints: [histogram], aggregationTemporality: 2 } }]));
    expect(pointsOf(batch.columns).map((p) => [p.metric, p.value, p.unit])).toEqual([
      ['latency_bucket{le="0.005",route="/a"}', 1, undefined],
      ['latency_bucket{le="1",route="/a"}', 3, undefined],
      ['latency_bucket{le="1e+21",route="/a"}', 6, undefined],
      ['latency_bucket{le="+Inf",route="/a"}', 10, undefined],
      ['latency_count{route="/a"}', 10, undefined],
      ['latency_sum{route="/a"}', 2.5, 's'],
    ]);
  });

  it('stores only +Inf, _count and _sum of a histogram without buckets, and no _sum when the optional sum is absent', () => {
    const batch = decodeBoth(request([{ name: 'h', histogram: { dataPoints: [{ timeUnixNano: T_NANOS, count: 4 }] } }]));
    expect(stored(batch)).toEqual([
      ['h_bucket{le="+Inf"}', 4],
      ['h_count', 4],
    ]);
  });

  it('refuses a histogram whose bucket counts do not match its bounds, or whose bounds do not increase', () => {
    const bad = [
      { timeUnixNano: T_NANOS, count: 3, bucketCounts: [1, 2], explicitBounds: [1, 2] },
      { timeUnixNano: T_NANOS, count: 3, bucketCounts: [1, 1, 1], explicitBounds: [2, 1] },
      { timeUnixNano: T_NANOS, count: 3, bucketCounts: [1, 1, 1], explicitBounds: [1, 1] },
    ];
    const batch = decodeBoth(request([{ name: 'h', histogram: { dataPoints: bad } }]));
    expect(batch.columns.length).toBe(0);
    expect(batch.rejectedPoints).toBe(3);
    expect(batch.rejections.map((r) => [r.metric, r.code])).toEqual(Array(3).fill(['h_count', 'PROTOCOL_POINT_INVALID']));
  });

  it('stores only _count and _sum of an exponential histogram', () => {
    const exp = { timeUnixNano: T_NANOS, count: 7, sum: 1.5, scale: 3, zeroCount: 1, positive: { offset: -2, bucketCounts: [1, 2, 3] }, negative: { bucketCounts: [1] } };
    const batch = decodeBoth(request([{ name: 'e', unit: 'ms', exponentialHistogram: { dataPoints: [exp], aggregationTemporality: 1 } }]));
    expect(pointsOf(batch.columns).map((p) => [p.metric, p.value, p.unit])).toEqual([
      ['e_count', 7, undefined],
      ['e_sum', 1.5, 'ms'],
    ]);
  });

  it('expands a summary into quantile series, _count and _sum, and refuses quantiles outside [0, 1]', () => {
    const good = { timeUnixNano: T_NANOS, attributes: [str('quantile', 'dropped')], count: 5, sum: 9, quantileValues: [{ quantile: 0.5, value: 1.5 }, { quantile: 0.99, value: 3 }] };
    const bad = { timeUnixNano: T_NANOS, count: 5, sum: 9, quantileValues: [{ quantile: 1.5, value: 1 }] };
    const batch = decodeBoth(request([{ name: 'rpc.duration', unit: 's', summary: { dataPoints: [good, bad] } }]));
    expect(pointsOf(batch.columns).map((p) => [p.metric, p.value, p.unit])).toEqual([
      ['rpc_duration{quantile="0.5"}', 1.5, 's'],
      ['rpc_duration{quantile="0.99"}', 3, 's'],
      ['rpc_duration_count', 5, undefined],
      ['rpc_duration_sum', 9, 's'],
    ]);
    expect(batch.rejections.map((r) => r.code)).toEqual(['PROTOCOL_POINT_INVALID']);
  });

  it('ignores a metric with no data', () => {
    expect(decodeBoth(request([{ name: 'nothing', unit: 's' }])).columns.length).toBe(0);
  });
});

describe('labels', () => {
  it('sanitises attribute keys, joins values of keys that sanitise alike with ; in key order, and drops empty values', () => {
    const attributes = [str('a_b', 'y'), str('a.b', 'x'), str('a-b', ''), str('http.route', '/x'), str('9lives', 'cat'), str('empty', '')];
    const batch = decodeBoth(request([gauge('g', [point(1, attributes)])]));
    expect(stored(batch)).toEqual([['g{_9lives="cat",a_b="x;y",http_route="/x"}', 1]]);
  });

  it('names the same series whatever order the attributes come in', () => {
    const a = [str('x', '1'), str('y', '2')];
    const batch = decodeBoth(request([gauge('g', [point(1, a), point(2, [...a].reverse())])]));
    expect(batch.columns.metrics.slice(0, 2)).toEqual(['g{x="1",y="2"}', 'g{x="1",y="2"}']);
  });

  it('renders every AnyValue kind: bool, int, double, bytes as base64, arrays and lists as compact JSON', () => {
    const attributes = [
      { key: 'b', value: { boolValue: true } },
      { key: 'i', value: { intValue: '-12' } },
      { key: 'd', value: { doubleValue: 0.1 } },
      { key: 'y', value: { bytesValue: Buffer.from([0, 255, 16]).toString('base64') } },
      { key: 'arr', value: { arrayValue: { values: [{ stringValue: 'a"b' }, { intValue: 7 }, { doubleValue: 'NaN' }, {}, { boolValue: false }, { bytesValue: 'AQ==' }] } } },
      { key: 'kv', value: { kvlistValue: { values: [{ key: 'z', value: { arrayValue: { values: [] } } }, { key: 'a', value: { kvlistValue: {} } }, { key: 'n' }] } } },
      { key: 'none', value: {} },
    ];
    const request1 = request([gauge('g', [point(1, attributes)])]);
    const batch = decodeBoth(request1);
    expect(batch.columns.metrics[0]).toBe('g{arr="[\\"a\\\\\\"b\\",7,\\"NaN\\",null,false,\\"AQ==\\"]",b="true",d="0.1",i="-12",kv="{\\"z\\":[],\\"a\\":{},\\"n\\":null}",y="AP8Q"}');
  });

  it('keeps 64-bit integers exact, in protobuf and in JSON strings and numbers', () => {
    const ints = [
      { key: 'max', value: { intValue: '9223372036854775807' } },
      { key: 'min', value: { intValue: '-9223372036854775808' } },
      { key: 'padded', value: { intValue: '0007' } },
    ];
    const batch = decodeBoth(request([gauge('g', [point(1, ints)])]));
    expect(batch.columns.metrics[0]).toBe('g{max="9223372036854775807",min="-9223372036854775808",padded="7"}');
    const literal = `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"g","gauge":{"dataPoints":[{"timeUnixNano":${T_NANOS},"asInt":1,"attributes":[{"key":"big","value":{"intValue":9223372036854775807}}]}]}}]}]}]}`;
    const fromLiteral = decode(Buffer.from(literal), 'json');
    expect(pointsOf(fromLiteral.columns)).toEqual([{ tenant: 't', metric: 'g{big="9223372036854775807"}', timestamp: T_MS, value: 1, unit: undefined }]);
    expectCode(() => decode(Buffer.from(literal.replace('9223372036854775807', '9223372036854775808')), 'json'), 'PROTOCOL_BODY_MALFORMED');
  });

  it('leaves text that looks like a 64-bit field inside JSON strings as it is', () => {
    const tricky = ['{"timeUnixNano":5}', ',"intValue":-7,', '\\",\\"intValue\\":7}', '{ "intValue" : 12 }'];
    const attributes = tricky.map((text, i) => str(`k${i}`, text));
    const batch = decodeBoth(request([gauge('g', [point(1, [...attributes, { key: 'intValue', value: { stringValue: '1' } }])])]));
    const escaped = (text: string): string => text.replace(/[\\"]/g, (c) => `\\${c}`);
    expect(batch.columns.metrics[0]).toBe(`g{intValue="1",${tricky.map((text, i) => `k${i}="${escaped(text)}"`).join(',')}}`);
  });

  it('keeps a string that starts with U+FEFF (a byte order mark) as it is, short or long', () => {
    const long = `\uFEFF${'x'.repeat(300)}`;
    const batch = decodeBoth(request([gauge('g', [point(1, [str('k', '\uFEFFv'), str('l', long)])])]));
    expect(batch.columns.metrics[0]).toBe(`g{k="\uFEFFv",l="${long}"}`);
  });

  it('nests arrays and lists at most PROTOBUF_DEPTH_MAX deep', () => {
    const nested = (depth: number): Json => (depth === 0 ? { intValue: 1 } : { arrayValue: { values: [nested(depth - 1)] } });
    const deepest = decodeBoth(request([gauge('g', [point(1, [{ key: 'n', value: nested(PROTOBUF_DEPTH_MAX) }])])]));
    expect(deepest.columns.metrics[0]).toBe(`g{n="${'['.repeat(PROTOBUF_DEPTH_MAX)}1${']'.repeat(PROTOBUF_DEPTH_MAX)}"}`);
    const tooDeep = request([gauge('g', [point(1, [{ key: 'n', value: nested(PROTOBUF_DEPTH_MAX + 1) }])])]);
    expectCode(() => decode(encodeRequest(schema, tooDeep), 'protobuf'), 'PROTOCOL_BODY_MALFORMED');
    expectCode(() => decode(Buffer.from(JSON.stringify(tooDeep)), 'json'), 'PROTOCOL_BODY_MALFORMED');
  });

  it('takes job from service.namespace/service.name and instance from service.instance.id, over attributes of those names', () => {
    const service = [str('service.name', 'checkout'), str('service.namespace', 'shop'), str('service.instance.id', 'pod-7'), str('host.name', 'not-a-label')];
    const batch = decodeBoth(request([gauge('g', [point(1, [str('job', 'mine'), str('instance', 'mine')])])], service));
    expect(batch.columns.metrics[0]).toBe('g{instance="pod-7",job="shop/checkout"}');
    const nameOnly = decodeBoth(request([gauge('g', [point(1)])], [str('service.name', 'checkout')]));
    expect(nameOnly.columns.metrics[0]).toBe('g{job="checkout"}');
    const noName = decodeBoth(request([gauge('g', [point(1, [str('job', 'mine')])])], [str('service.namespace', 'shop')]));
    expect(noName.columns.metrics[0]).toBe('g{job="mine"}');
  });

  it(`refuses a point with more than SERIES_LABELS_MAX (${SERIES_LABELS_MAX}) attributes or labels, an empty key, or __name__`, () => {
    const many = (n: number): Json[] => Array.from({ length: n }, (_, i) => str(`k${i}`, 'v'));
    const batch = decodeBoth(
      request(
        [gauge('g', [point(1, many(SERIES_LABELS_MAX)), point(2, many(SERIES_LABELS_MAX + 1)), point(3, [str('', 'v')]), point(4, [str('__name__', 'x')])])],
        [str('service.name', 'svc')],
      ),
    );
    expect(batch.columns.length).toBe(0);
    expect(batch.rejections.map((r) => [r.metric, r.code])).toEqual(Array(4).fill(['g', 'PROTOCOL_SERIES_INVALID']));
    const fits = decodeBoth(request([gauge('g', [point(1, many(SERIES_LABELS_MAX))])]));
    expect(fits.columns.length).toBe(1);
  });

  it('refuses every point of a metric with no name', () => {
    const batch = decodeBoth(request([gauge('', [point(1), point(2)])]));
    expect(batch.rejections).toEqual([
      { metric: '', code: 'PROTOCOL_SERIES_INVALID', message: 'OTLP metric "": the metric has no name.' },
      { metric: '', code: 'PROTOCOL_SERIES_INVALID', message: 'OTLP metric "": the metric has no name.' },
    ]);
  });
});

describe('points refused or skipped', () => {
  it('refuses a number point with no value or no time, naming its series', () => {
    const batch = decodeBoth(request([gauge('g', [{ timeUnixNano: T_NANOS, attributes: [str('a', '1')] }, { asDouble: 1 }, { timeUnixNano: '999999', asDouble: 1 }])]));
    expect(batch.columns.length).toBe(0);
    expect(batch.rejections.map((r) => [r.metric, r.code])).toEqual([
      ['g{a="1"}', 'PROTOCOL_POINT_INVALID'],
      ['g', 'PROTOCOL_POINT_INVALID'],
      ['g', 'PROTOCOL_POINT_INVALID'],
    ]);
  });

  it('skips points flagged NO_RECORDED_VALUE, of every kind', () => {
    const flagged = { timeUnixNano: T_NANOS, flags: 1, count: 1 };
    const batch = decodeBoth(request([gauge('g', [{ ...flagged }, point(1)]), { name: 'h', histogram: { dataPoints: [flagged] } }, { name: 's', summary: { dataPoints: [flagged] } }]));
    expect(stored(batch)).toEqual([['g', 1]]);
    expect([batch.skippedPoints, batch.rejectedPoints]).toEqual([3, 0]);
  });

  it('skips non-finite values (NaN as a protobuf double, "NaN" and "Infinity" in JSON)', () => {
    const proto = decode(encodeRequest(schema, request([gauge('g', [point(Number.NaN), point(Number.POSITIVE_INFINITY), point(1)])])), 'protobuf');
    const json = decode(Buffer.from(JSON.stringify(request([gauge('g', [point(1, [], { asDouble: 'NaN' }), point(1, [], { asDouble: 'Infinity' }), point(1)])]))), 'json');
    expect(outcome(json)).toEqual(outcome(proto));
    expect([proto.columns.length, proto.skippedPoints]).toEqual([1, 2]);
  });

  it('counts every refused point but spells out only the first ten reasons', () => {
    const batch = decodeBoth(request([gauge('g', Array.from({ length: 25 }, () => ({ timeUnixNano: T_NANOS })))]));
    expect([batch.rejectedPoints, batch.rejections.length]).toEqual([25, 10]);
  });

  it(`throws INGEST_BATCH_TOO_LARGE past INGEST_BATCH_POINTS_MAX (${INGEST_BATCH_POINTS_MAX}) points`, () => {
    const bounds = Array.from({ length: INGEST_BATCH_POINTS_MAX - 2 }, (_, i) => i);
    const fits = request([{ name: 'h', histogram: { dataPoints: [{ timeUnixNano: T_NANOS, count: 1, bucketCounts: [...bounds.map(() => 0), 1], explicitBounds: bounds }] } }]);
    expect(decodeBoth(fits).columns.length).toBe(INGEST_BATCH_POINTS_MAX);
    const over = request([{ name: 'h', histogram: { dataPoints: [{ timeUnixNano: T_NANOS, count: 1, sum: 1, bucketCounts: [...bounds.map(() => 0), 1], explicitBounds: bounds }] } }]);
    expectCode(() => decode(encodeRequest(schema, over), 'protobuf'), 'INGEST_BATCH_TOO_LARGE');
    expectCode(() => decode(Buffer.from(JSON.stringify(over)), 'json'), 'INGEST_BATCH_TOO_LARGE');
  });
  it('counts refused and skipped points toward INGEST_BATCH_POINTS_MAX, so the limit bounds the work of a request', () => {
    // INGEST_BATCH_POINTS_MAX + 1 gauge points with a value and no time: each is refused.
    const w = new ProtoWriter().begin(1).begin(2).begin(2).tag(1, 2).string('g').begin(5);
    for (let i = 0; i <= INGEST_BATCH_POINTS_MAX; i++) w.begin(1).tag(4, 1).double(1).end();
    const body = w.end().end().end().end().finish();
    expectCode(() => decode(body, 'protobuf'), 'INGEST_BATCH_TOO_LARGE');
    const json = JSON.stringify(request([gauge('g', Array.from({ length: INGEST_BATCH_POINTS_MAX + 1 }, () => ({ asDouble: 1 })))]));
    expectCode(() => decode(Buffer.from(json), 'json'), 'INGEST_BATCH_TOO_LARGE');
    const flagged = JSON.stringify(request([gauge('g', Array.from({ length: INGEST_BATCH_POINTS_MAX + 1 }, () => ({ flags: 1 })))]));
    expectCode(() => decode(Buffer.from(flagged), 'json'), 'INGEST_BATCH_TOO_LARGE');
  });
});

describe('wire details', () => {
  it('skips unknown fields of every wire type in every message', () => {
    const future = otlpSchema(true);
    const extra = { futureVarint: 300, futureFixed64: 5, futureBytes: 'AAEC', futureFixed32: 7 };
    const withExtras = {
      ...extra,
      resourceMetrics: [
        {
          ...extra,
          resource: { ...extra, attributes: [{ ...extra, key: 'service.name', value: { ...extra, stringValue: 'svc' } }] },
          scopeMetrics: [{ ...extra, scope: { ...extra, name: 's' }, metrics: [{ ...extra, name: 'c', sum: { ...extra, aggregationTemporality: 2, isMonotonic: true, dataPoints: [{ ...extra, timeUnixNano: T_NANOS, asInt: 4, attributes: [{ ...extra, key: 'k', value: { ...extra, arrayValue: { ...extra, values: [{ ...extra, intValue: 1 }] } } }] }] } }] }],
        },
      ],
    };
    const type = future.ExportMetricsServiceRequest;
    const proto = decode(type.encode(type.fromObject(withExtras)).finish(), 'protobuf');
    const json = decode(Buffer.from(JSON.stringify({ ...withExtras, resource_metrics: 'ignored' })), 'json');
    expect(stored(proto)).toEqual([['c_total{job="svc",k="[1]"}', 4]]);
    expect(outcome(json)).toEqual(outcome(proto));
  });

  it('reads fields in any order: a resource after its scopes, a name after the data, temporality after the points', () => {
    const metricType = schema.ExportMetricsServiceRequest.lookupType('Metric');
    const resourceType = schema.ExportMetricsServiceRequest.lookupType('Resource');
    // Two encodings of one message concatenated are the message with both sets of fields (protobuf merges them).
    const metric = Buffer.concat([
      metricType.encode(metricType.fromObject({ sum: { dataPoints: [{ timeUnixNano: T_NANOS, asDouble: 1 }] } })).finish(),
      metricType.encode(metricType.fromObject({ name: 'late', unit: 'By', sum: { aggregationTemporality: 2, isMonotonic: true } })).finish(),
    ]);
    const resource = resourceType.encode(resourceType.fromObject({ attributes: [str('service.name', 'svc')] })).finish();
    const w = new ProtoWriter();
    w.begin(1).begin(2).tag(2, 2).bytes(metric).end().tag(1, 2).bytes(resource).end();
    expect(pointsOf(decode(w.finish(), 'protobuf').columns)).toEqual([{ tenant: 't', metric: 'late_total{job="svc"}', timestamp: T_MS, value: 1, unit: 'By' }]);
  });

  it('decodes an empty protobuf body and an empty JSON object to no points', () => {
    expect(outcome(decode(new Uint8Array(0), 'protobuf'))).toEqual({ points: [], rejected: 0, skipped: 0, rejections: [] });
    expect(outcome(decode(Buffer.from('{}'), 'json'))).toEqual({ points: [], rejected: 0, skipped: 0, rejections: [] });
  });

  it('refuses malformed protobuf: truncation, a wrong wire type, a cut packed run, invalid UTF-8', () => {
    const good = encodeRequest(schema, request([gauge('g', [point(1)])]));
    expectCode(() => decode(good.subarray(0, good.length - 1), 'protobuf'), 'PROTOCOL_BODY_MALFORMED');
    // Request > ResourceMetrics > ScopeMetrics > Metric, then the metric's own fields.
    const metric = (write: (w: ProtoWriter) => void): Uint8Array => {
      const w = new ProtoWriter().begin(1).begin(2).begin(2);
      write(w);
      return w.end().end().end().finish();
    };
    // time_unix_nano (NumberDataPoint field 3, fixed64) sent as a varint.
    expectCode(() => decode(metric((w) => w.tag(1, 2).string('g').begin(5).begin(1).tag(3, 0).varint(1).end().end()), 'protobuf'), 'PROTOCOL_BODY_MALFORMED');
    // A histogram point whose packed bucket_counts run is 7 bytes, not a multiple of 8.
    expectCode(() => decode(metric((w) => w.tag(1, 2).string('h').begin(9).begin(1).tag(6, 2).bytes(new Uint8Array(7)).end().end()), 'protobuf'), 'PROTOCOL_BODY_MALFORMED');
    // A metric name that is not UTF-8.
    expectCode(() => decode(metric((w) => w.tag(1, 2).bytes(new Uint8Array([0x67, 0xff]))), 'protobuf'), 'PROTOCOL_BODY_MALFORMED');
    // Group wire types are not protobuf 3.
    expectCode(() => decode(new Uint8Array([0x0b]), 'protobuf'), 'PROTOCOL_BODY_MALFORMED');
  });

  it('refuses malformed JSON: not JSON, wrong shapes, enum names, two oneof members, out-of-range integers, bad base64', () => {
    const bad = [
      '',
      '[]',
      'null',
      '{"resourceMetrics":{}}',
      '{"resourceMetrics":[null]}',
      '{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":5}]}]}]}',
      '{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"s","sum":{"aggregationTemporality":"AGGREGATION_TEMPORALITY_CUMULATIVE"}}]}]}]}',
      '{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"s","gauge":{},"sum":{}}]}]}]}',
      '{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"g","gauge":{"dataPoints":[{"asInt":1,"asDouble":2}]}}]}]}]}',
      '{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"g","gauge":{"dataPoints":[{"timeUnixNano":"-1","asInt":1}]}}]}]}]}',
      '{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"g","gauge":{"dataPoints":[{"timeUnixNano":"18446744073709551616","asInt":1}]}}]}]}]}',
      '{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"g","gauge":{"dataPoints":[{"timeUnixNano":1.5,"asInt":1}]}}]}]}]}',
      '{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"g","gauge":{"dataPoints":[{"asDouble":"1.2.3"}]}}]}]}]}',
      '{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"g","gauge":{"dataPoints":[{"attributes":[{"key":"k","value":{"bytesValue":"%%"}}]}]}}]}]}]}',
      '{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"g","gauge":{"dataPoints":[{"attributes":[{"key":"k","value":{"stringValue":"a","intValue":1}}]}]}}]}]}]}',
    ];
    for (const body of bad) expectCode(() => decode(Buffer.from(body), 'json'), 'PROTOCOL_BODY_MALFORMED');
    expectCode(() => decode(Buffer.from([0x7b, 0xff, 0x7d]), 'json'), 'PROTOCOL_BODY_MALFORMED');
  });

  it('accepts the JSON forms proto3 allows: nulls as defaults, 64-bit integers and doubles as strings, the largest time', () => {
    const body = {
      resourceMetrics: [
        {
          resource: null,
          scopeMetrics: [
            {
              metrics: [
                { name: 'g', unit: null, gauge: { dataPoints: [{ timeUnixNano: '18446744073709551615', asDouble: '2.5e3', flags: '0', attributes: null }, { timeUnixNano: 1.7e18, asInt: '7', exemplars: null }] } },
                { name: 'h', histogram: { dataPoints: [{ timeUnixNano: T_NANOS, count: '3', sum: null, bucketCounts: ['1', 2], explicitBounds: ['0.5'] }] } },
              ],
            },
          ],
        },
      ],
    };
    expect(stored(decode(Buffer.from(JSON.stringify(body)), 'json'))).toEqual([
      ['g', 2500],
      ['g', 7],
      ['h_bucket{le="0.5"}', 1],
      ['h_bucket{le="+Inf"}', 3],
      ['h_count', 3],
    ]);
    expect(pointsOf(decode(Buffer.from(JSON.stringify(body)), 'json').columns).map((p) => p.timestamp).slice(0, 2)).toEqual([18_446_744_073_709, 1.7e12]);
  });
});
