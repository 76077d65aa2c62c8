// Property tests of addressGroup: an IPv6 address counts under its /64 whatever its written form, and two addresses share a group exactly when their first 64 bits match.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressGroup } from '../../../src/agent/endpoint/agent-endpoint-slots.js';

const groups = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 });

/** The full form (8 groups, leading zeros kept) of an IPv6 address. */
function fullForm(words: readonly number[]): string {
  return words.map((word) => word.toString(16).padStart(4, '0')).join(':');
}

/** The canonical compressed form WHATWG URL parsing gives an IPv6 address. */
function compressedForm(words: readonly number[]): string {
  return new URL(`http://[${fullForm(words)}]/`).hostname.slice(1, -1);
}

describe('addressGroup properties', () => {
  it('gives the full and the compressed form of an address the same group', () => {
    fc.assert(
      fc.property(groups, (words) => {
        expect(addressGroup(compressedForm(words))).toBe(addressGroup(fullForm(words)));
      }),
    );
  });

  it('groups two IPv6 addresses together exactly when their first four groups match', () => {
    fc.assert(
      fc.property(groups, groups, (a, b) => {
        const samePrefix = a.slice(0, 4).every((word, i) => word === b[i]);
        // IPv4-mapped addresses count as IPv4 ones: keep them out of the /64 rule.
        fc.pre(!compressedForm(a).startsWith('::ffff:') && !compressedForm(b).startsWith('::ffff:'));
        expect(addressGroup(fullForm(a)) === addressGroup(compressedForm(b))).toBe(samePrefix);
      }),
    );
  });
});
