// Tests the network_interfaces reader: /proc/net/dev counters, /sys/class/net attributes, getifaddrs addresses, the broadcast address, and nulls where a source says nothing.
import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { hostPathsOf } from '../../../src/agent/host-info/host-files.js';
import { broadcastOf, readNetworkInterfaces, sysNumber } from '../../../src/agent/host-info/network-reader.js';
import { PROC_NET_DEV } from '../collectors/proc-fixtures.js';
import { treesRemovedAfterEach } from './host-fixtures.js';

const treeWith = treesRemovedAfterEach();

function v4(address: string, netmask: string): NetworkInterfaceInfo {
  return { address, netmask, family: 'IPv4', mac: '00:00:00:00:00:00', internal: false, cidr: null };
}
function v6(address: string): NetworkInterfaceInfo {
  return { address, netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', mac: '00:00:00:00:00:00', internal: false, cidr: null, scopeid: 0 };
}

describe('readNetworkInterfaces', () => {
  it('joins the counters, the /sys attributes and the first address of each family', async () => {
    const root = treeWith({
      'proc/net/dev': PROC_NET_DEV,
      'sys/class/net/lo/type': '772\n',
      'sys/class/net/lo/mtu': '65536\n',
      'sys/class/net/lo/address': '00:00:00:00:00:00\n',
      'sys/class/net/lo/flags': '0x9\n',
      'sys/class/net/eth0/type': '1\n',
      'sys/class/net/eth0/mtu': '1500\n',
      'sys/class/net/eth0/address': '52:54:00:12:34:56\n',
      'sys/class/net/eth0/flags': '0x1003\n',
    });
    const addresses = { lo: [v4('127.0.0.1', '255.0.0.0'), v6('::1')], eth0: [v6('fe80::5054:ff:fe12:3456'), v4('192.168.95.128', '255.255.255.0'), v4('10.0.0.9', '255.0.0.0')] };
    const { items, total } = await readNetworkInterfaces(hostPathsOf({ procRoot: `${root}/proc`, sysRoot: `${root}/sys`, networkInterfaces: () => addresses }));
    expect(total).toBe(items.length);
    const lo = items.find((item) => item.name === 'lo');
    // Loopback has no IFF_BROADCAST: no broadcast address.
    expect(lo).toMatchObject({ type: 'Local Loopback', address: '127.0.0.1', netmask: '255.0.0.0', broadcast: null, address6: '::1', hwaddr: '00:00:00:00:00:00', mtu: 65536, flags: 9 });
    const eth0 = items.find((item) => item.name === 'eth0');
    expect(eth0).toMatchObject({ type: 'Ethernet', address: '192.168.95.128', netmask: '255.255.255.0', broadcast: '192.168.95.255', address6: 'fe80::5054:ff:fe12:3456', hwaddr: '52:54:00:12:34:56', mtu: 1500, flags: 0x1003 });
    expect(eth0?.rx_bytes).toBeGreaterThan(0);
    expect(Object.keys(eth0 ?? {}).sort()).toEqual(['address', 'address6', 'broadcast', 'flags', 'hwaddr', 'mtu', 'name', 'netmask', 'rx_bytes', 'rx_packets', 'tx_bytes', 'tx_packets', 'type']);
  });

  it('answers null for what /sys and getifaddrs do not give, and rejects without /proc/net/dev', async () => {
    const root = treeWith({ 'proc/net/dev': PROC_NET_DEV, 'sys/class/net/eth0/type': '9999\n', 'sys/class/net/eth0/mtu': 'junk\n', 'sys/class/net/eth0/address': '\n' });
    const { items } = await readNetworkInterfaces(hostPathsOf({ procRoot: `${root}/proc`, sysRoot: `${root}/sys`, networkInterfaces: () => ({}) }));
    expect(items.find((item) => item.name === 'eth0')).toMatchObject({ type: null, address: null, netmask: null, broadcast: null, address6: null, hwaddr: null, mtu: null, flags: null });
    await expect(readNetworkInterfaces(hostPathsOf({ procRoot: `${root}/sys`, networkInterfaces: () => ({}) }))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reads /sys numbers in decimal and 0x hex only', () => {
    expect(sysNumber('1500\n')).toBe(1500);
    expect(sysNumber('0x1003')).toBe(4099);
    for (const text of [undefined, '', '-1', '1e3', '0x', 'ff']) expect(sysNumber(text)).toBeUndefined();
    expect(broadcastOf('10.1.2.3', '255.255.0.0')).toBe('10.1.255.255');
    expect(broadcastOf('10.1.2.3', 'junk')).toBeUndefined();
  });
});
