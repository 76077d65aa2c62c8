// Properties of the IPv4 arithmetic of the network reader: dotted addresses round-trip; the broadcast address keeps the network bits and sets every host bit.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { broadcastOf, ipv4ToNumber, numberToIpv4, sysNumber } from '../../../src/agent/host-info/network-reader.js';

const u32 = fc.integer({ min: 0, max: 2 ** 32 - 1 });
const prefix = fc.integer({ min: 0, max: 32 });

function maskOf(bits: number): number {
  return bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
}

describe('IPv4 arithmetic', () => {
  it('round-trips every 32-bit address through its dotted form', () => {
    fc.assert(
      fc.property(u32, (value) => {
        expect(ipv4ToNumber(numberToIpv4(value))).toBe(value);
      }),
    );
  });

  it('gives a broadcast address with the network bits of the address and every host bit set', () => {
    fc.assert(
      fc.property(u32, prefix, (address, bits) => {
        const mask = maskOf(bits);
        const broadcast = ipv4ToNumber(broadcastOf(numberToIpv4(address), numberToIpv4(mask)) as string) as number;
        expect((broadcast & mask) >>> 0).toBe((address & mask) >>> 0);
        expect((broadcast | mask) >>> 0).toBe(0xffffffff);
      }),
    );
  });

  it('refuses text that is not a dotted address, and /sys text that is not a number', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (text) => {
        const parsed = ipv4ToNumber(text);
        if (parsed !== undefined) expect(numberToIpv4(parsed)).toBe(text.split('.').map(Number).join('.'));
        const number = sysNumber(text);
        if (number !== undefined) expect(Number.isSafeInteger(number) && number >= 0).toBe(true);
      }),
    );
  });
});
