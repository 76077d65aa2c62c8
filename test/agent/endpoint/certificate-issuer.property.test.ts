// Property tests of isCertificateHost: every IP address and DNS name passes, anything with a character a host cannot hold fails.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCertificateHost } from '../../../src/agent/endpoint/certificate-issuer.js';

describe('isCertificateHost', () => {
  it('accepts IPv4 and IPv6 addresses and DNS names', () => {
    fc.assert(fc.property(fc.oneof(fc.ipV4(), fc.ipV6(), fc.domain()), (host) => isCertificateHost(host)));
  });

  it('refuses a host with a character outside letters, digits, dot, colon and hyphen', () => {
    const bad = fc.constantFrom(' ', '%', '*', '/', '_', '@', '\n', 'é', '[');
    fc.assert(
      fc.property(fc.domain(), bad, fc.nat(), (host, char, at) => {
        const index = at % (host.length + 1);
        return !isCertificateHost(host.slice(0, index) + char + host.slice(index));
      }),
    );
  });

  it('refuses empty names, empty or long labels and names over 253 characters', () => {
    for (const host of ['', '.', 'a..b', 'a.', '.a', '-a', 'a-', `${'a'.repeat(64)}.com`, Array.from({ length: 64 }, () => 'abc').join('.')]) {
      expect(isCertificateHost(host)).toBe(false);
    }
    expect(isCertificateHost(`${'a'.repeat(63)}.com`)).toBe(true);
  });
});
