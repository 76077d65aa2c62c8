// Tests the OTLP/HTTP metrics API over real HTTP: the OpenTelemetry SDK's exporters (protobuf and JSON) end to end, gzip, partial success, credentials, tenants and the Status error bodies.
import { gzipSync } from 'node:zlib';
import { OTLPMetricExporter as JsonExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { ProtobufMetricsSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../../src/store.js';
import { PROTOCOL_DECODED_BYTES_MAX } from '../../../../src/wire/protocol-limits.js';
import { startHarness, type Harness } from '../../harness.js';
import { nameIs, plain, promRead } from '../prometheus/prom-http.js';
import { unreliable, type UnreliableStore } from '../prometheus/unreliable-store.js';
import { gaugeJson, gaugeProtobuf, postOtlp, readStatus } from './otlp-http.js';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const JSON_TYPE = 'application/json';
const PROTOBUF_TYPE = 'application/x-protobuf';

let h: Harness;
let alice: string;
let t0: number;

beforeAll(async () => {
  h = await startHarness({ config: { bodyLimitBytes: 256 * 1024 } });
  alice = await h.token('alice');
  t0 = Math.floor((Date.now() - MINUTE_MS) / 1000) * 1000;
});
afterAll(async () => h.close());

/** The samples of every series named `name` in t1 over the last hour, by remote read. */
async function stored(name: string, matchers: { type: 'EQ'; name: string; value: string }[] = []) {
  const read = await promRead(h, 't1', [{ startMs: t0 - DAY_MS, endMs: Date.now() + MINUTE_MS, matchers: [nameIs(name), ...matchers] }], { token: alice });
  expect(read.status).toBe(200);
  return (read.results[0] ?? []).map(plain);
}

describe('the OpenTelemetry SDK exporting to Strata', () => {
  async function exportWith(exporter: PushMetricExporter, service: string): Promise<void> {
    const provider = new MeterProvider({
      resource: resourceFromAttributes({ 'service.name': service, 'service.instance.id': 'i-1' }),
      readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })],
    });
    const meter = provider.getMeter('strata-test');
    meter.createGauge('queue.depth', { unit: '1' }).record(42.5, { 'http.route': '/a' });
    meter.createCounter('jobs.done').add(7);
    // Shutting down exports once more and stops: one export.
    await provider.shutdown();
  }

  it.each<[string, () => PushMetricExporter]>([
    ['protobuf', () => new ProtoExporter({ url: `${h.url}/otlp/t1/v1/metrics`, headers: { 'x-auth-token': alice } })],
    ['JSON', () => new JsonExporter({ url: `${h.url}/otlp/t1/v1/metrics`, headers: { authorization: `Bearer ${alice}` } })],
  ])('stores a gauge and a counter sent by the %s exporter, readable through remote read', async (encoding, exporter) => {
    const service = `svc_${encoding}`;
    await exportWith(exporter(), service);
    const job = { type: 'EQ' as const, name: 'job', value: service };
    const gauge = await stored('queue_depth', [job]);
    expect(gauge).toHaveLength(1);
    expect(gauge[0]?.labels).toEqual({ __name__: 'queue_depth', http_route: '/a', instance: 'i-1', job: service });
    expect(gauge[0]?.samples.map(([, v]) => v)).toEqual([42.5]);
    const counter = await stored('jobs_done_total', [job]);
    expect(counter[0]?.samples.map(([, v]) => v)).toEqual([7]);
  });
});

