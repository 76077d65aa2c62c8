// Owns the `network_interfaces` host information: counters from /proc/net/dev, link type, MTU, hardware address and flags from /sys/class/net, addresses from getifaddrs.
import type { NetworkInterfaceInfo } from 'node:os';
import { readProcFile } from '../collectors/proc-file.js';
import { parseNetDev, type InterfaceStats } from '../collectors/net-dev.js';
import { cutText, mapBounded, readSmall, under, type HostPaths } from './host-files.js';
import { HOST_INFO_ITEMS_MAX } from './host-info-limits.js';

/** One item of the `network_interfaces` answer; addresses null when the interface has none of that family. */
export interface NetworkInterfaceItem {
  readonly name: string;
  readonly type: string | null;
  readonly address: string | null;
  readonly netmask: string | null;
  readonly broadcast: string | null;
  readonly address6: string | null;
  readonly hwaddr: string | null;
  readonly mtu: number | null;
  /** The kernel's IFF_* bits (/sys/class/net/<name>/flags), not the reference library's own numbering. */
  readonly flags: number | null;
  readonly rx_packets: number;
  readonly rx_bytes: number;
  readonly tx_packets: number;
  readonly tx_bytes: number;
}

/** What /sys/class/net/<name> says of an interface; undefined where a file is missing or not a number. */
export interface LinkAttributes {
  readonly type: number | undefined;
  readonly mtu: number | undefined;
  readonly address: string | undefined;
  readonly flags: number | undefined;
}

/** Link types (ARPHRD_*) by the names ifconfig prints for them. */
const LINK_TYPES: Readonly<Record<number, string>> = {
  1: 'Ethernet',
  24: 'IEEE 1394',
  32: 'InfiniBand',
  512: 'Point-to-Point Protocol',
  768: 'IPIP Tunnel',
  769: 'IPv6-in-IPv6',
  772: 'Local Loopback',
  776: 'IPv6-in-IPv4',
  778: 'IPGRE',
  801: 'IEEE 802.11',
  803: 'IEEE 802.11 radiotap',
  65534: 'UNSPEC',
};
/** IFF_BROADCAST: the interface has a broadcast address. */
const IFF_BROADCAST = 0x2;

/** A dotted IPv4 address as a 32-bit unsigned number, or undefined. */
export function ipv4ToNumber(address: string): number | undefined {
  const parts = address.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255)) return undefined;
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

/** A 32-bit unsigned number as a dotted IPv4 address. */
export function numberToIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** The broadcast address of an address and netmask: the host bits all set. */
export function broadcastOf(address: string, netmask: string): string | undefined {
  const a = ipv4ToNumber(address);
  const m = ipv4ToNumber(netmask);
  if (a === undefined || m === undefined) return undefined;
  return numberToIpv4((a | (~m >>> 0)) >>> 0);
}

function isFamily(info: NetworkInterfaceInfo, family: 4 | 6): boolean {
  // Node 18.0 to 18.3 gave the family as a number.
  const value: unknown = info.family;
  return value === `IPv${family}` || value === family;
}

/** The item of one interface from its counters, its /sys attributes and its getifaddrs entries (first address of each family). */
export function interfaceItem(stats: InterfaceStats, link: LinkAttributes, addresses: readonly NetworkInterfaceInfo[]): NetworkInterfaceItem {
  const v4 = addresses.find((info) => isFamily(info, 4));
  const v6 = addresses.find((info) => isFamily(info, 6));
  const broadcasts = link.flags !== undefined && (link.flags & IFF_BROADCAST) !== 0;
  return {
    name: cutText(stats.name),
    type: link.type === undefined ? null : (LINK_TYPES[link.type] ?? null),
    address: v4?.address ?? null,
    netmask: v4?.netmask ?? null,
    broadcast: v4 !== undefined && broadcasts ? (broadcastOf(v4.address, v4.netmask) ?? null) : null,
    address6: v6?.address ?? null,
    hwaddr: link.address === undefined || link.address === '' ? null : cutText(link.address),
    mtu: link.mtu ?? null,
    flags: link.flags ?? null,
    rx_packets: stats.rxPackets,
    rx_bytes: stats.rxBytes,
    tx_packets: stats.txPackets,
    tx_bytes: stats.txBytes,
  };
}

/** A /sys attribute as a number: decimal, or 0x-prefixed hex (flags). */
export function sysNumber(text: string | undefined): number | undefined {
  const value = text?.trim();
  if (value === undefined) return undefined;
  if (/^\d{1,15}$/.test(value)) return Number(value);
  if (/^0x[0-9a-fA-F]{1,12}$/.test(value)) return Number.parseInt(value.slice(2), 16);
  return undefined;
}

async function linkAttributes(paths: HostPaths, name: string): Promise<LinkAttributes> {
  const read = (file: string): Promise<string | undefined> => readSmall(under(paths.sysRoot, 'class', 'net', name, file));
  const [type, mtu, address, flags] = await Promise.all([read('type'), read('mtu'), read('address'), read('flags')]);
  return { type: sysNumber(type), mtu: sysNumber(mtu), address: address?.trim(), flags: sysNumber(flags) };
}

/** Reads /proc/net/dev (required), each interface's /sys attributes and the addresses (the first HOST_INFO_ITEMS_MAX interfaces). */
export async function readNetworkInterfaces(paths: HostPaths): Promise<{ items: NetworkInterfaceItem[]; total: number }> {
  // parseNetDev keeps names without blanks or '/', so each is one path segment; '.' and '..' are no interface's name.
  const all = parseNetDev((await readProcFile(under(paths.procRoot, 'net', 'dev'))).text).filter((stats) => stats.name !== '.' && stats.name !== '..');
  const addresses = paths.networkInterfaces();
  const items = await mapBounded(all.slice(0, HOST_INFO_ITEMS_MAX), async (stats) => interfaceItem(stats, await linkAttributes(paths, stats.name), addresses[stats.name] ?? []));
  return { items, total: all.length };
}
