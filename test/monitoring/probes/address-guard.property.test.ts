// Property tests of AddressGuard: an address inside a denied range is refused and one outside allowed, IPv4-mapped IPv6 is judged as IPv4, bad ranges throw CONFIG_INVALID.
import fc from 'fast-check';
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../../src/core/errors.js';
import { AddressGuard, CHECK_DENY_RANGES_MAX } from '../../../src/monitoring/probes/address-guard.js';

/** An IPv4 address as a 32-bit number. */
const v4 = fc.integer({ min: 0, max: 0xffff_ffff });
/** An IPv6 address as a 128-bit number. */
const v6 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });

function dotted(value: number): string {
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.');
}

/** The full eight-group form of a 128-bit number. */
function groups(value: bigint): string {
  return Array.from({ length: 8 }, (_, i) => ((value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
}

/** True when `address` lies in `network/prefix` of a `bits`-bit family. */
function inside(address: bigint, network: bigint, prefix: number, bits: number): boolean {
  const shift = BigInt(bits - prefix);
  return address >> shift === network >> shift;
}

/** The code of what `build` throws, or null when it does not throw. */
function thrownCode(build: () => unknown): string | null {
  try {
    build();
    return null;
  } catch (error) {
    return error instanceof StrataError ? error.code : 'not a StrataError';
  }
}

describe('AddressGuard', () => {
  it('refuses exactly the IPv4 addresses inside a denied range', () => {
    fc.assert(
      fc.property(v4, fc.integer({ min: 0, max: 32 }), v4, (network, prefix, address) => {
        const guard = new AddressGuard([`${dotted(network)}/${prefix}`]);
        expect(guard.allows(dotted(address))).toBe(!inside(BigInt(address), BigInt(network), prefix, 32));
        expect(guard.allows(dotted(network))).toBe(false);
      }),
    );
  });

  it('refuses exactly the IPv6 addresses inside a denied range', () => {
    fc.assert(
      fc.property(v6, fc.integer({ min: 0, max: 128 }), v6, (network, prefix, address) => {
        const guard = new AddressGuard([`${groups(network)}/${prefix}`]);
        expect(guard.allows(groups(address))).toBe(!inside(address, network, prefix, 128));
      }),
    );
  });

  it('judges IPv4-mapped IPv6 addresses, dotted or hex, as their IPv4 address', () => {
    fc.assert(
      fc.property(v4, fc.integer({ min: 0, max: 32 }), v4, (network, prefix, address) => {
        const guard = new AddressGuard([`${dotted(network)}/${prefix}`]);
        const expected = guard.allows(dotted(address));
        expect(guard.allows(`::ffff:${dotted(address)}`)).toBe(expected);
        expect(guard.allows(`::FFFF:${(address >>> 16).toString(16)}:${(address & 0xffff).toString(16)}`)).toBe(expected);
      }),
    );
  });

  it('allows every address when nothing is denied, and never something that is not an address', () => {
    const guard = new AddressGuard();
    fc.assert(fc.property(v4, v6, (a, b) => guard.allows(dotted(a)) && guard.allows(groups(b))));
    fc.assert(fc.property(fc.string(), (text) => isIP(text) !== 0 || !guard.allows(text)));
    expect(guard.allows('localhost')).toBe(false);
  });

  it('denies the usual ranges an operator lists for untrusted tenants', () => {
    const guard = new AddressGuard(['127.0.0.0/8', '::1/128', '169.254.0.0/16', '10.0.0.0/8', 'fd00::/8', '192.168.1.7']);
    for (const address of ['127.0.0.1', '127.255.0.9', '::1', '169.254.169.254', '10.20.30.40', 'fd12::5', '192.168.1.7', '::ffff:10.0.0.1']) {
      expect(guard.allows(address), address).toBe(false);
    }
    for (const address of ['128.0.0.1', '::2', '169.253.255.255', '11.0.0.1', 'fe00::1', '192.168.1.8', '8.8.8.8']) {
      expect(guard.allows(address), address).toBe(true);
    }
    expect(guard.ranges).toHaveLength(6);
  });

  it('throws CONFIG_INVALID for a prefix beyond the family, a malformed range, or too many ranges', () => {
    fc.assert(fc.property(v4, fc.integer({ min: 33, max: 999 }), (network, prefix) => thrownCode(() => new AddressGuard([`${dotted(network)}/${prefix}`])) === 'CONFIG_INVALID'));
    fc.assert(fc.property(v6, fc.integer({ min: 129, max: 999 }), (network, prefix) => thrownCode(() => new AddressGuard([`${groups(network)}/${prefix}`])) === 'CONFIG_INVALID'));
    fc.assert(
      fc.property(fc.string(), (text) => {
        fc.pre(isIP(text.split('/')[0] ?? '') === 0);
        return thrownCode(() => new AddressGuard([text])) === 'CONFIG_INVALID';
      }),
    );
    for (const bad of ['10.0.0.0/8/9', '10.0.0.0/-1', '10.0.0.0/8x', '10.0.0.0/', '10.0.0.0/ 8', '/8', '', 'example.com/8', '10.0.0.0/0008']) {
      expect(thrownCode(() => new AddressGuard([bad])), bad).toBe('CONFIG_INVALID');
    }
    const many = Array.from({ length: CHECK_DENY_RANGES_MAX + 1 }, (_, i) => `10.0.${i % 256}.0/24`);
    expect(thrownCode(() => new AddressGuard(many))).toBe('CONFIG_INVALID');
    expect(thrownCode(() => new AddressGuard(many.slice(1)))).toBeNull();
  });
});
