// Owns the property tests of the remote write decoder against a protobufjs-encoded reference: exact columns, counts and codes, damage refused with a code.
import fc from 'fast-check';
import protobuf from 'protobufjs';
import * as snappyjs from 'snappyjs';
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import { INGEST_BATCH_POINTS_MAX, METRIC_NAME_LENGTH_MAX } from '../../src/core/limits.js';
import { pointsOf } from '../../src/model/point-columns.js';
import { decodeRemoteWrite, encodeRemoteWrite, RemoteWriteDecoder } from '../../src/wire/prom-write-decoder.js';
import { ProtocolBatch } from '../../src/wire/protocol-batch.js';
import { PROTOCOL_DECODED_BYTES_MAX, PROTOCOL_REJECTION_MESSAGES_MAX, SERIES_LABELS_MAX } from '../../src/wire/protocol-limits.js';
import { type SeriesCacheOptions, seriesKeyHash } from '../../src/wire/series-cache.js';
import { type Label, seriesMetricName, seriesProblem } from '../../src/wire/series-name.js';
import { bits64, concatBytes, longToNumber, promSchema } from './prom-schema.js';

const RUNS = 300;
const S = promSchema();
const { Writer } = protobuf;

/** The staleness marker: a NaN with this exact bit pattern, written byte for byte. */
const STALE_NAN_BITS = 0x7ff0000000000002n;

interface SampleModel {
  readonly value: number | 'stale';
  readonly timestampMs: bigint;
}

interface SeriesModel {
  readonly labels: readonly Label[];
  readonly samples: readonly SampleModel[];
  readonly histograms: number;
  readonly exemplars: number;
  /** Sort keys that shuffle the fields of the TimeSeries; null writes them in field-number order. */
  readonly order: readonly number[] | null;
}

const METRIC_NAMES = ['up', 'http_requests_total', 'node_cpu_seconds_total', 'a.b', 'x"y', 'métrique'];
const LABEL_NAMES = ['job', 'instance', 'mode', 'le', 'cpu', 'é'];
const BAD_LABEL_NAMES = ['', 'a b', 'a=b', 'a,b', 'a"b', 'a{b', '__name__'];

const labelValue = fc.oneof(fc.constantFrom('', 'node', '127.0.0.1:9090', 'a"b\\c\nd', '}', ','), fc.string({ unit: 'grapheme', maxLength: 8 }));

/** Labels of a good series, mostly; sometimes broken in one of the ways the scheme refuses. */
const seriesLabels: fc.Arbitrary<Label[]> = fc
  .tuple(
    fc.constantFrom(...METRIC_NAMES),
    fc.uniqueArray(fc.record({ name: fc.constantFrom(...LABEL_NAMES), value: labelValue }), { selector: (l) => l.name, maxLength: 5 }),
    fc.nat({ max: 40 }),
    fc.nat(),
  )
  .map(([name, others, breakage, at]) => {
    const labels: Label[] = [...others];
    labels.splice(at % (labels.length + 1), 0, { name: '__name__', value: name });
    if (breakage === 0) labels.splice(labels.findIndex((l) => l.name === '__name__'), 1); // no name
    if (breakage === 1 && others.length > 0) labels.push({ ...(others[0] as Label), value: 'dup' }); // duplicate label
    if (breakage === 2) labels.push({ name: BAD_LABEL_NAMES[at % BAD_LABEL_NAMES.length] as string, value: 'v' });
    if (breakage === 3) labels.push(...Array.from({ length: SERIES_LABELS_MAX + 1 }, (_, i) => ({ name: `l${i}`, value: 'v' })));
    if (breakage === 4) labels.push(...Array.from({ length: SERIES_LABELS_MAX - others.length }, (_, i) => ({ name: `l${i}`, value: 'v' })));
    if (breakage === 5) labels[labels.findIndex((l) => l.name === '__name__')] = { name: '__name__', value: 'a{b}' };
    if (breakage === 6) labels[labels.findIndex((l) => l.name === '__name__')] = { name: '__name__', value: '' };
    return labels;
  });

const timestampMs = fc.oneof(
  { weight: 8, arbitrary: fc.bigInt({ min: 1_500_000_000_000n, max: 1_900_000_000_000n }) },
  { weight: 2, arbitrary: fc.bigInt({ min: -(2n ** 53n) + 1n, max: 2n ** 53n - 1n }) },
  { weight: 1, arbitrary: fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: -(2n ** 53n) }), fc.bigInt({ min: 2n ** 53n, max: 2n ** 63n - 1n })) },
);

