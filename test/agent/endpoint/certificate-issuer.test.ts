// Checks the certificates the agent CA issues: every IP address form lands in the SAN the way Node reads it, validity never outlives the root, and names too long for a common name still work.
import { X509Certificate } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_CA_VALIDITY_MS, AGENT_CERT_BACKDATE_MS } from '../../../src/agent/agent-limits.js';
import { issueRootCertificate, issueServerCertificate, type KeyAndCertificate } from '../../../src/agent/endpoint/certificate-issuer.js';
import { AssertionFailure } from '../../../src/core/assert.js';

const START_MS = Date.UTC(2030, 0, 1);
/** X.509 times have whole seconds. */
const SECOND_MS = 1000;
let root: KeyAndCertificate;
let rootX509: X509Certificate;

beforeAll(() => {
  root = issueRootCertificate(START_MS);
  rootX509 = new X509Certificate(root.cert);
});

describe('issueRootCertificate', () => {
  it('makes a self-signed CA valid AGENT_CA_VALIDITY_MS, backdated by AGENT_CERT_BACKDATE_MS', () => {
    expect(rootX509.ca).toBe(true);
    expect(rootX509.checkIssued(rootX509) && rootX509.verify(rootX509.publicKey)).toBe(true);
    expect(Date.parse(rootX509.validFrom)).toBe(START_MS - AGENT_CERT_BACKDATE_MS);
    expect(Date.parse(rootX509.validTo)).toBe(START_MS + AGENT_CA_VALIDITY_MS);
    expect(rootX509.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
  });
});

describe('issueServerCertificate', () => {
  it('puts every generated IPv4 and IPv6 address in the SANs so that Node matches it', () => {
    const addresses = [...fc.sample(fc.ipV6(), { numRuns: 120, seed: 12 }), ...fc.sample(fc.ipV4(), { numRuns: 20, seed: 12 }), '::', '::1', '::ffff:10.0.0.1', '1:2:3:4:5:6:7:8'];
    const server = new X509Certificate(issueServerCertificate(root, addresses, START_MS).cert);
    const unmatched = addresses.filter((ip) => server.checkIP(ip) === undefined);
    expect(unmatched).toEqual([]);
    expect(server.checkIP('10.0.0.2')).toBeUndefined();
    expect(server.subject).toBe(`CN=${addresses[0] as string}`);
  });

  it('never outlives the root, and issues distinct positive serials', () => {
    const lateMs = START_MS + AGENT_CA_VALIDITY_MS - 100 * 24 * 3600 * SECOND_MS;
    const first = new X509Certificate(issueServerCertificate(root, ['localhost'], lateMs).cert);
    const second = new X509Certificate(issueServerCertificate(root, ['localhost'], lateMs).cert);
    expect(first.validTo).toBe(rootX509.validTo);
    expect(first.verify(rootX509.publicKey) && first.checkIssued(rootX509)).toBe(true);
    expect(first.serialNumber).not.toBe(second.serialNumber);
    for (const serial of [first.serialNumber, second.serialNumber]) expect(serial).toMatch(/^[4-7][0-9A-F]{31}$/);
  });

  it('uses a fixed common name when the first host is longer than 64 characters, and lists each host once', () => {
    const long = `${'a'.repeat(60)}.example.com`;
    const server = new X509Certificate(issueServerCertificate(root, [long, long, '127.0.0.1'], START_MS).cert);
    expect(server.subject).toBe('CN=Strata agent endpoint');
    expect(server.subjectAltName).toBe(`DNS:${long}, IP Address:127.0.0.1`);
  });

  it('refuses hosts that are not DNS names or IP addresses', () => {
    for (const hosts of [[], ['*.example.com'], ['fe80::1%eth0'], ['a b'], ['-x.example.com']]) {
      expect(() => issueServerCertificate(root, hosts, START_MS)).toThrow(AssertionFailure);
    }
  });
});
