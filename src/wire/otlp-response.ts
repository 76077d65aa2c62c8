// Owns the bodies of OTLP/HTTP answers: ExportMetricsServiceResponse (with partial success) and google.rpc.Status for errors, in protobuf or JSON.
import { assert } from '../core/assert.js';
import type { OtlpEncoding } from './otlp-decoder.js';
import { WIRE_LENGTH_DELIMITED, WIRE_VARINT } from './proto-reader.js';
import { ProtoWriter } from './proto-writer.js';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/**
 * An ExportMetricsServiceResponse. Its partial_success (field 1: rejected_data_points 1, an int64,
 * and error_message 2) is sent only when some points were rejected or there is something to say;
 * an empty response means everything was accepted. In JSON the int64 is a decimal string, as the
 * proto3 JSON mapping writes 64-bit integers, and fields at their default are left out.
 */
export function otlpExportResponse(encoding: OtlpEncoding, rejectedPoints: number, errorMessage: string): Uint8Array {
  assert(Number.isSafeInteger(rejectedPoints) && rejectedPoints >= 0, 'rejectedPoints is a count');
  const partial = rejectedPoints > 0 || errorMessage !== '';
  if (encoding === 'json') {
    if (!partial) return utf8('{}');
    const partialSuccess: Record<string, string> = {};
    if (rejectedPoints > 0) partialSuccess.rejectedDataPoints = String(rejectedPoints);
    if (errorMessage !== '') partialSuccess.errorMessage = errorMessage;
    return utf8(JSON.stringify({ partialSuccess }));
  }
  const writer = new ProtoWriter();
  if (partial) {
    writer.begin(1);
    if (rejectedPoints > 0) writer.tag(1, WIRE_VARINT).varint(rejectedPoints);
    if (errorMessage !== '') writer.tag(2, WIRE_LENGTH_DELIMITED).string(errorMessage);
    writer.end();
  }
  return writer.finish();
}

/**
 * A google.rpc.Status (code 1, an int32 gRPC status code; message 2; no details), the body OTLP/HTTP
 * servers answer failed requests with. JSON keeps both fields even at their default, so a client
 * reading `code` always finds one.
 */
export function otlpStatusBody(encoding: OtlpEncoding, grpcCode: number, message: string): Uint8Array {
  assert(Number.isInteger(grpcCode) && grpcCode >= -(2 ** 31) && grpcCode < 2 ** 31, 'grpcCode is an int32');
  if (encoding === 'json') return utf8(JSON.stringify({ code: grpcCode, message }));
  const writer = new ProtoWriter();
  // int32 is a varint; a negative one is sign-extended to ten bytes, as int64.
  if (grpcCode !== 0) writer.tag(1, WIRE_VARINT).int64(grpcCode);
  if (message !== '') writer.tag(2, WIRE_LENGTH_DELIMITED).string(message);
  return writer.finish();
}
