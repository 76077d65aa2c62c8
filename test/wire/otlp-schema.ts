// Owns the reference protobufjs schema of the OTLP metrics messages (and google.rpc.Status) the OTLP wire tests encode and decode with.
import protobuf from 'protobufjs';

/**
 * The messages of opentelemetry/proto/{common,resource,metrics,collector/metrics}/v1 that metrics
 * use, and google.rpc.Status, with their field numbers and types. Written out here (not loaded from
 * the package) so the tests check the decoder against the numbers, not against itself.
 */
const OTLP_METRICS_PROTO = `
syntax = "proto3";
package otlp;

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }

message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; string schema_url = 3; }
message ScopeMetrics { InstrumentationScope scope = 1; repeated Metric metrics = 2; string schema_url = 3; }
message Metric {
  string name = 1;
  string description = 2;
  string unit = 3;
  oneof data {
    Gauge gauge = 5;
    Sum sum = 7;
    Histogram histogram = 9;
    ExponentialHistogram exponential_histogram = 10;
    Summary summary = 11;
  }
  repeated KeyValue metadata = 12;
}
message Gauge { repeated NumberDataPoint data_points = 1; }
message Sum { repeated NumberDataPoint data_points = 1; int32 aggregation_temporality = 2; bool is_monotonic = 3; }
message Histogram { repeated HistogramDataPoint data_points = 1; int32 aggregation_temporality = 2; }
message ExponentialHistogram { repeated ExponentialHistogramDataPoint data_points = 1; int32 aggregation_temporality = 2; }
message Summary { repeated SummaryDataPoint data_points = 1; }
message Exemplar { repeated KeyValue filtered_attributes = 7; fixed64 time_unix_nano = 2; double as_double = 3; sfixed64 as_int = 6; bytes span_id = 4; bytes trace_id = 5; }
message NumberDataPoint {
  repeated KeyValue attributes = 7;
  fixed64 start_time_unix_nano = 2;
  fixed64 time_unix_nano = 3;
  oneof value { double as_double = 4; sfixed64 as_int = 6; }
  repeated Exemplar exemplars = 5;
  uint32 flags = 8;
}
message HistogramDataPoint {
  repeated KeyValue attributes = 9;
  fixed64 start_time_unix_nano = 2;
  fixed64 time_unix_nano = 3;
  fixed64 count = 4;
  optional double sum = 5;
  repeated fixed64 bucket_counts = 6;
  repeated double explicit_bounds = 7;
  repeated Exemplar exemplars = 8;
  uint32 flags = 10;
  optional double min = 11;
  optional double max = 12;
}
message Buckets { sint32 offset = 1; repeated uint64 bucket_counts = 2; }
message ExponentialHistogramDataPoint {
  repeated KeyValue attributes = 1;
  fixed64 start_time_unix_nano = 2;
  fixed64 time_unix_nano = 3;
  fixed64 count = 4;
  optional double sum = 5;
  sint32 scale = 6;
  fixed64 zero_count = 7;
  Buckets positive = 8;
  Buckets negative = 9;
  uint32 flags = 10;
  optional double min = 12;
  optional double max = 13;
  double zero_threshold = 14;
}
message ValueAtQuantile { double quantile = 1; double value = 2; }
message SummaryDataPoint {
  repeated KeyValue attributes = 7;
  fixed64 start_time_unix_nano = 2;
  fixed64 time_unix_nano = 3;
  fixed64 count = 4;
  double sum = 5;
  repeated ValueAtQuantile quantile_values = 6;
  uint32 flags = 8;
}

message ExportMetricsPartialSuccess { int64 rejected_data_points = 1; string error_message = 2; }
message ExportMetricsServiceResponse { ExportMetricsPartialSuccess partial_success = 1; }
message Status { int32 code = 1; string message = 2; repeated bytes details = 3; }
`;

/** The OTLP metrics messages the tests use. */
export interface OtlpSchema {
  readonly ExportMetricsServiceRequest: protobuf.Type;
  readonly ExportMetricsServiceResponse: protobuf.Type;
  readonly Status: protobuf.Type;
}

/**
 * Fields a future version might add, one of each wire type, at numbers the current messages do not
 * use: a decoder must skip them (`futureVarint`, `futureFixed64`, `futureBytes`, `futureFixed32`).
 */
const FUTURE_FIELDS = 'uint64 future_varint = 1000; fixed64 future_fixed64 = 1001; bytes future_bytes = 1002; fixed32 future_fixed32 = 1003;';

/**
 * Parses the schema (a fresh root each call, so tests share no mutable state); with `future`, every
 * message also has FUTURE_FIELDS.
 */
export function otlpSchema(future = false): OtlpSchema {
  const text = future ? OTLP_METRICS_PROTO.replace(/^(message \w+ \{)/gm, `$1 ${FUTURE_FIELDS}`) : OTLP_METRICS_PROTO;
  const root = protobuf.parse(text, { keepCase: false }).root;
  return {
    ExportMetricsServiceRequest: root.lookupType('otlp.ExportMetricsServiceRequest'),
    ExportMetricsServiceResponse: root.lookupType('otlp.ExportMetricsServiceResponse'),
    Status: root.lookupType('otlp.Status'),
  };
}

/**
 * Encodes an ExportMetricsServiceRequest given as a plain object with camelCase keys, the OTLP/JSON
 * shape: 64-bit fields as numbers or decimal strings (protobufjs reads strings through Long,
 * exactly), bytes as base64. Not `verify`-ed: verify refuses the decimal strings fromObject reads.
 */
export function encodeRequest(schema: OtlpSchema, request: Record<string, unknown>): Uint8Array {
  const type = schema.ExportMetricsServiceRequest;
  return type.encode(type.fromObject(request)).finish();
}
