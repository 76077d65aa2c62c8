// Owns the example tests of the OTLP decoder's series cache: hits cost one hash, forced collisions and contexts are told apart, split attributes and many buckets still name right.
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { pointsOf } from '../../src/model/point-columns.js';
import { decodeOtlpMetrics, OtlpDecoder, type OtlpEncoding } from '../../src/wire/otlp-decoder.js';
import { otlpTextHash, type OtlpSeriesCacheOptions } from '../../src/wire/otlp-series.js';
import { ProtoWriter } from '../../src/wire/proto-writer.js';
import { ProtocolBatch } from '../../src/wire/protocol-batch.js';
import { SERIES_CACHE_EXTRA_NAMES_MAX } from '../../src/wire/protocol-limits.js';
import { seriesKeyHash } from '../../src/wire/series-cache.js';
import { encodeRequest, otlpSchema } from './otlp-schema.js';

const schema = otlpSchema();
const T_NANOS = '1700000000123456789';

type Json = Record<string, unknown>;

const str = (key: string, value: string): Json => ({ key, value: { stringValue: value } });
const point = (value: number, attributes: Json[]): Json => ({ timeUnixNano: T_NANOS, asDouble: value, attributes });

function request(metrics: Json[], service = 'svc'): Json {
  return { resourceMetrics: [{ resource: { attributes: [str('service.name', service)] }, scopeMetrics: [{ scope: { name: 's' }, metrics }] }] };
}

function body(req: Json, encoding: OtlpEncoding): Uint8Array {
  return encoding === 'protobuf' ? encodeRequest(schema, req) : Buffer.from(JSON.stringify(req));
}

/** The stored points of one decode as `metric → value` pairs, with the reasons of the refused ones. */
function decoded(decode: (batch: ProtocolBatch) => void): { stored: [string, number][]; refused: string[] } {
  const batch = new ProtocolBatch('t');
  decode(batch);
  return { stored: pointsOf(batch.columns).map((p) => [p.metric, p.value as number]), refused: batch.rejections.map((r) => `${r.code} ${r.metric}`) };
}

/** Decodes `req` with `decoder` and with a fresh one; requires the same answer and returns it. */
function same(decoder: OtlpDecoder, req: Json, encoding: OtlpEncoding): ReturnType<typeof decoded> {
  const bytes = body(req, encoding);
  const got = decoded((batch) => decoder.decode(bytes, encoding, batch));
  expect(got).toEqual(decoded((batch) => decodeOtlpMetrics(bytes, encoding, batch)));
  return got;
}

/** Options whose hashes count their calls (the real hashes underneath). */
function counting(): { options: OtlpSeriesCacheOptions; calls: { bytes: number; text: number } } {
  const calls = { bytes: 0, text: 0 };
  return {
    calls,
    options: {
      hash: (view, start, end, salt) => (calls.bytes++, seriesKeyHash(view, start, end, salt)),
      textHash: (context, p) => (calls.text++, otlpTextHash(context, p)),
    },
  };
}

const fiftyPoints = (value: number): Json[] => Array.from({ length: 50 }, (_, i) => point(value + i, [str('host', `h${i}`), str('region', 'eu')]));

