// Owns which addresses checks may connect to: every address is allowed unless the operator denied its range (--check-deny).
import { BlockList, isIP } from 'node:net';
import { configError } from '../../core/config-error.js';

/** Most CIDR ranges an operator may deny. */
export const CHECK_DENY_RANGES_MAX = 256;

/**
 * The deny list of check targets. A self-hosted monitor watches internal hosts, so loopback and
 * private ranges are allowed by default; an operator who lets untrusted tenants create checks denies
 * the ranges they must not reach (README, "Check targets").
 */
export class AddressGuard {
  private readonly denied = new BlockList();
  /** The ranges as configured, for logs and docs. */
  readonly ranges: readonly string[];

  /** Builds the guard from CIDR strings (`10.0.0.0/8`, `::1/128`, or a bare address); throws CONFIG_INVALID naming a bad one. */
  constructor(ranges: readonly string[] = []) {
    if (ranges.length > CHECK_DENY_RANGES_MAX) throw configError('checkDeny', `at most ${CHECK_DENY_RANGES_MAX} ranges`, `${ranges.length} ranges`);
    for (const range of ranges) {
      const parts = range.split('/');
      const [address = '', bits] = parts;
      const family = isIP(address);
      const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
      const max = family === 6 ? 128 : 32;
      const malformed = parts.length > 2 || (bits !== undefined && !/^\d{1,3}$/.test(bits));
      if (family === 0 || malformed || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
        throw configError('checkDeny', 'a CIDR range such as 10.0.0.0/8 or fd00::/8', range);
      }
      this.denied.addSubnet(address, prefix, family === 6 ? 'ipv6' : 'ipv4');
    }
    this.ranges = [...ranges];
  }

  /** True when a check may connect to `ip` (an IPv4 or IPv6 address; IPv4-mapped IPv6 is judged as IPv4). */
  allows(ip: string): boolean {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    const address = mapped?.[1] ?? ip;
    const family = isIP(address);
    if (family === 0) return false;
    return !this.denied.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }
}
