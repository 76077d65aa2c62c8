// Properties of readEnvelope: any line is read without throwing, valid requests and responses come back as sent, and an invalid line names its id only when it had a valid one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AGENT_MESSAGE_ID_LENGTH_MAX } from '../../../src/agent/agent-limits.js';
import { isMessageId, readEnvelope } from '../../../src/agent/protocol/envelope.js';

const id = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: AGENT_MESSAGE_ID_LENGTH_MAX }));
const name = fc.string({ maxLength: 40 });
const requestArb = fc.record({ v: fc.constant('1'), id, source: name, target: name, method: fc.string({ minLength: 1, maxLength: 40 }), params: fc.jsonValue() });
const errorArb = fc.option(fc.record({ code: fc.integer({ min: 100, max: 599 }), message: name, type: name }), { nil: null });
const responseArb = fc.record({ v: fc.constant('1'), id: fc.oneof(id, fc.constant(null)), source: name, target: name, result: fc.jsonValue(), error: errorArb });

describe('readEnvelope properties', () => {
  it('reads any line without throwing; an invalid one is AGENT_MESSAGE_INVALID with a valid id or null', () => {
    const line = fc.oneof(fc.string(), fc.jsonValue().map((value) => JSON.stringify(value)), fc.anything().map((value) => JSON.stringify({ v: '1', id: value, source: 'a', target: 'b', method: 'm' }) ?? ''));
    fc.assert(
      fc.property(line, (text) => {
        const read = readEnvelope(text);
        if (read.kind !== 'invalid') return;
        expect(read.error.code).toBe('AGENT_MESSAGE_INVALID');
        expect(read.id === null || isMessageId(read.id)).toBe(true);
      }),
    );
  });

  it('gives valid requests and responses back as sent', () => {
    fc.assert(
      fc.property(requestArb, (request) => {
        // JSON has no -0: what is read is what JSON.parse gives back.
        const sent = JSON.parse(JSON.stringify(request)) as typeof request;
        expect(readEnvelope(JSON.stringify(request))).toEqual({ kind: 'request', message: sent });
      }),
    );
    fc.assert(
      fc.property(responseArb, (response) => {
        const sent = JSON.parse(JSON.stringify(response)) as typeof response;
        expect(readEnvelope(JSON.stringify(response))).toEqual({ kind: 'response', message: sent });
      }),
    );
  });

  it('answers a message of another version with its id', () => {
    fc.assert(
      fc.property(requestArb, fc.string().filter((v) => v !== '1'), (request, v) => {
        const read = readEnvelope(JSON.stringify({ ...request, v }));
        expect(read).toMatchObject({ kind: 'invalid', id: JSON.parse(JSON.stringify(request.id)) as unknown });
      }),
    );
  });
});
