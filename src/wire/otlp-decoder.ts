// Owns the entry point of the OTLP/HTTP metrics decoders: an ExportMetricsServiceRequest body, protobuf or JSON, into a ProtocolBatch, through a decoder that caches series across requests.
import { OtlpMapper } from './otlp-mapping.js';
import { decodeOtlpJson } from './otlp-json.js';
import { decodeOtlpProtobuf } from './otlp-protobuf.js';
import { OtlpSeriesCache, type OtlpSeriesCacheOptions } from './otlp-series.js';
import type { ProtocolBatch } from './protocol-batch.js';
import type { SeriesCacheStats } from './series-cache.js';

/** The two OTLP/HTTP body encodings: binary protobuf (application/x-protobuf) and OTLP/JSON (application/json). */
export type OtlpEncoding = 'protobuf' | 'json';

/**
 * Decodes OTLP/HTTP metrics requests; a server makes one. It keeps, across requests, how each
 * series was named (by a protobuf point's attribute bytes, or an OTLP/JSON point's attribute text,
 * under its metric's context): an exporter sends the same series every interval, so a point of a
 * known series costs a lookup, with no string decoding and no check. The cache is bounded
 * (protocol-limits.ts); two decoders share nothing.
 */
export class OtlpDecoder {
  private readonly series: OtlpSeriesCache;

  /** `cache` shrinks the series cache or replaces its hashes, of bytes and of OTLP/JSON text (tests); the protocol limits by default. */
  constructor(cache: OtlpSeriesCacheOptions = {}) {
    this.series = new OtlpSeriesCache(cache);
  }

  /** Series the cache holds now, and the points it named from the cache since the decoder was made. */
  cacheStats(): SeriesCacheStats {
    return this.series.stats();
  }

  /**
   * Decodes one request (its body already decompressed) into `batch`: points it can store go to
   * `batch.columns`, points it refuses are counted in `batch.rejectedPoints` with their reasons,
   * and points with no recorded value or a non-finite value in `batch.skippedPoints` (see
   * otlp-mapping.ts for the mapping). Throws PROTOCOL_BODY_MALFORMED for a body that is not a
   * request, and INGEST_BATCH_TOO_LARGE past INGEST_BATCH_POINTS_MAX points; then nothing of the
   * batch may be written.
   */
  decode(body: Uint8Array, encoding: OtlpEncoding, batch: ProtocolBatch): void {
    const mapper = new OtlpMapper(batch, this.series);
    if (encoding === 'protobuf') decodeOtlpProtobuf(body, mapper);
    else decodeOtlpJson(body, mapper);
  }
}

/** Decodes one OTLP/HTTP metrics request into `batch` with a fresh decoder (no cache across calls); see OtlpDecoder. */
export function decodeOtlpMetrics(body: Uint8Array, encoding: OtlpEncoding, batch: ProtocolBatch): void {
  new OtlpDecoder().decode(body, encoding, batch);
}
