// Owns decoding an ingest body: the fast msgpack decoder for clean msgpack bodies, else the full decoder and per-metric checks.
import { MSGPACK_TYPE } from '../../route-rules.js';
import { fastMsgpackIngest } from './fast-msgpack.js';
import { decodeIngestBody, mapIngestItems, type IngestMapping, type IngestScope } from './ingest-body.js';
import { NameCache } from './name-cache.js';

/**
 * Decodes ingest bodies for one server. JSON goes through JSON.parse and the per-metric mapping: a
 * hand-written JSON scanner was measured 10% slower than V8's native parser on the standard
 * workload (full-precision doubles need Number() of their text either way). msgpack clean bodies
 * go straight to points (about 13 M points/s on the standard workload against msgpackr's 2.2 M); the decoder keeps the
 * metric-name cache, so a name sent again costs a hash and a compare rather than a UTF-8 decode.
 */
export class IngestDecoder {
  private readonly names = new NameCache();

  /** The points of a raw body, and the error entries of its bad metrics when it is not clean. */
  decode(raw: unknown, mediaType: string, scope: IngestScope): IngestMapping {
    if (Buffer.isBuffer(raw) && mediaType === MSGPACK_TYPE) {
      const fast = fastMsgpackIngest(raw, scope, this.names);
      if (fast !== undefined) return fast;
    }
    return mapIngestItems(decodeIngestBody(raw, mediaType), scope);
  }
}
