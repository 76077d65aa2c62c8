// Owns the property tests of the OTLP metrics decoders: SDK requests serialised by @opentelemetry/otlp-transformer in both encodings decode to the reference model, alike; damaged bodies fail with codes only.
import { Buffer } from 'node:buffer';
import { type Attributes, type HrTime, ValueType } from '@opentelemetry/api';
import { JsonMetricsSerializer, ProtobufMetricsSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationTemporality, DataPointType, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import { pointsOf } from '../../src/model/point-columns.js';
import { decodeOtlpMetrics, OtlpDecoder, type OtlpEncoding } from '../../src/wire/otlp-decoder.js';
import type { OtlpSeriesCacheOptions } from '../../src/wire/otlp-series.js';
import { ProtocolBatch } from '../../src/wire/protocol-batch.js';
import { modelBatch } from './otlp-model.js';

const RUNS = 300;

/** Strings without lone surrogates: protobuf carries UTF-8, which cannot hold them. */
const text = (maxLength: number): fc.Arbitrary<string> => fc.string({ unit: 'binary', maxLength });

/** Attribute keys: the ones the mapping treats specially, keys that sanitise alike, and arbitrary text. */
const attributeKey = fc.oneof(
  fc.constantFrom('http.route', 'http_route', 'job', 'instance', 'le', 'quantile', 'a.b', 'a_b', 'a-b', '1st', '', '__name__', 'k', 'ключ', '😀'),
  text(8),
);

const finiteDouble = fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (x === 0 ? 0 : x));

/**
 * Numbers the SDK's two serializers send alike. Both send an integer-valued number as int_value;
 * past 2^53 the JSON one writes it as a JSON number in its shortest form (2^60 as
 * 1152921504606847000), which the decoder reads as the exact integer written, not the double the
 * sender held, and past int64 (1e21) as an out-of-range int_value, which is malformed. Protobuf
 * carries those exactly; otlp-decoder.test.ts checks them there.
 */
const attributeDouble = finiteDouble.filter((x) => !Number.isInteger(x) || Number.isSafeInteger(x));

/** AnyValues the SDK's attributes can hold: scalars of every kind, bytes, and (nested) arrays and key-value lists. */
const attributeValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown; leaf: unknown }>((tie) => ({
  leaf: fc.oneof(
    text(12),
    fc.boolean(),
    fc.maxSafeInteger(),
    fc.constantFrom(2 ** 53 - 1, -(2 ** 53 - 1), 0.1, -1.5e-7, 1e-300, 12345.678),
    attributeDouble,
    fc.uint8Array({ maxLength: 7 }),
  ),
  value: fc.oneof(
    { weight: 6, arbitrary: tie('leaf') },
    { weight: 1, arbitrary: fc.array(fc.oneof(tie('value'), fc.constant(null)), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.dictionary(text(5).filter((k) => k !== '__proto__'), tie('value'), { maxKeys: 3 }) },
  ),
})).value;

/** Attributes: usually a few, rarely more than SERIES_LABELS_MAX (64). Nested lists are AnyValues the API's Attributes type leaves out but the serializers write. */
const attributes: fc.Arbitrary<Attributes> = fc.oneof(
  { weight: 12, arbitrary: fc.dictionary(attributeKey.filter((k) => k !== '__proto__'), attributeValue, { maxKeys: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.string({ minLength: 1, maxLength: 2 }), { minKeys: 60, maxKeys: 70 }) },
).map((a) => a as Attributes);

/** Times: mostly today, some past 2^32 seconds, some in the first millisecond of 1970 (refused). */
const hrTime: fc.Arbitrary<HrTime> = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fc.integer({ min: 1_500_000_000, max: 2_000_000_000 }), fc.integer({ min: 0, max: 999_999_999 })) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 0, max: 18_000_000_000 }), fc.integer({ min: 0, max: 999_999_999 })) },
  { weight: 1, arbitrary: fc.tuple(fc.constant(0), fc.integer({ min: 0, max: 1_999_999 })) },
);

const metricName = fc.oneof(fc.constantFrom('http.server.request.duration', 'requests_total', 'queue-depth', '1st', '', 'x y', 'größe', 'a:b'), text(10));
const unit = fc.constantFrom('', 's', 'By', '{request}', 'ms');

function dataPoints<T>(value: fc.Arbitrary<T>) {
  return fc.array(fc.record({ startTime: hrTime, endTime: hrTime, attributes, value }), { maxLength: 4 });
}

const descriptor = (valueType: ValueType) => fc.record({ name: metricName, description: fc.constant(''), unit, valueType: fc.constant(valueType) });
const temporality = fc.constantFrom(AggregationTemporality.DELTA, AggregationTemporality.CUMULATIVE);