describe('OtlpDecoder series cache', () => {
  it('stores a series the second time it comes, then names its points from the cache with one hash each, in both encodings', () => {
    const { options, calls } = counting();
    const decoder = new OtlpDecoder(options);
    const seen: [number, number, number][] = [];
    for (const [i, encoding] of (['protobuf', 'protobuf', 'protobuf', 'json', 'json', 'json'] as const).entries()) {
      const got = same(decoder, request([{ name: 'load', gauge: { dataPoints: fiftyPoints(100 * i) } }]), encoding);
      expect(got.stored[3]).toEqual(['load{host="h3",job="svc",region="eu"}', 100 * i + 3]);
      const { entries, hits } = decoder.cacheStats();
      seen.push([entries, hits, calls.bytes + calls.text]);
    }
    expect(seen).toEqual([
      [0, 0, 50],
      [50, 0, 100],
      [50, 50, 150],
      [50, 50, 200],
      [100, 50, 250],
      [100, 100, 300],
    ]);
  });

  for (const encoding of ['protobuf', 'json'] as const) {
    it(`resolves forced collisions by comparing the attributes and their metric, in ${encoding}`, () => {
      const decoder = new OtlpDecoder({ hash: () => 3, textHash: () => 3 });
      const a = [str('k', 'a')];
      const b = [str('k', 'b')];
      const bad = [str('k', 'a'), str('job', 'x'), { key: '', value: { stringValue: 'v' } }];
      const req = request([
        { name: 'm', gauge: { dataPoints: [point(1, a), point(2, b), point(3, a), point(4, bad), point(5, b)] } },
        { name: 'n', gauge: { dataPoints: [point(6, a), point(7, b)] } },
        { name: 'n', sum: { dataPoints: [point(8, a)], aggregationTemporality: 2, isMonotonic: true } },
        { name: 'n', sum: { dataPoints: [point(9, a)], aggregationTemporality: 1, isMonotonic: true } },
      ]);
      for (let round = 0; round < 3; round++) {
        const got = same(decoder, req, encoding);
        expect(got.stored).toEqual([
          ['m{job="svc",k="a"}', 1],
          ['m{job="svc",k="b"}', 2],
          ['m{job="svc",k="a"}', 3],
          ['m{job="svc",k="b"}', 5],
          ['n{job="svc",k="a"}', 6],
          ['n{job="svc",k="b"}', 7],
          ['n_total{job="svc",k="a"}', 8],
          ['n{job="svc",k="a"}', 9],
        ]);
        expect(got.refused).toEqual(['PROTOCOL_SERIES_INVALID m']);
      }
    });
  }

  it('names the same attributes under another resource with that resource job', () => {
    const decoder = new OtlpDecoder();
    const metric = { name: 'up', gauge: { dataPoints: [point(1, [str('k', 'v')])] } };
    expect(same(decoder, request([metric], 'a'), 'protobuf').stored).toEqual([['up{job="a",k="v"}', 1]]);
    expect(same(decoder, request([metric], 'b'), 'protobuf').stored).toEqual([['up{job="b",k="v"}', 1]]);
    expect(same(decoder, request([metric], 'a'), 'json').stored).toEqual([['up{job="a",k="v"}', 1]]);
  });

  it('reads attributes sent apart (another field between them) the slow way, every time', () => {
    const { options, calls } = counting();
    const decoder = new OtlpDecoder(options);
    const w = new ProtoWriter();
    w.begin(1).begin(2).begin(2).tag(1, 2).string('split').begin(5).begin(1);
    w.begin(7).tag(1, 2).string('a').begin(2).tag(1, 2).string('1').end().end();
    w.tag(3, 1).fixed64(1_700_000_000_000 * 1_000_000).tag(4, 1).double(2.5);
    w.begin(7).tag(1, 2).string('b').begin(2).tag(1, 2).string('2').end().end();
    w.end().end().end().end().end();
    const bytes = w.finish();
    for (let round = 0; round < 2; round++) {
      expect(decoded((batch) => decoder.decode(bytes, 'protobuf', batch)).stored).toEqual([['split{a="1",b="2"}', 2.5]]);
    }
    expect(calls.bytes).toBe(0);
  });

  it(`names buckets right past SERIES_CACHE_EXTRA_NAMES_MAX (${SERIES_CACHE_EXTRA_NAMES_MAX}) bounds of one series, and summaries' quantiles`, () => {
    const decoder = new OtlpDecoder();
    const histogram = (first: number): Json => {
      const explicitBounds = Array.from({ length: 40 }, (_, i) => first + i);
      return { timeUnixNano: T_NANOS, count: 41, sum: 9, explicitBounds, bucketCounts: explicitBounds.map(() => 1).concat([1]), attributes: [str('k', 'v')] };
    };
    const summary = (q: number): Json => ({ timeUnixNano: T_NANOS, count: 2, sum: 3, quantileValues: [{ quantile: q, value: 1 }, { quantile: 1, value: 2 }], attributes: [str('k', 'v')] });
    for (const first of [0, 40, 80, 0, -0.5]) {
      for (const encoding of ['protobuf', 'json'] as const) {
        const got = same(decoder, request([{ name: 'h', histogram: { dataPoints: [histogram(first)], aggregationTemporality: 2 } }, { name: 's', summary: { dataPoints: [summary(Math.abs(first) / 200)] } }]), encoding);
        expect(got.stored[0]).toEqual([`h_bucket{job="svc",k="v",le="${first}"}`, 1]);
        expect(got.stored[40]).toEqual(['h_bucket{job="svc",k="v",le="+Inf"}', 41]);
        expect(got.stored.at(-4)).toEqual([`s{job="svc",k="v",quantile="${Math.abs(first) / 200}"}`, 1]);
      }
    }
  });
});
