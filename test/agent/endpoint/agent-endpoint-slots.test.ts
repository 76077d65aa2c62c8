// Checks the endpoint's address-bounded pools: the total and per-address maxima, giving slots back, and which addresses count as one.
import { describe, expect, it } from 'vitest';
import { addressGroup, AddressSlots } from '../../../src/agent/endpoint/agent-endpoint-slots.js';

describe('AddressSlots', () => {
  it('refuses a slot beyond the per-address maximum while other addresses still get theirs', () => {
    const slots = new AddressSlots(10, 2);
    expect([slots.take('a'), slots.take('a'), slots.take('a')]).toEqual([true, true, false]);
    expect(slots.take('b')).toBe(true);
    expect(slots.size).toBe(3);
    slots.release('a');
    expect(slots.take('a')).toBe(true);
    expect(slots.take('a')).toBe(false);
  });

  it('refuses every address once the total is held, until a slot is given back', () => {
    const slots = new AddressSlots(3, 2);
    expect([slots.take('a'), slots.take('a'), slots.take('b'), slots.take('c')]).toEqual([true, true, true, false]);
    slots.release('b');
    expect(slots.size).toBe(2);
    expect(slots.take('c')).toBe(true);
  });

  it('treats giving back a slot never taken as a bug', () => {
    const slots = new AddressSlots(3, 2);
    slots.take('a');
    expect(() => slots.release('b')).toThrow(/released only by its holder/);
    slots.release('a');
    expect(() => slots.release('a')).toThrow(/released only by its holder/);
    expect(slots.size).toBe(0);
  });
});

describe('addressGroup', () => {
  it('counts IPv4 addresses as themselves, IPv4-mapped IPv6 ones in their IPv4 form', () => {
    expect(addressGroup('192.0.2.7')).toBe('192.0.2.7');
    expect(addressGroup('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressGroup('192.0.2.8')).not.toBe(addressGroup('192.0.2.7'));
  });

  it('counts IPv6 addresses by their /64, however they are written', () => {
    const group = addressGroup('2001:db8:1:2::5');
    expect(group).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:0db8:0001:0002:ffff:1:2:3')).toBe(group);
    expect(addressGroup('2001:db8:1:2:0:0:0:1%eth0')).toBe(group);
    expect(addressGroup('2001:db8:1:3::5')).not.toBe(group);
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
  });

  it('leaves what is not an IP address as given', () => {
    expect(addressGroup('not-an-address')).toBe('not-an-address');
    expect(addressGroup('')).toBe('');
  });
});