const sampleValue: fc.Arbitrary<number | 'stale'> = fc.oneof(
  { weight: 6, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 0) },
  { weight: 1, arbitrary: fc.constant('stale' as const) },
);

const seriesModel: fc.Arbitrary<SeriesModel> = fc.record({
  labels: seriesLabels,
  samples: fc.array(fc.record({ value: sampleValue, timestampMs }), { maxLength: 6 }),
  histograms: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) }),
  exemplars: fc.nat({ max: 2 }),
  order: fc.option(fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 90, maxLength: 90 }), { freq: 2 }),
});

/** Series, some sent again later in the request with the same labels (as Prometheus does when it catches up). */
const seriesList = fc.tuple(fc.array(seriesModel, { maxLength: 12 }), fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 8 })).map(([series, again]) => {
  if (series.length === 0) return series;
  const repeats = again.map(([i, keepOrder]): SeriesModel => {
    const s = series[i % series.length] as SeriesModel;
    return { ...s, samples: [...s.samples].reverse(), order: keepOrder ? s.order : null };
  });
  return [...series, ...repeats];
});

const writeRequestModel = fc.record({
  series: seriesList,
  metadata: fc.nat({ max: 3 }),
  metadataFirst: fc.boolean(),
});

/** A length-delimited field: tag and length prefix, then `body`. */
function field(number: number, body: Uint8Array): Uint8Array {
  return Writer.create().uint32((number << 3) | 2).bytes(body).finish();
}

function encodeSample(sample: SampleModel): Uint8Array {
  const timestamp = bits64(sample.timestampMs);
  if (sample.value !== 'stale') return S.Sample.encode({ value: sample.value, timestamp }).finish();
  // protobufjs writes doubles through a Float64Array, which need not keep a NaN's payload: write the marker's bytes.
  const raw = new Uint8Array(9);
  raw[0] = 0x09;
  new DataView(raw.buffer).setBigUint64(1, STALE_NAN_BITS, true);
  return concatBytes([raw, S.Sample.encode({ timestamp }).finish()]);
}

function encodeSeries(model: SeriesModel): Uint8Array {
  const parts: Uint8Array[] = [
    ...model.labels.map((l) => field(1, S.Label.encode(l).finish())),
    ...model.samples.map((s) => field(2, encodeSample(s))),
    ...Array.from({ length: model.exemplars }, (_, i) => field(3, S.Exemplar.encode({ labels: [{ name: 'trace_id', value: `t${i}` }], value: 1.5, timestamp: 1 }).finish())),
    ...Array.from({ length: model.histograms }, (_, i) => field(4, S.Histogram.encode({ countInt: 3 + i, sum: 2.5, schema: -1, positiveDeltas: [1, -2, 3], timestamp: 1_700_000_000_000 }).finish())),
    Writer.create().uint32((9 << 3) | 0).uint64(12345).finish(), // an unknown field
  ];
  if (model.order === null) return concatBytes(parts);
  const keyed = parts.map((p, i) => ({ p, k: model.order?.[i] ?? i }));
  keyed.sort((a, b) => a.k - b.k);
  return concatBytes(keyed.map((x) => x.p));
}

/** The body Prometheus would send: WriteRequest fields (series and metadata) snappy-compressed by snappyjs. */
function encodeRequest(model: { series: readonly SeriesModel[]; metadata: number; metadataFirst: boolean }): Uint8Array {
  const series = model.series.map((s) => field(1, encodeSeries(s)));
  const metadata = Array.from({ length: model.metadata }, (_, i) => field(3, S.MetricMetadata.encode({ type: 1, metricFamilyName: `m${i}`, help: 'help', unit: 's' }).finish()));
  const body = concatBytes(model.metadataFirst ? [...metadata, ...series] : [...series, ...metadata]);
  return snappyjs.compress(body);
}

/** The order the samples of a series are written in (its shuffle moves them among the other fields only). */
function samplesInOrder(model: SeriesModel): SampleModel[] {
  if (model.order === null) return [...model.samples];
  const firstSample = model.labels.length;
  return model.samples
    .map((s, i) => ({ s, k: model.order?.[firstSample + i] ?? firstSample + i, i }))
    .sort((a, b) => a.k - b.k || a.i - b.i)
    .map((x) => x.s);
}

