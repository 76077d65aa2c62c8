// Checks by property the sniffing rule that splits an endpoint connection between HTTP (updates) and the JSON protocol.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { looksLikeHttp } from '../../../src/agent/update/update-http.js';

describe('looksLikeHttp', () => {
  it('takes every GET and HEAD request start', () => {
    fc.assert(
      fc.property(fc.constantFrom('GET ', 'HEAD '), fc.uint8Array({ maxLength: 64 }), (method, rest) => {
        expect(looksLikeHttp(Buffer.concat([Buffer.from(method), rest]))).toBe(true);
      }),
    );
  });

  it('never takes a JSON protocol line', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(looksLikeHttp(Buffer.from(`${text}\n`))).toBe(false);
      }),
    );
  });

  it('refuses other methods, lower case, and starts too short to tell', () => {
    for (const text of ['', 'G', 'GET', 'GETX /', 'get /', 'HEAD', 'HEADX', 'POST /', 'PUT /', ' GET /', '\u0016\u0003\u0001']) {
      expect(looksLikeHttp(Buffer.from(text)), JSON.stringify(text)).toBe(false);
    }
  });
});
