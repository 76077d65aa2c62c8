// Owns decoding an ingest body: the fast decoders for clean bodies, else the full decoder and per-metric checks.
import type { Unpackr } from 'msgpackr';
import { PointColumnsBuilder } from '../model/point-columns.js';
import { DecodeScratch } from './decode-scratch.js';
import { decodeJsonInto } from './fast-json.js';
import { decodeMsgpackInto } from './fast-msgpack.js';
import { decodeIngestBody, ingestUnpackr, mapIngestItems } from './ingest-body.js';
import type { IngestFormat, IngestMapping, IngestScope } from './ingest-mapping.js';
import { SPARE_COLUMN_BUILDERS_MAX } from './wire-limits.js';

/**
 * Decodes ingest bodies into point columns; a server makes one. Clean bodies go straight to columns
 * (msgpack about 77 ns a point on the standard workload, msgpackr alone 450; JSON about 230, half
 * of JSON.parse alone); anything else takes the full decoder (msgpackr or JSON.parse, then
 * per-metric checks). The decoder owns everything decoding writes besides the columns: its
 * scratch (the metric-name cache, so a name sent again costs a hash and a compare rather than a
 * UTF-8 decode, the JSON number slot and the msgpack cursor) and its msgpackr Unpackr; two
 * decoders share nothing. Column builders are lent per request and taken back by `release`, so a
 * busy server allocates no columns per batch.
 */
export class IngestDecoder {
  private readonly scratch = new DecodeScratch();
  private readonly unpackr: Unpackr = ingestUnpackr();
  private readonly spare: PointColumnsBuilder[] = [];

  /** The points of a raw body, and the error entries of its bad metrics; give the result to `release` once done. */
  decode(raw: unknown, format: IngestFormat, scope: IngestScope): IngestMapping {
    const columns = this.spare.pop() ?? new PointColumnsBuilder();
    columns.reset();
    if (Buffer.isBuffer(raw) && (format === 'msgpack' ? decodeMsgpackInto : decodeJsonInto)(raw, scope, this.scratch, columns)) {
      return { columns, positions: null, errors: [], skipped: 0 };
    }
    try {
      return mapIngestItems(decodeIngestBody(raw, format, this.unpackr), scope, columns);
    } catch (error) {
      this.give(columns);
      throw error;
    }
  }

  /** Takes back the columns of a mapping whose request is finished. */
  release(mapping: IngestMapping): void {
    if (mapping.columns instanceof PointColumnsBuilder) this.give(mapping.columns);
  }

  private give(columns: PointColumnsBuilder): void {
    if (this.spare.length < SPARE_COLUMN_BUILDERS_MAX) this.spare.push(columns);
  }
}