interface Expected {
  points: { tenant: string; metric: string; timestamp: number; value: number; unit: undefined }[];
  skipped: number;
  rejected: number;
  codes: string[];
}

/** What decoding must give, worked out from the model with the scheme's own rules. */
function expected(series: readonly SeriesModel[]): Expected {
  const out: Expected = { points: [], skipped: 0, rejected: 0, codes: [] };
  const reject = (code: string, n: number) => {
    out.rejected += n;
    out.codes.push(code);
  };
  for (const model of series) {
    const nameIndex = model.labels.findIndex((l) => l.name === '__name__');
    const name = nameIndex === -1 ? '' : (model.labels[nameIndex] as Label).value;
    const others = model.labels.filter((_, i) => i !== nameIndex);
    const bad = others.length > SERIES_LABELS_MAX || seriesProblem(name, others) !== undefined;
    const points = model.samples.length + model.histograms;
    if (bad) {
      if (points > 0) reject('PROTOCOL_SERIES_INVALID', points);
      continue;
    }
    const metric = seriesMetricName(name, others);
    for (const s of samplesInOrder(model)) {
      const ts = Number(s.timestampMs);
      if (!Number.isSafeInteger(ts) || BigInt(ts) !== s.timestampMs) reject('PROTOCOL_POINT_INVALID', 1);
      else if (s.value === 'stale' || !Number.isFinite(s.value)) out.skipped++;
      else out.points.push({ tenant: 't1', metric, timestamp: ts, value: s.value, unit: undefined });
    }
    if (model.histograms > 0) reject('PROTOCOL_POINT_INVALID', model.histograms);
  }
  return out;
}

function decode(body: Uint8Array): ProtocolBatch {
  const batch = new ProtocolBatch('t1');
  decodeRemoteWrite(body, batch);
  return batch;
}

/** The code of the StrataError `f` throws, undefined when it returns; any other throw fails the test. */
function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof StrataError) return e.code;
    throw e;
  }
  return undefined;
}

