// Owns the agent endpoint's TLS material in <dataDir>/agent-ca: created on first use, checked on every load, the server certificate renewed when due; the root is never replaced.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { assert } from '../../core/assert.js';
import type { Clock } from '../../core/clock.js';
import { StrataError } from '../../core/errors.js';
import { AGENT_SERVER_CERT_RENEW_BEFORE_MS } from '../agent-limits.js';
import { installCaDirectory, readCaFile, writeCaFile } from './agent-ca-files.js';
import { isCertificateHost, issueRootCertificate, issueServerCertificate, type KeyAndCertificate } from './certificate-issuer.js';

/** The endpoint's TLS material (PEM). */
export interface AgentTlsMaterial {
  readonly key: string;
  readonly cert: string;
  readonly rootCert: string;
}

/** Directory name under the data directory. */
export const AGENT_CA_DIR_NAME = 'agent-ca';

/** Default SAN hosts: localhost, 127.0.0.1, ::1. */
export const AGENT_CERT_HOSTS_DEFAULT: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '::1']);

/** The two files of one key pair in the CA directory. */
interface PairFiles {
  readonly role: 'root' | 'server';
  readonly key: string;
  readonly cert: string;
}

const ROOT_FILES: PairFiles = { role: 'root', key: 'root.key', cert: 'root.crt' };
const SERVER_FILES: PairFiles = { role: 'server', key: 'server.key', cert: 'server.crt' };
/** What an operator can do about a bad file of each pair. */
const REMEDY = {
  root: 'restore root.key and root.crt from a backup, or remove the directory to create a new CA (every agent must then trust the new root)',
  server: 'run `strata agent-ca renew` to issue a new server certificate',
} as const;

function invalid(dir: string, files: PairFiles, problem: string): StrataError {
  return new StrataError('AGENT_CA_INVALID', `${dir}: ${problem}; ${REMEDY[files.role]}.`, {
    path: dir,
    pair: files.role,
    problem,
  });
}

/** The PEM texts of a pair, or undefined when both files are missing; one of the two missing is AGENT_CA_INVALID. */
function readPair(dir: string, files: PairFiles): KeyAndCertificate | undefined {
  const key = readCaFile(dir, files.key);
  const cert = readCaFile(dir, files.cert);
  if (key === undefined && cert === undefined) return undefined;
  if (key === undefined || cert === undefined) throw invalid(dir, files, `${key === undefined ? files.key : files.cert} is missing`);
  return { key, cert };
}