describe('bodies by hand', () => {
  it('answers a full success with an empty ExportMetricsServiceResponse in the request encoding', async () => {
    const proto = await postOtlp(h, 't1', gaugeProtobuf('hand', 'hand_proto', [{ timeMs: t0, value: 1.25 }]), PROTOBUF_TYPE, { basic: 'alice' });
    expect(proto.status).toBe(200);
    expect(proto.headers.get('content-type')).toBe(PROTOBUF_TYPE);
    expect(proto.bytes).toHaveLength(0);
    const json = await postOtlp(h, 't1', gaugeJson('hand', 'hand_json', [{ timeMs: t0, value: 2.5 }]), JSON_TYPE, { basic: 'alice' });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toBe(JSON_TYPE);
    expect(json.json).toEqual({});
    expect((await stored('hand_proto'))[0]?.samples).toEqual([[t0, 1.25]]);
    expect((await stored('hand_json'))[0]?.samples).toEqual([[t0, 2.5]]);
  });

  it('reads gzip bodies', async () => {
    const body = gzipSync(gaugeJson('gz', 'gz_json', [{ timeMs: t0, value: 3 }]));
    const res = await postOtlp(h, 't1', body, JSON_TYPE, { token: alice }, { 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect((await stored('gz_json'))[0]?.samples).toEqual([[t0, 3]]);
  });

  it('reports refused points as partial success (JSON), the accepted ones durable, skipped ones neither', async () => {
    const body = gaugeJson('ps', 'partial_json', [
      { timeMs: t0, value: 4 },
      { timeMs: t0 - 3 * DAY_MS, value: 5 },
      { timeMs: t0 + 1000, value: 'NaN' },
      { timeMs: t0 + 2000, value: 6, flags: 1 },
    ]);
    const res = await postOtlp(h, 't1', body, JSON_TYPE, { token: alice });
    expect(res.status).toBe(200);
    expect(res.json.partialSuccess.rejectedDataPoints).toBe('1');
    expect(res.json.partialSuccess.errorMessage).toMatch(/^accepted 1, rejected 1, skipped 2 points; INGEST_TIMESTAMP_TOO_OLD partial_json\{job="ps"\}: /);
    expect((await stored('partial_json'))[0]?.samples).toEqual([[t0, 4]]);
  });

  it('reports partial success in protobuf too', async () => {
    const body = gaugeProtobuf('ps', 'partial_proto', [
      { timeMs: t0, value: 4 },
      { timeMs: t0 + 20 * MINUTE_MS, value: 5 },
    ]);
    const res = await postOtlp(h, 't1', body, PROTOBUF_TYPE, { token: alice });
    expect(res.status).toBe(200);
    const response = ProtobufMetricsSerializer.deserializeResponse(res.bytes);
    expect(Number(response.partialSuccess?.rejectedDataPoints)).toBe(1);
    expect(response.partialSuccess?.errorMessage).toContain('INGEST_TIMESTAMP_IN_FUTURE');
  });
});

describe('credentials, roles and tenants', () => {
  const body = (name: string) => gaugeJson('auth', name, [{ timeMs: t0, value: 1 }]);

  it('refuses an observer of the tenant: 403 as a Status', async () => {
    const res = await postOtlp(h, 't1', body('olga_m'), JSON_TYPE, { basic: 'olga' });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ code: 7, message: expect.stringMatching(/^AUTH_ROLE_FORBIDDEN: /) });
  });

  it("refuses another tenant's URL, and keeps each tenant's points to itself", async () => {
    const bob = await h.token('bob');
    expect((await postOtlp(h, 't1', body('iso_otlp'), JSON_TYPE, { bearer: bob })).status).toBe(403);
    expect((await postOtlp(h, 't2', body('iso_otlp'), JSON_TYPE, { bearer: bob })).status).toBe(200);
    expect(await stored('iso_otlp')).toEqual([]);
  });

  it('answers 401 with a Basic challenge and a Status in the request encoding', async () => {
    const res = await postOtlp(h, 't1', gaugeProtobuf('auth', 'x', [{ timeMs: t0, value: 1 }]), PROTOBUF_TYPE, null);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="Strata", charset="UTF-8"');
    expect(res.headers.get('content-type')).toBe(PROTOBUF_TYPE);
    expect(readStatus(res.bytes)).toEqual({ code: 16, message: expect.stringMatching(/^AUTH_TOKEN_MISSING: /) });
  });
});

describe('bodies the API refuses', () => {
  const post = (body: Uint8Array | string, type: string, headers: Record<string, string> = {}) => postOtlp(h, 't1', body, type, { token: alice }, headers);

  it('answers a malformed protobuf body with 400 and a protobuf Status', async () => {
    const res = await post(Uint8Array.from([0x0a, 0xff, 0x01]), PROTOBUF_TYPE);
    expect(res.status).toBe(400);
    expect(readStatus(res.bytes)).toEqual({ code: 3, message: expect.stringMatching(/^PROTOCOL_BODY_MALFORMED: /) });
  });

  it('answers malformed JSON and bad gzip with 400 and a JSON Status', async () => {
    for (const [body, headers] of [
      ['{"resourceMetrics": [', {}],
      [Buffer.from('not gzip'), { 'content-encoding': 'gzip' }],
    ] as const) {
      const res = await post(body, JSON_TYPE, headers);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ code: 3, message: expect.stringMatching(/^PROTOCOL_BODY_MALFORMED: /) });
    }
  });

  it('answers 413 for a body over the body limit and for gzip that inflates past the decoded limit', async () => {
    expect((await post(new Uint8Array(300 * 1024), PROTOBUF_TYPE)).status).toBe(413);
    const bomb = await post(gzipSync(Buffer.alloc(PROTOCOL_DECODED_BYTES_MAX + 1)), JSON_TYPE, { 'content-encoding': 'gzip' });
    expect(bomb.status).toBe(413);
    expect(bomb.json).toEqual({ code: 8, message: expect.stringMatching(/^PROTOCOL_BODY_TOO_LARGE: /) });
  });

  it.each<[string, string, Record<string, string>, string]>([
    ['another Content-Encoding', JSON_TYPE, { 'content-encoding': 'br' }, 'HTTP_CONTENT_ENCODING_UNSUPPORTED'],
    ['another Content-Type', 'text/plain', {}, 'HTTP_CONTENT_TYPE_UNSUPPORTED'],
  ])('answers %s with 415', async (_name, type, headers, code) => {
    const res = await post('{}', type, headers);
    expect(res.status).toBe(415);
    expect(res.json).toEqual({ code: 3, message: expect.stringMatching(new RegExp(`^${code}: `)) });
  });
});

describe('a store that cannot make writes durable', () => {
  it('answers 503 with Retry-After and an UNAVAILABLE Status (exporters retry)', async () => {
    let wrapped: UnreliableStore | undefined;
    const other = await startHarness({ makeStore: async (dir) => (wrapped = unreliable(await openStore({ dir, workers: 0, background: false }))).store });
    try {
      (wrapped as UnreliableStore).failing = true;
      const res = await postOtlp(other, 't1', gaugeJson('nd', 'nd_m', [{ timeMs: Date.now() - MINUTE_MS, value: 1 }]), JSON_TYPE, { basic: 'alice' });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.json).toEqual({ code: 14, message: expect.stringMatching(/^STORE_NOT_DURABLE: /) });
    } finally {
      await other.close();
    }
  });
});
