// Owns the entry point of the OTLP/HTTP metrics decoders: an ExportMetricsServiceRequest body, protobuf or JSON, into a ProtocolBatch.
import { OtlpMapper } from './otlp-mapping.js';
import { decodeOtlpJson } from './otlp-json.js';
import { decodeOtlpProtobuf } from './otlp-protobuf.js';
import type { ProtocolBatch } from './protocol-batch.js';

/** The two OTLP/HTTP body encodings: binary protobuf (application/x-protobuf) and OTLP/JSON (application/json). */
export type OtlpEncoding = 'protobuf' | 'json';

/**
 * Decodes one OTLP/HTTP metrics request (its body already decompressed) into `batch`: points it
 * can store go to `batch.columns`, points it refuses are counted in `batch.rejectedPoints` with
 * their reasons, and points with no recorded value or a non-finite value in `batch.skippedPoints`
 * (see otlp-mapping.ts for the mapping). Throws PROTOCOL_BODY_MALFORMED for a body that is not a
 * request, and INGEST_BATCH_TOO_LARGE past INGEST_BATCH_POINTS_MAX points; then nothing of the
 * batch may be written.
 */
export function decodeOtlpMetrics(body: Uint8Array, encoding: OtlpEncoding, batch: ProtocolBatch): void {
  const mapper = new OtlpMapper(batch);
  if (encoding === 'protobuf') decodeOtlpProtobuf(body, mapper);
  else decodeOtlpJson(body, mapper);
}