const numberMetric: fc.Arbitrary<MetricData> = fc
  .record({ valueType: fc.constantFrom(ValueType.INT, ValueType.DOUBLE), sum: fc.boolean(), isMonotonic: fc.boolean(), temporality })
  .chain(({ valueType, sum, isMonotonic, temporality: t }) =>
    fc.record({
      descriptor: descriptor(valueType),
      aggregationTemporality: fc.constant(t),
      dataPoints: dataPoints(valueType === ValueType.INT ? fc.maxSafeInteger() : finiteDouble),
    }).map((m) => (sum ? { ...m, dataPointType: DataPointType.SUM as const, isMonotonic } : { ...m, dataPointType: DataPointType.GAUGE as const })),
  );

/** Explicit-bucket histograms: mostly well formed, sometimes with a bucket count missing or bounds out of order (refused). */
const histogram = fc
  .uniqueArray(fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((x) => (x === 0 ? 0 : x)), { maxLength: 5 })
  .chain((raw) => {
    const sorted = [...raw].sort((a, b) => a - b);
    return fc.record({
      boundaries: fc.oneof({ weight: 9, arbitrary: fc.constant(sorted) }, { weight: 1, arbitrary: fc.constant(raw) }),
      counts: fc.oneof(
        { weight: 8, arbitrary: fc.array(fc.nat(1000), { minLength: sorted.length + 1, maxLength: sorted.length + 1 }) },
        { weight: 1, arbitrary: fc.constant<number[]>([]) },
        { weight: 1, arbitrary: fc.array(fc.nat(1000), { maxLength: 7 }) },
      ),
    });
  })
  .chain((buckets) =>
    fc.record({
      buckets: fc.constant(buckets),
      count: fc.oneof(fc.constant((buckets.counts as number[]).reduce((a, b) => a + b, 0)), fc.nat(1e9)),
      sum: fc.option(finiteDouble, { nil: undefined }),
      min: fc.constant(undefined),
      max: fc.constant(undefined),
    }),
  );

const histogramMetric: fc.Arbitrary<MetricData> = fc.record({
  descriptor: descriptor(ValueType.DOUBLE),
  aggregationTemporality: temporality,
  dataPointType: fc.constant(DataPointType.HISTOGRAM as const),
  dataPoints: dataPoints(histogram),
});

const expBuckets = fc.record({ offset: fc.integer({ min: -100, max: 100 }), bucketCounts: fc.array(fc.nat(1000), { maxLength: 4 }) });
const exponentialMetric: fc.Arbitrary<MetricData> = fc.record({
  descriptor: descriptor(ValueType.DOUBLE),
  aggregationTemporality: temporality,
  dataPointType: fc.constant(DataPointType.EXPONENTIAL_HISTOGRAM as const),
  dataPoints: dataPoints(
    fc.record({
      count: fc.nat(1e9),
      sum: fc.option(finiteDouble, { nil: undefined }),
      scale: fc.integer({ min: -10, max: 20 }),
      zeroCount: fc.nat(100),
      positive: expBuckets,
      negative: expBuckets,
      min: fc.option(finiteDouble, { nil: undefined }),
      max: fc.option(finiteDouble, { nil: undefined }),
    }),
  ),
});

const serviceAttributes = fc.record(
  {
    'service.name': fc.oneof(text(6), fc.constant('checkout')),
    'service.namespace': fc.oneof(text(4), fc.constant('shop')),
    'service.instance.id': fc.oneof(text(6), fc.integer()),
    'telemetry.sdk.language': fc.constant('nodejs'),
    'host.name': text(6),
  },
  { requiredKeys: [] },
);

const resourceMetrics: fc.Arbitrary<ResourceMetrics> = fc
  .record({
    resource: serviceAttributes,
    scopeMetrics: fc.array(
      fc.record({
        scope: fc.record({ name: text(6), version: fc.constantFrom(undefined, '1.2.3'), schemaUrl: fc.constantFrom(undefined, 'https://opentelemetry.io/schemas/1.0.0') }),
        metrics: fc.array(fc.oneof(numberMetric, histogramMetric, exponentialMetric), { maxLength: 4 }),
      }),
      { maxLength: 3 },
    ),
  })
  .map(({ resource, scopeMetrics }) => ({ resource: resourceFromAttributes(resource), scopeMetrics }) as unknown as ResourceMetrics);