describe('decodeRemoteWrite against protobufjs-encoded requests', () => {
  it('gives exactly the expected columns, skipped and rejected counts, for any request and field order', () => {
    fc.assert(
      fc.property(writeRequestModel, (model) => {
        const batch = decode(encodeRequest(model));
        const want = expected(model.series);
        expect(pointsOf(batch.columns)).toEqual(want.points);
        expect(batch.skippedPoints).toBe(want.skipped);
        expect(batch.rejectedPoints).toBe(want.rejected);
        expect(batch.rejections.map((r) => r.code)).toEqual(want.codes.slice(0, PROTOCOL_REJECTION_MESSAGES_MAX));
      }),
      { numRuns: RUNS },
    );
  });

  it('names a refused series as far as it can and says why', () => {
    const body = encodeRemoteWrite([
      { labels: [{ name: 'job', value: 'x' }], samples: [{ timestampMs: 1, value: 1 }, { timestampMs: 2, value: 2 }] },
      { labels: [{ name: '__name__', value: 'up' }, { name: 'a b', value: 'x' }], samples: [{ timestampMs: 1, value: 1 }] },
      { labels: [{ name: '__name__', value: 'up' }], samples: [{ timestampMs: 2 ** 60, value: 1 }, { timestampMs: 5, value: 1 }] },
    ]);
    const batch = decode(body);
    expect(batch.rejections).toEqual([
      { metric: '{job="x"}', code: 'PROTOCOL_SERIES_INVALID', message: 'the series has no metric name' },
      { metric: 'up{a b="x"}', code: 'PROTOCOL_SERIES_INVALID', message: expect.stringMatching(/reserved/) },
      { metric: 'up', code: 'PROTOCOL_POINT_INVALID', message: expect.stringMatching(/not a safe integer/) },
    ]);
    expect(batch.rejectedPoints).toBe(4);
    expect(pointsOf(batch.columns)).toEqual([{ tenant: 't1', metric: 'up', timestamp: 5, value: 1, unit: undefined }]);
  });

  it('cuts the reported name of a refused series to METRIC_NAME_LENGTH_MAX characters', () => {
    const huge = { name: 'big', value: 'x'.repeat(100_000) };
    const many = Array.from({ length: 1000 }, (_, i) => ({ name: `l${i}`, value: 'v' }));
    const batch = decode(
      encodeRemoteWrite([
        { labels: [huge, { name: 'a b', value: '1' }], samples: [{ timestampMs: 1, value: 1 }] },
        { labels: [{ name: '__name__', value: 'up' }, ...many], samples: [{ timestampMs: 1, value: 1 }] },
      ]),
    );
    expect(batch.rejections.map((r) => r.code)).toEqual(['PROTOCOL_SERIES_INVALID', 'PROTOCOL_SERIES_INVALID']);
    expect(batch.rejections[0]?.metric).toBe(`{a b="1",big="${'x'.repeat(METRIC_NAME_LENGTH_MAX - '{a b="1",big="'.length)}…`);
    expect(batch.rejections[1]?.metric.startsWith('up{l0="v",l1="v",l10="v"')).toBe(true);
    expect(batch.rejections[1]?.message).toMatch(/1000 labels besides __name__/);
    for (const r of batch.rejections) expect(r.metric.length).toBeLessThanOrEqual(METRIC_NAME_LENGTH_MAX + 1);
  });

  it('skips staleness markers and infinities, counting them, and refuses native histograms', () => {
    const model: SeriesModel = {
      labels: [{ name: '__name__', value: 'up' }, { name: 'job', value: 'node' }],
      samples: [
        { value: 1, timestampMs: 1000n },
        { value: 'stale', timestampMs: 2000n },
        { value: Number.POSITIVE_INFINITY, timestampMs: 3000n },
      ],
      histograms: 2,
      exemplars: 1,
      order: null,
    };
    const batch = decode(encodeRequest({ series: [model], metadata: 1, metadataFirst: true }));
    expect(pointsOf(batch.columns)).toEqual([{ tenant: 't1', metric: 'up{job="node"}', timestamp: 1000, value: 1, unit: undefined }]);
    expect(batch.skippedPoints).toBe(2);
    expect(batch.rejectedPoints).toBe(2);
    expect(batch.rejections).toEqual([{ metric: 'up{job="node"}', code: 'PROTOCOL_POINT_INVALID', message: expect.stringMatching(/native histograms/) }]);
  });

  it('reads samples that come before the labels', () => {
    const series = concatBytes([field(2, encodeSample({ value: 7, timestampMs: 9n })), field(1, S.Label.encode({ name: 'b', value: '2' }).finish()), field(1, S.Label.encode({ name: '__name__', value: 'm' }).finish()), field(2, encodeSample({ value: 8, timestampMs: 10n })), field(1, S.Label.encode({ name: 'a', value: '1' }).finish())]);
    const batch = decode(snappyjs.compress(field(1, series)));
    expect(pointsOf(batch.columns).map((p) => [p.metric, p.timestamp, p.value])).toEqual([
      ['m{a="1",b="2"}', 9, 7],
      ['m{a="1",b="2"}', 10, 8],
    ]);
  });
});

