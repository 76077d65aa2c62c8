// Owns the tests of the OTLP/HTTP answer bodies: ExportMetricsServiceResponse and google.rpc.Status, read back with protobufjs and JSON.parse.
import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { otlpExportResponse, otlpStatusBody } from '../../src/wire/otlp-response.js';
import { otlpSchema } from './otlp-schema.js';

const schema = otlpSchema();
const asObject = { longs: String, defaults: false };

function readResponse(body: Uint8Array): Record<string, unknown> {
  const type = schema.ExportMetricsServiceResponse;
  return type.toObject(type.decode(body), asObject);
}

function readJson(body: Uint8Array): unknown {
  return JSON.parse(Buffer.from(body).toString('utf8'));
}

describe('otlpExportResponse', () => {
  it('is empty when every point was accepted', () => {
    expect(otlpExportResponse('protobuf', 0, '')).toEqual(new Uint8Array(0));
    expect(readResponse(otlpExportResponse('protobuf', 0, ''))).toEqual({});
    expect(readJson(otlpExportResponse('json', 0, ''))).toEqual({});
  });

  it('carries partial_success with the rejected count (an int64, a string in JSON) and the message', () => {
    expect(readResponse(otlpExportResponse('protobuf', 3, 'two series had no name'))).toEqual({ partialSuccess: { rejectedDataPoints: '3', errorMessage: 'two series had no name' } });
    expect(readJson(otlpExportResponse('json', 3, 'two series had no name'))).toEqual({ partialSuccess: { rejectedDataPoints: '3', errorMessage: 'two series had no name' } });
  });

  it('sends a warning with nothing rejected, and a count with no message', () => {
    expect(readResponse(otlpExportResponse('protobuf', 0, 'skipped 2 NaN values'))).toEqual({ partialSuccess: { errorMessage: 'skipped 2 NaN values' } });
    expect(readJson(otlpExportResponse('json', 0, 'skipped 2 NaN values'))).toEqual({ partialSuccess: { errorMessage: 'skipped 2 NaN values' } });
    expect(readResponse(otlpExportResponse('protobuf', 7, ''))).toEqual({ partialSuccess: { rejectedDataPoints: '7' } });
    expect(readJson(otlpExportResponse('json', 7, ''))).toEqual({ partialSuccess: { rejectedDataPoints: '7' } });
  });

  it('round-trips any count and message in both encodings', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.string({ unit: 'binary', maxLength: 300 }), (rejected, message) => {
        const want = rejected === 0 && message === '' ? {} : { partialSuccess: { ...(rejected > 0 ? { rejectedDataPoints: String(rejected) } : {}), ...(message === '' ? {} : { errorMessage: message }) } };
        expect(readResponse(otlpExportResponse('protobuf', rejected, message))).toEqual(want);
        expect(readJson(otlpExportResponse('json', rejected, message))).toEqual(want);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a count that is not a non-negative safe integer (a programmer error)', () => {
    expect(() => otlpExportResponse('json', -1, '')).toThrow(/count/);
    expect(() => otlpExportResponse('protobuf', 1.5, '')).toThrow(/count/);
  });
});

describe('otlpStatusBody', () => {
  function readStatus(body: Uint8Array): Record<string, unknown> {
    return schema.Status.toObject(schema.Status.decode(body), { defaults: true });
  }

  it('is a google.rpc.Status with the code and message', () => {
    expect(readStatus(otlpStatusBody('protobuf', 3, 'The protobuf body is malformed.'))).toEqual({ code: 3, message: 'The protobuf body is malformed.', details: [] });
    expect(readJson(otlpStatusBody('json', 3, 'The protobuf body is malformed.'))).toEqual({ code: 3, message: 'The protobuf body is malformed.' });
  });

  it('round-trips any int32 code and message', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.string({ unit: 'binary', maxLength: 200 }), (code, message) => {
        expect(readStatus(otlpStatusBody('protobuf', code, message))).toEqual({ code, message, details: [] });
        expect(readJson(otlpStatusBody('json', code, message))).toEqual({ code, message });
      }),
      { numRuns: 500 },
    );
  });
});
