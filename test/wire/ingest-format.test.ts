// Tests the one Content-Type -> ingest format rule: exactly the server's rule (essence, lowercased, parameters ignored), for any header.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { essence } from '../../src/http/content-negotiation.js';
import { JSON_TYPE, MSGPACK_TYPE } from '../../src/http/route-rules.js';
import { INGEST_MSGPACK_MEDIA_TYPE, ingestFormatOf } from '../../src/wire/ingest-format.js';

/** The server's rule before it moved to the wire room, kept here as the reference. */
function serverRule(contentType: string | undefined): 'json' | 'msgpack' {
  return essence(contentType ?? JSON_TYPE) === MSGPACK_TYPE ? 'msgpack' : 'json';
}

describe('ingestFormatOf', () => {
  it('names the same msgpack media type as the routes', () => {
    expect(INGEST_MSGPACK_MEDIA_TYPE).toBe(MSGPACK_TYPE);
  });

  it('reads application/x-msgpack in any case, with parameters and spaces, as msgpack; everything else as JSON', () => {
    for (const type of ['application/x-msgpack', 'Application/X-MsgPack', ' application/x-msgpack ; charset=binary', 'application/x-msgpack;v=1']) expect(ingestFormatOf(type), type).toBe('msgpack');
    // application/msgpack (RFC-less alias) and the +json suffix are not the server's msgpack: it decodes them as JSON.
    for (const type of ['application/json', 'application/msgpack', 'application/vnd.x+json', 'text/plain', '', 'application/x-msgpack2', 'x-msgpack']) expect(ingestFormatOf(type), type).toBe('json');
    expect(ingestFormatOf(null)).toBe('json');
    expect(ingestFormatOf(undefined)).toBe('json');
  });

  it('agrees with the server rule for any header text', () => {
    const typeArb = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.tuple(fc.constantFrom(' ', '', '\t'), fc.constantFrom('application/x-msgpack', 'APPLICATION/X-MSGPACK', 'application/json'), fc.constantFrom('', ';', '; charset=utf-8', ' ;a=b')).map((parts) => parts.join('')),
    );
    fc.assert(fc.property(fc.option(typeArb, { nil: undefined }), (type) => {
      expect(ingestFormatOf(type)).toBe(serverRule(type));
    }), { numRuns: 500 });
  });
});