/** Parses a pair and checks that the key is the certificate's (and RSA: node-forge signs with RSA keys only). */
function parsePair(dir: string, files: PairFiles, pair: KeyAndCertificate): X509Certificate {
  let x509: X509Certificate;
  let key: KeyObject;
  try {
    x509 = new X509Certificate(pair.cert);
  } catch (error) {
    throw invalid(dir, files, `${files.cert} is not a PEM certificate (${(error as Error).message})`);
  }
  try {
    key = createPrivateKey(pair.key);
  } catch (error) {
    throw invalid(dir, files, `${files.key} is not an unencrypted PEM private key (${(error as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'rsa') throw invalid(dir, files, `${files.key} is a ${String(key.asymmetricKeyType)} key, not RSA`);
  if (!x509.checkPrivateKey(key)) throw invalid(dir, files, `${files.key} is not the key of ${files.cert}`);
  return x509;
}

function expiresMs(x509: X509Certificate): number {
  return Date.parse(x509.validTo);
}

/** Checks a loaded root: a CA certificate that signed itself and has not expired. */
function checkRoot(dir: string, pair: KeyAndCertificate, nowMs: number): X509Certificate {
  const x509 = parsePair(dir, ROOT_FILES, pair);
  if (!x509.ca) throw invalid(dir, ROOT_FILES, 'root.crt is not a CA certificate');
  if (!x509.checkIssued(x509) || !x509.verify(x509.publicKey)) throw invalid(dir, ROOT_FILES, 'root.crt is not self-signed');
  if (!(expiresMs(x509) > nowMs)) throw invalid(dir, ROOT_FILES, `root.crt expired on ${x509.validTo}`);
  return x509;
}

/** True when `x509` names `host` among its SANs (an address as iPAddress, a name as dNSName). */
function covers(x509: X509Certificate, host: string): boolean {
  return isIP(host) !== 0 ? x509.checkIP(host) !== undefined : x509.checkHost(host, { subject: 'never' }) !== undefined;
}

/** True when the server certificate must be replaced: not issued by the root, expiring soon, or missing a host. */
function serverDue(server: X509Certificate, root: X509Certificate, hosts: readonly string[], nowMs: number): boolean {
  if (!server.checkIssued(root) || !server.verify(root.publicKey)) return true;
  if (!(expiresMs(server) - nowMs > AGENT_SERVER_CERT_RENEW_BEFORE_MS)) return true;
  return !hosts.every((host) => covers(server, host));
}

function assertHosts(hosts: readonly string[]): void {
  assert(hosts.length > 0 && hosts.every(isCertificateHost), `agent certificate hosts must be DNS names or IP addresses (isCertificateHost): ${hosts.join(', ')}`);
}

function material(root: KeyAndCertificate, server: KeyAndCertificate): AgentTlsMaterial {
  return { key: server.key, cert: server.cert, rootCert: root.cert };
}

function writePair(dir: string, files: PairFiles, pair: KeyAndCertificate): void {
  // Key first: a crash between the two renames leaves a pair that does not match, which the next load reports.
  writeCaFile(dir, files.key, pair.key, 'key');
  writeCaFile(dir, files.cert, pair.cert, 'cert');
}

/**
 * The root of `dataDir`, created when both root files are missing (with `server` issued under it in
 * the same step when given). A directory holding a server pair but no root is AGENT_CA_INVALID: its
 * root was lost, and a new one would strand every agent that trusts the old one.
 */
function ensureRoot(
  dataDir: string,
  nowMs: number,
  serverHosts: readonly string[] | undefined,
): { root: KeyAndCertificate; x509: X509Certificate; created: KeyAndCertificate | undefined } {
  const dir = join(dataDir, AGENT_CA_DIR_NAME);
  const loaded = readPair(dir, ROOT_FILES);
  if (loaded !== undefined) return { root: loaded, x509: checkRoot(dir, loaded, nowMs), created: undefined };
  if (readPair(dir, SERVER_FILES) !== undefined) throw invalid(dir, ROOT_FILES, 'root.key and root.crt are missing but server.key and server.crt are present');
  const root = issueRootCertificate(nowMs);
  const server = serverHosts === undefined ? undefined : issueServerCertificate(root, serverHosts, nowMs);
  const files = [
    { name: ROOT_FILES.key, text: root.key, kind: 'key' as const },
    { name: ROOT_FILES.cert, text: root.cert, kind: 'cert' as const },
    ...(server === undefined
      ? []
      : [
          { name: SERVER_FILES.key, text: server.key, kind: 'key' as const },
          { name: SERVER_FILES.cert, text: server.cert, kind: 'cert' as const },
        ]),
  ];
  installCaDirectory(dataDir, AGENT_CA_DIR_NAME, files);
  return { root, x509: new X509Certificate(root.cert), created: server };
}

/** Loads <dataDir>/agent-ca (root.crt, root.key, server.crt, server.key), creating what is missing on first use (dir 0700, keys 0600, certs 0644). A server certificate whose SANs do not cover `hosts`, that expires within 30 days, or that is not issued by the root is replaced (logged by the caller via the returned `renewed`). dataDir undefined: everything in memory. Throws AGENT_CA_INVALID for unreadable/mismatched files (never silently replaces a root). */
export function loadAgentTls(options: {
  dataDir: string | undefined;
  hosts: readonly string[];
  clock: Clock;
}): AgentTlsMaterial & { readonly created: boolean; readonly renewed: boolean } {
  assertHosts(options.hosts);
  const nowMs = options.clock.now();
  if (options.dataDir === undefined) {
    const root = issueRootCertificate(nowMs);
    return { ...material(root, issueServerCertificate(root, options.hosts, nowMs)), created: true, renewed: false };
  }
  const { root, x509: rootX509, created } = ensureRoot(options.dataDir, nowMs, options.hosts);
  if (created !== undefined) return { ...material(root, created), created: true, renewed: false };
  const dir = join(options.dataDir, AGENT_CA_DIR_NAME);
  const server = readPair(dir, SERVER_FILES);
  if (server !== undefined && !serverDue(parsePair(dir, SERVER_FILES, server), rootX509, options.hosts, nowMs)) {
    return { ...material(root, server), created: false, renewed: false };
  }
  const issued = issueServerCertificate(root, options.hosts, nowMs);
  writePair(dir, SERVER_FILES, issued);
  return { ...material(root, issued), created: false, renewed: true };
}

/** Issues a new server certificate under the existing root (new key), writes it; returns the material. The CA is created when the directory holds none. */
export function renewServerCertificate(options: { dataDir: string; hosts: readonly string[]; clock: Clock }): AgentTlsMaterial {
  assertHosts(options.hosts);
  const nowMs = options.clock.now();
  const { root, created } = ensureRoot(options.dataDir, nowMs, options.hosts);
  if (created !== undefined) return material(root, created);
  const issued = issueServerCertificate(root, options.hosts, nowMs);
  writePair(join(options.dataDir, AGENT_CA_DIR_NAME), SERVER_FILES, issued);
  return material(root, issued);
}

/** The root certificate PEM of the data directory (creating the CA when missing). */
export function exportRootCertificate(options: { dataDir: string; clock: Clock }): string {
  return ensureRoot(options.dataDir, options.clock.now(), undefined).root.cert;
}