/** The request in one encoding, as the OpenTelemetry JS exporters send it. */
function serialise(request: ResourceMetrics, encoding: OtlpEncoding): Uint8Array {
  const body = encoding === 'protobuf' ? ProtobufMetricsSerializer.serializeRequest(request) : JsonMetricsSerializer.serializeRequest(request);
  if (body === undefined) throw new Error('the serializer gave no body');
  return body;
}

function decode(body: Uint8Array, encoding: OtlpEncoding): ProtocolBatch {
  const batch = new ProtocolBatch('t');
  decodeOtlpMetrics(body, encoding, batch);
  return batch;
}

/** Decodes, and requires any failure to be a coded StrataError of a body fault. */
function decodeOrCodedError(body: Uint8Array, encoding: OtlpEncoding): void {
  try {
    decode(body, encoding);
  } catch (error) {
    expect(error).toBeInstanceOf(StrataError);
    expect(['PROTOCOL_BODY_MALFORMED', 'INGEST_BATCH_TOO_LARGE']).toContain((error as StrataError).code);
  }
}

describe('decodeOtlpMetrics on requests from @opentelemetry/otlp-transformer', () => {
  it('decodes protobuf and JSON to the reference model, and both to the same batch', () => {
    fc.assert(
      fc.property(resourceMetrics, (request) => {
        const expected = modelBatch(request);
        const proto = decode(serialise(request, 'protobuf'), 'protobuf');
        const json = decode(serialise(request, 'json'), 'json');
        expect(pointsOf(proto.columns)).toEqual(expected.points);
        expect(proto.rejectedPoints).toBe(expected.rejectedPoints);
        expect(proto.skippedPoints).toBe(expected.skippedPoints);
        expect(proto.rejections.map((r) => r.code)).toEqual(expected.codes.slice(0, 10));
        expect(pointsOf(json.columns)).toEqual(pointsOf(proto.columns));
        expect(json.rejections).toEqual(proto.rejections);
        expect([json.rejectedPoints, json.skippedPoints]).toEqual([proto.rejectedPoints, proto.skippedPoints]);
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps nanosecond times exact: a point at n ns is stored at floor(n / 10^6) ms, in both encodings', () => {
    const nanos = fc.bigInt({ min: 1_000_000n, max: 2n ** 64n - 1n });
    fc.assert(
      fc.property(nanos, fc.boolean(), (n, asNumber) => {
        const time: HrTime = [Number(n / 1_000_000_000n), Number(n % 1_000_000_000n)];
        const gauge = { descriptor: { name: 'g', description: '', unit: '', valueType: ValueType.INT }, aggregationTemporality: 1, dataPointType: DataPointType.GAUGE, dataPoints: [{ startTime: time, endTime: time, attributes: {}, value: 1 }] };
        const request = { resource: resourceFromAttributes({}), scopeMetrics: [{ scope: { name: 's' }, metrics: [gauge] }] } as unknown as ResourceMetrics;
        const want = Number(n / 1_000_000n);
        expect(pointsOf(decode(serialise(request, 'protobuf'), 'protobuf').columns)[0]?.timestamp).toBe(want);
        // The JSON serializer writes a decimal string; a sender may write a bare number, which must be exact too.
        let json = Buffer.from(serialise(request, 'json')).toString();
        if (asNumber) json = json.replace(/"timeUnixNano":"(\d+)"/, '"timeUnixNano": $1');
        expect(pointsOf(decode(Buffer.from(json), 'json').columns)[0]?.timestamp).toBe(want);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('decodeOtlpMetrics on damaged bodies', () => {
  const damage = fc.oneof(
    fc.record({ kind: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
    fc.record({ kind: fc.constant('flip' as const), at: fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }) }),
  );

  /** The body cut at a fraction of its length, or with bytes at some fractions XORed with a mask. */
  function damaged(body: Uint8Array, how: { kind: 'truncate'; at: number } | { kind: 'flip'; at: [number, number][] }): Uint8Array {
    if (how.kind === 'truncate') return body.slice(0, Math.floor(how.at * body.length));
    const copy = body.slice();
    for (const [where, mask] of how.at) {
      const i = Math.floor(where * copy.length);
      if (i < copy.length) copy[i] = (copy[i] as number) ^ mask;
    }
    return copy;
  }

  it('fails only with coded errors on truncated and bit-flipped bodies, in both encodings', () => {
    fc.assert(
      fc.property(resourceMetrics, damage, fc.constantFrom<OtlpEncoding>('protobuf', 'json'), (request, how, encoding) => {
        decodeOrCodedError(damaged(serialise(request, encoding), how), encoding);
      }),
      { numRuns: RUNS },
    );
  });

  it('fails only with coded errors when any part of a JSON request is replaced by another JSON value', () => {
    fc.assert(
      fc.property(resourceMetrics, fc.nat(), fc.jsonValue({ maxDepth: 3 }), (request, pick, replacement) => {
        const root = JSON.parse(Buffer.from(serialise(request, 'json')).toString()) as unknown;
        const slots: [Record<string, unknown> | unknown[], string | number][] = [];
        const walk = (node: unknown): void => {
          if (Array.isArray(node)) node.forEach((child, i) => (slots.push([node, i]), walk(child)));
          else if (typeof node === 'object' && node !== null) for (const [k, child] of Object.entries(node)) slots.push([node as Record<string, unknown>, k]), walk(child);
        };
        walk(root);
        const slot = slots[pick % Math.max(slots.length, 1)];
        if (slot !== undefined) (slot[0] as Record<string | number, unknown>)[slot[1]] = replacement;
        decodeOrCodedError(Buffer.from(JSON.stringify(slot === undefined ? replacement : root)), 'json');
      }),
      { numRuns: RUNS },
    );
  });

  it('fails only with coded errors on arbitrary bytes and arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => decodeOrCodedError(bytes, 'protobuf')),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(fc.json({ maxDepth: 4 }), (json) => decodeOrCodedError(Buffer.from(json), 'json')),
      { numRuns: RUNS },
    );
  });
});

/** What a decode gave: the batch's points, reasons and counts, or the code it threw. */
function outcomeOf(run: (batch: ProtocolBatch) => void): unknown {
  const batch = new ProtocolBatch('t');
  try {
    run(batch);
  } catch (error) {
    if (error instanceof StrataError) return error.code;
    throw error;
  }
  return { points: pointsOf(batch.columns), rejections: batch.rejections, rejected: batch.rejectedPoints, skipped: batch.skippedPoints };
}

/** One request of a sequence: a pool entry, its encoding, and sometimes a damaged byte. */
/** Resources that name the same metrics' series differently (job, namespace, instance), or undefined to keep the request's own. */
const SEQUENCE_RESOURCES = [undefined, {}, { 'service.name': 'a' }, { 'service.name': 'b' }, { 'service.name': 'a', 'service.namespace': 'n' }, { 'service.instance.id': 'i' }, { 'service.name': 'a', 'service.instance.id': 'i' }];

const sequenceStep = fc.record({
  pick: fc.nat(),
  resource: fc.constantFrom(...SEQUENCE_RESOURCES),
  encoding: fc.constantFrom<OtlpEncoding>('protobuf', 'json'),
  flip: fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 255 })) }),
});

/**
 * Requests drawn from a pool, so the same series come back across requests, in either encoding,
 * often under another resource (same metrics and attributes, another job or instance); a few
 * damaged.
 */
const requestSequence = fc.tuple(fc.array(resourceMetrics, { minLength: 1, maxLength: 4 }), fc.array(sequenceStep, { minLength: 1, maxLength: 8 })).map(([pool, steps]) =>
  steps.map(({ pick, resource, encoding, flip }) => {
    const metrics = pool[pick % pool.length] as ResourceMetrics;
    const body = serialise(resource === undefined ? metrics : { ...metrics, resource: resourceFromAttributes(resource) }, encoding);
    if (flip !== null) {
      const i = Math.floor(flip[0] * body.length);
      if (i < body.length) body[i] = (body[i] as number) ^ flip[1];
    }
    return { body, encoding };
  }),
);

/** Decoder settings the sequence runs under: the defaults, caches that overflow all the time, every key colliding, both. */
const CACHE_SETTINGS: readonly [string, OtlpSeriesCacheOptions][] = [
  ['the default caches', {}],
  ['caches of 2 entries and 1,000 bytes', { entriesMax: 2, bytesMax: 1_000 }],
  ['hashes that make every key collide', { hash: () => 0, textHash: () => 0 }],
  ['colliding keys in caches of 3 entries', { hash: () => 5, textHash: () => 5, entriesMax: 3 }],
];

describe('OtlpDecoder across requests', () => {
  for (const [name, options] of CACHE_SETTINGS) {
    it(`gives every request of a sequence exactly what a fresh decoder gives, with ${name}`, () => {
      fc.assert(
        fc.property(requestSequence, (requests) => {
          const decoder = new OtlpDecoder(options);
          for (const { body, encoding } of requests) {
            expect(outcomeOf((batch) => decoder.decode(body, encoding, batch))).toEqual(outcomeOf((batch) => decodeOtlpMetrics(body, encoding, batch)));
          }
        }),
        { numRuns: RUNS / 2 },
      );
    });
  }
});
