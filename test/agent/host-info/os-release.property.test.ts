// Properties of the os-release parser: any variables written the way os-release(5) quotes them parse back; junk never throws and yields valid keys only.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseOsRelease } from '../../../src/agent/host-info/os-release.js';
import { interleave, junkText } from '../collectors/proc-arbitraries.js';

const key = fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,15}$/);
/** A value on one line: any text but line breaks. */
const value = fc.string({ unit: fc.oneof(fc.constantFrom('"', "'", '\\', '$', '`', ' ', '\t', '#', '='), fc.string({ minLength: 1, maxLength: 1 })), maxLength: 30 }).filter((text) => !/[\n\r]/.test(text));

function quoted(text: string): string {
  return `"${text.replace(/["\\$`]/g, (c) => `\\${c}`)}"`;
}

describe('parseOsRelease', () => {
  it('parses generated double-quoted assignments back (the last of a repeated key wins)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(key, value), { maxLength: 12 }), fc.array(fc.constantFrom('# comment', '', '   ', 'not an assignment'), { maxLength: 5 }), (pairs, junk) => {
        const text = interleave(pairs.map(([k, v]) => `${k}=${quoted(v)}`), junk).join('\n');
        expect(Object.fromEntries(parseOsRelease(text))).toEqual(Object.fromEntries(pairs));
      }),
    );
  });

  it('never throws on junk, and every key it returns is a valid name', () => {
    fc.assert(
      fc.property(junkText, (text) => {
        for (const k of parseOsRelease(text).keys()) expect(k).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
      }),
    );
  });
});
