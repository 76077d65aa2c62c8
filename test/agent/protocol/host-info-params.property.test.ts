// Properties of the host info result reader: any well-formed result comes back as given; any other value is refused with a coded AGENT_PARAMS_INVALID, never another throw.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostInfoResult } from '../../../src/agent/protocol/method-params.js';
import { HOST_INFO_OBJECT_TYPES, HOST_INFO_TYPES } from '../../../src/agent/protocol/messages.js';
import { isStrataError } from '../../../src/core/errors.js';

const item = fc.dictionary(fc.string({ maxLength: 10 }), fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.constant(null)), { maxKeys: 5 });
const truncation = fc.nat({ max: 1000 }).chain((listed) => fc.nat({ max: 1000 }).map((more) => ({ listed, total: listed + more })));

describe('hostInfoResult', () => {
  it('returns a well-formed result as given', () => {
    fc.assert(
      fc.property(fc.constantFrom(...HOST_INFO_TYPES), fc.maxSafeInteger(), fc.array(item, { maxLength: 5 }), item, fc.option(truncation, { nil: null }), (type, timestamp, list, object, truncated) => {
        const metrics = HOST_INFO_OBJECT_TYPES.includes(type) ? object : list;
        expect(hostInfoResult({ timestamp, metrics, error: null, truncated }, type)).toEqual({ timestamp, metrics, error: null, truncated });
      }),
    );
  });

  it('refuses anything else with AGENT_PARAMS_INVALID only', () => {
    fc.assert(
      fc.property(fc.constantFrom(...HOST_INFO_TYPES), fc.anything(), (type, value) => {
        try {
          hostInfoResult(value, type);
        } catch (error) {
          expect(isStrataError(error) && error.code === 'AGENT_PARAMS_INVALID').toBe(true);
        }
      }),
    );
  });
});
