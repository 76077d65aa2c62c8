// Owns issuing the agent CA's certificates with node-forge: the self-signed root and the endpoint's server certificates under it (RSA-2048 keys, SHA-256 signatures).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';
import { assert } from '../../core/assert.js';
import { AGENT_CA_VALIDITY_MS, AGENT_CERT_BACKDATE_MS, AGENT_SERVER_CERT_VALIDITY_MS } from '../agent-limits.js';

/** A private key (PKCS#8 PEM) and its certificate (PEM). */
export interface KeyAndCertificate {
  readonly key: string;
  readonly cert: string;
}

/** Common name of every root the endpoint creates. */
export const AGENT_ROOT_COMMON_NAME = 'Strata agent root CA';
/** Common name of a server certificate whose first host is too long for a common name (SANs are what clients check). */
const SERVER_COMMON_NAME_FALLBACK = 'Strata agent endpoint';
/** X.509's upper bound of a common name (ub-common-name). */
const COMMON_NAME_LENGTH_MAX = 64;
/** RSA modulus of every key: what every TLS client accepts, and fast enough to create at first start. */
const RSA_MODULUS_BITS = 2048;
/** Serial numbers are 16 random bytes (CA/Browser Forum asks for at least 64 random bits). */
const SERIAL_BYTES = 16;
/** A DNS name: dot-separated labels of letters, digits and inner hyphens, at most 253 characters. */
const DNS_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
/** subjectAltName GeneralName tags (RFC 5280): dNSName and iPAddress. */
const ALT_NAME_DNS = 2;
const ALT_NAME_IP = 7;

/** True when `text` can be a SAN of the server certificate: an IPv4 or IPv6 address (no zone) or a DNS name without wildcard. */
export function isCertificateHost(text: string): boolean {
  if (text.includes('%')) return false;
  return isIP(text) !== 0 || DNS_NAME.test(text);
}

/** The 4 or 16 bytes of an IP address that isIP accepts (IPv6 may compress zeros and end in dotted IPv4). */
function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = ipBytes(tail);
    text = `${text.slice(0, lastColon + 1)}${v4.readUInt16BE(0).toString(16)}:${v4.readUInt16BE(2).toString(16)}`;
  }
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const [head = '', rest] = text.split('::');
  const before = groups(head);
  const after = rest === undefined ? [] : groups(rest);
  const all = [...before, ...new Array<string>(8 - before.length - after.length).fill('0'), ...after];
  const bytes = Buffer.alloc(16);
  all.forEach((group, index) => bytes.writeUInt16BE(Number.parseInt(group, 16), index * 2));
  return bytes;
}

/** A positive serial number in hex whose first byte is 0x40..0x7f, so its DER encoding is minimal and never negative. */
function serialHex(): string {
  const bytes = randomBytes(SERIAL_BYTES);
  bytes[0] = ((bytes[0] as number) & 0x7f) | 0x40;
  return bytes.toString('hex');
}

function newRsaKeys(): { privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: RSA_MODULUS_BITS,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { privatePem: privateKey, publicPem: publicKey };
}

function newCertificate(publicPem: string, notBeforeMs: number, notAfterMs: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicPem);
  cert.serialNumber = serialHex();
  cert.validity.notBefore = new Date(notBeforeMs);
  cert.validity.notAfter = new Date(notAfterMs);
  return cert;
}

/** A new self-signed root: CA with path length 0 (it signs server certificates only), valid AGENT_CA_VALIDITY_MS from `nowMs`. */
export function issueRootCertificate(nowMs: number): KeyAndCertificate {
  const keys = newRsaKeys();
  const cert = newCertificate(keys.publicPem, nowMs - AGENT_CERT_BACKDATE_MS, nowMs + AGENT_CA_VALIDITY_MS);
  const name = [{ name: 'commonName', value: AGENT_ROOT_COMMON_NAME }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keys.privatePem), forge.md.sha256.create());
  return { key: keys.privatePem, cert: forge.pki.certificateToPem(cert) };
}

/** The root's subjectKeyIdentifier bytes (computed from its key when the extension is absent), for the server's authorityKeyIdentifier. */
function keyIdentifierOf(root: forge.pki.Certificate): string {
  const extension = root.getExtension('subjectKeyIdentifier') as { subjectKeyIdentifier?: string } | undefined;
  if (extension?.subjectKeyIdentifier !== undefined) return forge.util.hexToBytes(extension.subjectKeyIdentifier);
  return root.generateSubjectKeyIdentifier().getBytes();
}

/**
 * A new server certificate (new key) under `root` for `hosts` (each passes isCertificateHost; the first
 * is the common name): SANs dNSName or iPAddress, serverAuth, valid AGENT_SERVER_CERT_VALIDITY_MS from
 * `nowMs` but never past the root. The root's key must be RSA (node-forge signs with RSA only).
 */
export function issueServerCertificate(root: KeyAndCertificate, hosts: readonly string[], nowMs: number): KeyAndCertificate {
  assert(hosts.length > 0 && hosts.every(isCertificateHost), `server certificate hosts must be DNS names or IP addresses: ${hosts.join(', ')}`);
  const rootCert = forge.pki.certificateFromPem(root.cert);
  const keys = newRsaKeys();
  const notAfterMs = Math.min(nowMs + AGENT_SERVER_CERT_VALIDITY_MS, rootCert.validity.notAfter.getTime());
  const cert = newCertificate(keys.publicPem, nowMs - AGENT_CERT_BACKDATE_MS, notAfterMs);
  const first = hosts[0] as string;
  cert.setSubject([{ name: 'commonName', value: first.length <= COMMON_NAME_LENGTH_MAX ? first : SERVER_COMMON_NAME_FALLBACK }]);
  cert.setIssuer(rootCert.subject.attributes);
  const altNames = [...new Set(hosts)].map((host) =>
    isIP(host) !== 0 ? { type: ALT_NAME_IP, value: ipBytes(host).toString('latin1') } : { type: ALT_NAME_DNS, value: host },
  );
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: keyIdentifierOf(rootCert) },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(root.key), forge.md.sha256.create());
  return { key: keys.privatePem, cert: forge.pki.certificateToPem(cert) };
}
