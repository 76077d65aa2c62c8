// Owns the one rule that picks an ingest body's format from its Content-Type: msgpack for application/x-msgpack, JSON for anything else.
import type { IngestFormat } from './ingest-mapping.js';

/** The media type whose ingest bodies are msgpack; every other Content-Type (or none) is read as JSON. */
export const INGEST_MSGPACK_MEDIA_TYPE = 'application/x-msgpack';

/**
 * The format the server decodes an ingest body in, from the request's Content-Type: the media
 * type's essence (before any `;`, trimmed, lowercased; parameters such as charset ignored) equal to
 * application/x-msgpack is msgpack, everything else (application/json, other types, no header) is
 * JSON. The ingest API, replay's transform and the converter all call this, so they agree.
 */
export function ingestFormatOf(contentType: string | null | undefined): IngestFormat {
  if (contentType === null || contentType === undefined) return 'json';
  const semicolon = contentType.indexOf(';');
  const essence = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return essence === INGEST_MSGPACK_MEDIA_TYPE ? 'msgpack' : 'json';
}
