// Owns the OTLP API tests' client: export bodies built with OpenTelemetry's own serializers or by hand, posted over real HTTP, and their answers decoded.
import { ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import { ProtobufMetricsSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationTemporality, DataPointType, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { ProtoReader, WIRE_LENGTH_DELIMITED, WIRE_VARINT } from '../../../../src/wire/proto-reader.js';
import type { Harness } from '../../harness.js';
import { authHeaders, type Credentials } from '../prometheus/prom-http.js';

/** One gauge point to export. */
export interface GaugePoint {
  readonly timeMs: number;
  readonly value: number;
  readonly attributes?: Attributes;
}

function hrTime(ms: number): HrTime {
  return [Math.floor(ms / 1000), (ms % 1000) * 1_000_000];
}

/** A ResourceMetrics of one service holding one gauge, as the SDK hands it to an exporter. */
export function gaugeResource(service: string, name: string, points: readonly GaugePoint[]): ResourceMetrics {
  return {
    resource: resourceFromAttributes({ 'service.name': service }),
    scopeMetrics: [
      {
        scope: { name: 'strata-test' },
        metrics: [
          {
            descriptor: { name, description: '', unit: '1', valueType: ValueType.DOUBLE },
            aggregationTemporality: AggregationTemporality.CUMULATIVE,
            dataPointType: DataPointType.GAUGE,
            dataPoints: points.map((p) => ({ startTime: hrTime(p.timeMs), endTime: hrTime(p.timeMs), attributes: p.attributes ?? {}, value: p.value })),
          },
        ],
      },
    ],
  };
}

/** The protobuf ExportMetricsServiceRequest of a gauge, by OpenTelemetry's serializer. */
export function gaugeProtobuf(service: string, name: string, points: readonly GaugePoint[]): Uint8Array {
  const body = ProtobufMetricsSerializer.serializeRequest(gaugeResource(service, name, points));
  if (body === undefined) throw new Error('the serializer wrote nothing');
  return body;
}

/** The OTLP/JSON ExportMetricsServiceRequest of a gauge, by hand (times as decimal strings of nanoseconds, as the JSON mapping writes uint64). */
export function gaugeJson(service: string, name: string, points: readonly { timeMs: number; value: number | string; flags?: number }[]): string {
  return JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
        scopeMetrics: [
          {
            scope: { name: 'strata-test' },
            metrics: [
              {
                name,
                gauge: {
                  dataPoints: points.map((p) => ({ timeUnixNano: `${p.timeMs}000000`, asDouble: p.value, ...(p.flags === undefined ? {} : { flags: p.flags }) })),
                },
              },
            ],
          },
        ],
      },
    ],
  });
}

/** An answer: status, headers, the body's bytes. */
export interface OtlpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Uint8Array;
  /** The body parsed as JSON, when it is. */
  readonly json: any;
}

/** POSTs an export to `/otlp/{tenant}/v1/metrics`. */
export async function postOtlp(h: Harness, tenant: string, body: Uint8Array | string, contentType: string, credentials: Credentials, headers: Record<string, string> = {}): Promise<OtlpAnswer> {
  const response = await fetch(`${h.url}/otlp/${tenant}/v1/metrics`, { method: 'POST', headers: { 'content-type': contentType, ...headers, ...authHeaders(credentials) }, body });
  const bytes = new Uint8Array(await response.arrayBuffer());
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, bytes, json };
}

/** A protobuf google.rpc.Status: its code and message. */
export function readStatus(bytes: Uint8Array): { code: number; message: string } {
  const r = new ProtoReader(bytes);
  let code = 0;
  let message = '';
  while (r.next(bytes.length)) {
    if (r.field === 1) {
      r.expect(WIRE_VARINT);
      code = r.int64();
    } else if (r.field === 2) {
      r.expect(WIRE_LENGTH_DELIMITED);
      message = r.string();
    } else r.skipField();
  }
  return { code, message };
}