describe('encodeRemoteWrite', () => {
  it('writes a WriteRequest protobufjs reads back, which decodeRemoteWrite turns into the same points', () => {
    const series = fc.array(
      fc.record({
        labels: fc.uniqueArray(fc.record({ name: fc.constantFrom('__name__', ...LABEL_NAMES), value: labelValue.filter((v) => v !== '') }), { selector: (l) => l.name, maxLength: 4 }),
        samples: fc.array(fc.record({ timestampMs: fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), value: fc.double({ noNaN: true, noDefaultInfinity: true }) }), { maxLength: 4 }),
      }),
      { maxLength: 6 },
    );
    fc.assert(
      fc.property(series, (input) => {
        const body = encodeRemoteWrite(input);
        const decoded = S.WriteRequest.toObject(S.WriteRequest.decode(snappyjs.uncompress(body)), { defaults: true }) as { timeseries: { labels: Label[]; samples: { value: number; timestamp: unknown }[] }[] };
        expect(decoded.timeseries.map((t) => ({ labels: t.labels, samples: t.samples.map((s) => ({ timestampMs: longToNumber(s.timestamp), value: s.value })) }))).toEqual(input);
        const batch = decode(body);
        const named = input.filter((s) => {
          const name = s.labels.find((l) => l.name === '__name__')?.value ?? '';
          return seriesProblem(name, s.labels.filter((l) => l.name !== '__name__')) === undefined;
        });
        expect(batch.columns.length).toBe(named.reduce((n, s) => n + s.samples.length, 0));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('decodeRemoteWrite on damaged or oversized bodies', () => {
  it('refuses truncated and altered bodies with PROTOCOL_BODY_MALFORMED or _TOO_LARGE, never another error', () => {
    fc.assert(
      fc.property(writeRequestModel, fc.nat(), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }), (model, cutSeed, flips) => {
        const body = encodeRequest(model);
        const allowed = ['PROTOCOL_BODY_MALFORMED', 'PROTOCOL_BODY_TOO_LARGE', undefined];
        // Cutting the compressed body always breaks it: the declared length is no longer met.
        const cut = cutSeed % body.length;
        expect(codeOf(() => decode(body.subarray(0, cut)))).toBe('PROTOCOL_BODY_MALFORMED');
        const flipped = Uint8Array.from(body);
        for (const [at, value] of flips) flipped[at % flipped.length] = value;
        expect(allowed).toContain(codeOf(() => decode(flipped)));
        // Damage inside the protobuf itself, behind valid snappy framing.
        const plain = Uint8Array.from(snappyjs.uncompress(body));
        if (plain.length === 0) return;
        for (const [at, value] of flips) plain[at % plain.length] = value;
        expect(allowed).toContain(codeOf(() => decode(snappyjs.compress(plain))));
        expect(allowed).toContain(codeOf(() => decode(snappyjs.compress(plain.subarray(0, cutSeed % plain.length)))));
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses a body declaring more than PROTOCOL_DECODED_BYTES_MAX bytes with PROTOCOL_BODY_TOO_LARGE', () => {
    const declared = Writer.create().uint32(PROTOCOL_DECODED_BYTES_MAX + 1).finish();
    expect(codeOf(() => decode(concatBytes([declared, Uint8Array.from([0x00, 0x0a])])))).toBe('PROTOCOL_BODY_TOO_LARGE');
  });

  it('refuses a field of the wrong wire type with PROTOCOL_BODY_MALFORMED', () => {
    // TimeSeries as a varint; a Sample value as a varint.
    expect(codeOf(() => decode(snappyjs.compress(Uint8Array.from([0x08, 0x01]))))).toBe('PROTOCOL_BODY_MALFORMED');
    const series = field(1, concatBytes([field(1, S.Label.encode({ name: '__name__', value: 'up' }).finish()), field(2, Uint8Array.from([0x08, 0x01]))]));
    expect(codeOf(() => decode(snappyjs.compress(series)))).toBe('PROTOCOL_BODY_MALFORMED');
  });

  it('throws INGEST_BATCH_TOO_LARGE past INGEST_BATCH_POINTS_MAX stored points, not for skipped ones', () => {
    const samples = (n: number, value: number) => Array.from({ length: n }, (_, i) => ({ timestampMs: i, value }));
    const labels = [{ name: '__name__', value: 'up' }];
    const full = decode(encodeRemoteWrite([{ labels, samples: [...samples(INGEST_BATCH_POINTS_MAX, 1), ...samples(5, Number.NaN)] }]));
    expect(full.columns.length).toBe(INGEST_BATCH_POINTS_MAX);
    expect(full.skippedPoints).toBe(5);
    expect(codeOf(() => decode(encodeRemoteWrite([{ labels, samples: samples(INGEST_BATCH_POINTS_MAX + 1, 1) }])))).toBe('INGEST_BATCH_TOO_LARGE');
  });
});

/** What a decode gave: the batch's points and counts, or the code it threw. */
function outcomeOf(run: (batch: ProtocolBatch) => void): unknown {
  const batch = new ProtocolBatch('t1');
  try {
    run(batch);
  } catch (error) {
    if (error instanceof StrataError) return error.code;
    throw error;
  }
  return { points: pointsOf(batch.columns), rejections: batch.rejections, rejected: batch.rejectedPoints, skipped: batch.skippedPoints };
}

/** The body with some bytes of its protobuf replaced (behind valid snappy framing), or as it is. */
function damagedBody(model: { series: readonly SeriesModel[]; metadata: number; metadataFirst: boolean }, flips: readonly [number, number][]): Uint8Array {
  const body = encodeRequest(model);
  if (flips.length === 0) return body;
  const plain = Uint8Array.from(snappyjs.uncompress(body));
  for (const [at, value] of flips) if (plain.length > 0) plain[at % plain.length] = value;
  return snappyjs.compress(plain);
}

/** Requests drawing their series from one pool, so series come back across requests (as Prometheus sends them); some damaged. */
const requestSequence = fc
  .tuple(
    fc.array(seriesModel, { minLength: 1, maxLength: 8 }),
    fc.array(fc.record({ picks: fc.array(fc.nat(), { maxLength: 10 }), flips: fc.oneof({ weight: 6, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { minLength: 1, maxLength: 2 }) }) }), { minLength: 1, maxLength: 6 }),
  )
  .map(([pool, requests]) => requests.map(({ picks, flips }) => damagedBody({ series: picks.map((i) => pool[i % pool.length] as SeriesModel), metadata: 0, metadataFirst: false }, flips)));

/** Decoder settings the sequence runs under: the defaults, a cache that overflows all the time, every key colliding, both. */
const CACHE_SETTINGS: readonly [string, SeriesCacheOptions][] = [
  ['the default cache', {}],
  ['a cache of 2 entries and 600 bytes', { entriesMax: 2, bytesMax: 600 }],
  ['a hash that makes every key collide', { hash: () => 0 }],
  ['colliding keys in a cache of 3 entries', { hash: () => 1, entriesMax: 3 }],
];

describe('RemoteWriteDecoder across requests', () => {
  for (const [name, options] of CACHE_SETTINGS) {
    it(`gives every request of a sequence exactly what a fresh decoder gives, with ${name}`, () => {
      fc.assert(
        fc.property(requestSequence, (bodies) => {
          const decoder = new RemoteWriteDecoder(options);
          for (const body of bodies) expect(outcomeOf((batch) => decoder.decode(body, batch))).toEqual(outcomeOf((batch) => decodeRemoteWrite(body, batch)));
        }),
        { numRuns: RUNS },
      );
    });
  }

  it('stores a series the second time it comes, then names it with one hash of its labels', () => {
    let hashes = 0;
    const decoder = new RemoteWriteDecoder({
      hash: (view, start, end, salt) => {
        hashes++;
        return seriesKeyHash(view, start, end, salt);
      },
    });
    const series = Array.from({ length: 50 }, (_, i) => ({ labels: [{ name: '__name__', value: 'up' }, { name: 'instance', value: `h${i}` }], samples: [{ timestampMs: 1000, value: i }] }));
    const calls: number[] = [];
    let batch = new ProtocolBatch('t1');
    for (let round = 0; round < 3; round++) {
      batch = new ProtocolBatch('t1');
      decoder.decode(encodeRemoteWrite(series.map((s) => ({ ...s, samples: [{ timestampMs: 1000 * round, value: round }] }))), batch);
      calls.push(hashes);
    }
    // One hash per series and request, whether it hits or not; the third request hits.
    expect(calls).toEqual([50, 100, 150]);
    expect(decoder.cacheStats()).toEqual({ entries: 50, hits: 50 });
    expect(pointsOf(batch.columns).map((p) => p.metric)).toEqual(series.map((_, i) => `up{instance="h${i}"}`));
  });

  it('resolves a forced hash collision by comparing the label bytes, for valid and refused series alike', () => {
    const decoder = new RemoteWriteDecoder({ hash: () => 42 });
    const a = { labels: [{ name: '__name__', value: 'up' }, { name: 'job', value: 'a' }], samples: [{ timestampMs: 1, value: 1 }] };
    const b = { labels: [{ name: '__name__', value: 'up' }, { name: 'job', value: 'b' }], samples: [{ timestampMs: 1, value: 2 }] };
    const bad = { labels: [{ name: '__name__', value: 'up' }, { name: 'a b', value: 'x' }], samples: [{ timestampMs: 1, value: 3 }] };
    for (const order of [[a, b, bad], [bad, b, a], [a, a, b, b, bad, bad]]) {
      const batch = new ProtocolBatch('t1');
      decoder.decode(encodeRemoteWrite(order), batch);
      const want = order.filter((s) => s !== bad).map((s) => `up{job="${s === a ? 'a' : 'b'}"}`);
      expect(pointsOf(batch.columns).map((p) => p.metric)).toEqual(want);
      expect(batch.rejections.map((r) => [r.metric, r.code])).toEqual(order.filter((s) => s === bad).map(() => ['up{a b="x"}', 'PROTOCOL_SERIES_INVALID']));
    }
  });
});
