// Owns the endpoint's connection pools bounded in all and per remote address (pending handshakes, update downloads), and what counts as one address.
import { isIPv4, isIPv6 } from 'node:net';
import { assert } from '../../core/assert.js';

const IPV4_MAPPED_PREFIX = '::ffff:';
/** Groups of an IPv6 address that name its /64. */
const IPV6_PREFIX_GROUPS = 4;
const IPV6_GROUPS = 8;

/** The 8 groups of an IPv6 address (zone id removed, an embedded IPv4 tail as two groups), as numbers; undefined when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
  const bare = address.split('%')[0] ?? '';
  if (!isIPv6(bare)) return undefined;
  const halves = bare.split('::');
  const groupsOf = (part: string | undefined): number[] => {
    if (part === undefined || part === '') return [];
    const out: number[] = [];
    for (const text of part.split(':')) {
      if (text.includes('.')) {
        const [a = 0, b = 0, c = 0, d = 0] = text.split('.').map(Number);
        out.push(a * 256 + b, c * 256 + d);
      } else {
        out.push(Number.parseInt(text, 16));
      }
    }
    return out;
  };
  const head = groupsOf(halves[0]);
  const tail = groupsOf(halves[1]);
  const zeros = halves.length === 2 ? IPV6_GROUPS - head.length - tail.length : 0;
  return [...head, ...new Array<number>(zeros).fill(0), ...tail];
}

/**
 * The key one remote address counts under: an IPv4 address as itself (IPv4-mapped IPv6 ones in
 * their IPv4 form), an IPv6 address by its /64 (one host usually holds a whole /64, so counting
 * single IPv6 addresses would bound nothing), anything else as given.
 */
export function addressGroup(address: string): string {
  if (address.startsWith(IPV4_MAPPED_PREFIX) && isIPv4(address.slice(IPV4_MAPPED_PREFIX.length))) return address.slice(IPV4_MAPPED_PREFIX.length);
  const groups = ipv6Groups(address);
  if (groups === undefined) return address;
  return `${groups
    .slice(0, IPV6_PREFIX_GROUPS)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/**
 * Slots held by remote address groups, at most `totalMax` in all and `perAddressMax` per group.
 * The map holds only groups with a slot, so it is bounded by `totalMax`.
 */
export class AddressSlots {
  private readonly held = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly totalMax: number,
    private readonly perAddressMax: number,
  ) {
    assert(Number.isSafeInteger(totalMax) && totalMax > 0 && Number.isSafeInteger(perAddressMax) && perAddressMax > 0, 'slot limits are positive integers');
  }

  /** Slots held now. */
  get size(): number {
    return this.total;
  }

  /** Takes a slot for `group`; false, and nothing taken, when either maximum is reached. */
  take(group: string): boolean {
    const mine = this.held.get(group) ?? 0;
    if (this.total >= this.totalMax || mine >= this.perAddressMax) return false;
    this.held.set(group, mine + 1);
    this.total++;
    return true;
  }

  /** Gives back a slot `take(group)` gave. */
  release(group: string): void {
    const mine = this.held.get(group) ?? 0;
    assert(mine > 0, 'a slot is released only by its holder');
    if (mine === 1) this.held.delete(group);
    else this.held.set(group, mine - 1);
    this.total--;
  }
}
