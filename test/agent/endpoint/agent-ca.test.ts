// Checks the agent CA directory: first use creates it privately, later loads reuse it, real TLS trusts only its root, due server certificates are renewed, and broken files are refused untouched.
import { X509Certificate } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, type ConnectionOptions } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_CA_DIR_NAME, AGENT_CERT_HOSTS_DEFAULT, exportRootCertificate, loadAgentTls, renewServerCertificate, type AgentTlsMaterial } from '../../../src/agent/endpoint/agent-ca.js';
import { AGENT_CA_FILE_BYTES_MAX, AGENT_SERVER_CERT_RENEW_BEFORE_MS, AGENT_SERVER_CERT_VALIDITY_MS } from '../../../src/agent/agent-limits.js';
import { AssertionFailure } from '../../../src/core/assert.js';
import { ManualClock, systemClock } from '../../../src/core/clock.js';
import { isStrataError } from '../../../src/core/errors.js';

const FILES = ['root.crt', 'root.key', 'server.crt', 'server.key'];
const SERVER_AUTH_OID = '1.3.6.1.5.5.7.3.1';
const dirs: string[] = [];
/** A CA made once (its files copied by tests that change them) and another, unrelated one. */
let template: string;
let templateClock: ManualClock;
let foreign: AgentTlsMaterial;

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'strata-agent-ca-'));
  dirs.push(dir);
  return dir;
}

/** A data directory holding a copy of the template CA. */
function copyOfTemplate(): string {
  const dataDir = tempDir();
  cpSync(join(template, AGENT_CA_DIR_NAME), join(dataDir, AGENT_CA_DIR_NAME), { recursive: true });
  return dataDir;
}

function caPath(dataDir: string, name: string): string {
  return join(dataDir, AGENT_CA_DIR_NAME, name);
}

/** Every entry of the CA directory: a file with its inode, modification time and text (writes rename, so a rewrite changes the inode), a directory by name. */
function snapshot(dataDir: string): Record<string, string> {
  const dir = join(dataDir, AGENT_CA_DIR_NAME);
  const entry = (name: string): [string, string] => {
    const stats = statSync(join(dir, name));
    return [name, stats.isDirectory() ? 'directory' : `${stats.ino}:${stats.mtimeMs}:${readFileSync(join(dir, name), 'utf8')}`];
  };
  return Object.fromEntries(readdirSync(dir).sort().map(entry));
}

function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

/** The code and message of what `work` throws (a StrataError expected). */
function failureOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    return isStrataError(error) ? `${error.code}: ${error.message}` : `not a StrataError: ${String(error)}`;
  }
  return 'no error';
}

/** A TLS server presenting `material` on 127.0.0.1 that greets each client and hangs up. */
async function listen(material: AgentTlsMaterial): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer({ key: material.key, cert: material.cert }, (socket) => socket.end('hello'));
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { port: address.port, close: () => new Promise((done) => server.close(() => done())) };
}

/** Connects trusting only `ca`; the greeting on success, the error code otherwise. */
function handshake(port: number, ca: string, extra: Partial<ConnectionOptions> = {}): Promise<string> {
  return new Promise((done) => {
    const socket = connect({ host: '127.0.0.1', port, ca, rejectUnauthorized: true, ...extra });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => done(socket.authorized ? text : 'unauthorized'));
    socket.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}

beforeAll(() => {
  template = mkdtempSync(join(tmpdir(), 'strata-agent-ca-template-'));
  templateClock = new ManualClock(systemClock.now());
  loadAgentTls({ dataDir: template, hosts: AGENT_CERT_HOSTS_DEFAULT, clock: templateClock });
  foreign = loadAgentTls({ dataDir: undefined, hosts: AGENT_CERT_HOSTS_DEFAULT, clock: templateClock });
});

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(() => rmSync(template, { recursive: true, force: true }));

describe('loadAgentTls on a new data directory', () => {
  it('creates the four files privately and reuses them without rewriting', () => {
    const dataDir = join(tempDir(), 'data');
    const clock = new ManualClock(systemClock.now());
    const first = loadAgentTls({ dataDir, hosts: AGENT_CERT_HOSTS_DEFAULT, clock });
    expect(first).toMatchObject({ created: true, renewed: false });
    expect(readdirSync(dataDir)).toEqual([AGENT_CA_DIR_NAME]);
    expect(readdirSync(join(dataDir, AGENT_CA_DIR_NAME)).sort()).toEqual(FILES);
    expect(modeOf(join(dataDir, AGENT_CA_DIR_NAME))).toBe(0o700);
    expect(FILES.map((name) => modeOf(caPath(dataDir, name)))).toEqual([0o644, 0o600, 0o644, 0o600]);
    expect(readFileSync(caPath(dataDir, 'root.crt'), 'utf8')).toBe(first.rootCert);
    expect(readFileSync(caPath(dataDir, 'server.key'), 'utf8')).toBe(first.key);
    const before = snapshot(dataDir);
    clock.advance(1000);
    const second = loadAgentTls({ dataDir, hosts: AGENT_CERT_HOSTS_DEFAULT, clock });
    expect(second).toEqual({ key: first.key, cert: first.cert, rootCert: first.rootCert, created: false, renewed: false });
    expect(snapshot(dataDir)).toEqual(before);
  });

  it('issues a root CA and a server certificate it signed for every host', () => {
    const material = loadAgentTls({ dataDir: copyOfTemplate(), hosts: AGENT_CERT_HOSTS_DEFAULT, clock: templateClock });
    const root = new X509Certificate(material.rootCert);
    const server = new X509Certificate(material.cert);
    expect(root).toMatchObject({ ca: true, subject: 'CN=Strata agent root CA', issuer: 'CN=Strata agent root CA' });
    expect(server).toMatchObject({ ca: false, subject: 'CN=localhost', issuer: 'CN=Strata agent root CA', keyUsage: [SERVER_AUTH_OID] });
    expect(server.checkIssued(root) && server.verify(root.publicKey)).toBe(true);
    expect([server.checkHost('localhost'), server.checkIP('127.0.0.1'), server.checkIP('::1')]).toEqual(['localhost', '127.0.0.1', '::1']);
    expect(server.checkHost('example.com')).toBeUndefined();
    expect(server.serialNumber).not.toBe(root.serialNumber);
    // X.509 times have whole seconds.
    expect(Math.abs(Date.parse(server.validTo) - (templateClock.now() + AGENT_SERVER_CERT_VALIDITY_MS))).toBeLessThan(1000);
  });

  it('keeps everything in memory without a data directory', () => {
    const cwd = process.cwd();
    const empty = tempDir();
    process.chdir(empty);
    try {
      const material = loadAgentTls({ dataDir: undefined, hosts: ['localhost'], clock: templateClock });
      expect(material).toMatchObject({ created: true, renewed: false });
      expect(new X509Certificate(material.cert).verify(new X509Certificate(material.rootCert).publicKey)).toBe(true);
      expect(material.rootCert).not.toBe(foreign.rootCert);
    } finally {
      process.chdir(cwd);
    }
    expect(readdirSync(empty)).toEqual([]);
  });

  it('refuses hosts that cannot be SANs as a programmer error', () => {
    const dataDir = tempDir();
    expect(() => loadAgentTls({ dataDir, hosts: [], clock: templateClock })).toThrow(AssertionFailure);
    expect(() => loadAgentTls({ dataDir, hosts: ['bad host'], clock: templateClock })).toThrow(AssertionFailure);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe('the agent TLS material over real sockets', () => {
  it('is trusted for 127.0.0.1 and localhost by a client trusting only the root, and refused by one trusting another root', async () => {
    const material = loadAgentTls({ dataDir: copyOfTemplate(), hosts: AGENT_CERT_HOSTS_DEFAULT, clock: templateClock });
    const server = await listen(material);
    try {
      expect(await handshake(server.port, material.rootCert)).toBe('hello');
      expect(await handshake(server.port, material.rootCert, { servername: 'localhost' })).toBe('hello');
      expect(await handshake(server.port, material.rootCert, { servername: 'agent.example.com' })).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
      expect(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN']).toContain(await handshake(server.port, foreign.rootCert));
      expect(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN']).toContain(
        await handshake(server.port, foreign.rootCert, { servername: 'localhost' }),
      );
    } finally {
      await server.close();
    }
  });
});

describe('renewal of the server certificate', () => {
  it('renews it, keeping the root, when the hosts are no longer covered', async () => {
    const dataDir = copyOfTemplate();
    const before = snapshot(dataDir);
    const hosts = [...AGENT_CERT_HOSTS_DEFAULT, 'agent.example.com', '10.1.2.3'];
    const renewed = loadAgentTls({ dataDir, hosts, clock: templateClock });
    expect(renewed).toMatchObject({ created: false, renewed: true });
    const after = snapshot(dataDir);
    expect([after['root.crt'], after['root.key']]).toEqual([before['root.crt'], before['root.key']]);
    expect(after['server.key']).not.toBe(before['server.key']);
    expect(FILES.map((name) => modeOf(caPath(dataDir, name)))).toEqual([0o644, 0o600, 0o644, 0o600]);
    expect(readdirSync(join(dataDir, AGENT_CA_DIR_NAME)).sort()).toEqual(FILES);
    expect(new X509Certificate(renewed.cert).checkHost('agent.example.com')).toBe('agent.example.com');
    expect(loadAgentTls({ dataDir, hosts, clock: templateClock }).renewed).toBe(false);
    // Fewer hosts are still covered: no renewal.
    expect(loadAgentTls({ dataDir, hosts: ['localhost'], clock: templateClock }).renewed).toBe(false);
    const server = await listen(renewed);
    try {
      expect(await handshake(server.port, renewed.rootCert, { servername: 'agent.example.com' })).toBe('hello');
    } finally {
      await server.close();
    }
  });

  it('renews it once it expires within AGENT_SERVER_CERT_RENEW_BEFORE_MS, not before', () => {
    const dataDir = copyOfTemplate();
    const rootBefore = readFileSync(caPath(dataDir, 'root.crt'), 'utf8');
    const expiresMs = Date.parse(new X509Certificate(readFileSync(caPath(dataDir, 'server.crt'))).validTo);
    const clock = new ManualClock(expiresMs - AGENT_SERVER_CERT_RENEW_BEFORE_MS - 1000);
    expect(loadAgentTls({ dataDir, hosts: AGENT_CERT_HOSTS_DEFAULT, clock }).renewed).toBe(false);
    clock.advance(1000);
    const renewed = loadAgentTls({ dataDir, hosts: AGENT_CERT_HOSTS_DEFAULT, clock });
    expect(renewed).toMatchObject({ created: false, renewed: true, rootCert: rootBefore });
    expect(Date.parse(new X509Certificate(renewed.cert).validTo)).toBeGreaterThan(expiresMs);
    expect(loadAgentTls({ dataDir, hosts: AGENT_CERT_HOSTS_DEFAULT, clock }).renewed).toBe(false);
  });

  it('replaces a whole server pair that another root issued', () => {
    const dataDir = copyOfTemplate();
    writeFileSync(caPath(dataDir, 'server.key'), foreign.key);
    writeFileSync(caPath(dataDir, 'server.crt'), foreign.cert);
    const material = loadAgentTls({ dataDir, hosts: AGENT_CERT_HOSTS_DEFAULT, clock: templateClock });
    expect(material.renewed).toBe(true);
    expect(new X509Certificate(material.cert).verify(new X509Certificate(material.rootCert).publicKey)).toBe(true);
  });

  it('renewServerCertificate always issues a new key under the same root, repairing a mismatched pair', () => {
    const dataDir = copyOfTemplate();
    const before = snapshot(dataDir);
    writeFileSync(caPath(dataDir, 'server.key'), foreign.key);
    const material = renewServerCertificate({ dataDir, hosts: ['strata.example.net'], clock: templateClock });
    const after = snapshot(dataDir);
    expect([after['root.crt'], after['root.key']]).toEqual([before['root.crt'], before['root.key']]);
    expect(material.key).not.toBe(foreign.key);
    expect(new X509Certificate(material.cert).subjectAltName).toBe('DNS:strata.example.net');
    expect(loadAgentTls({ dataDir, hosts: ['strata.example.net'], clock: templateClock }).renewed).toBe(false);
  });
});

describe('exportRootCertificate', () => {
  it('creates only the root on a new directory; the first load adds the server pair under it', () => {
    const dataDir = tempDir();
    const pem = exportRootCertificate({ dataDir, clock: templateClock });
    expect(readdirSync(join(dataDir, AGENT_CA_DIR_NAME)).sort()).toEqual(['root.crt', 'root.key']);
    expect(readFileSync(caPath(dataDir, 'root.crt'), 'utf8')).toBe(pem);
    expect(exportRootCertificate({ dataDir, clock: templateClock })).toBe(pem);
    expect(loadAgentTls({ dataDir, hosts: AGENT_CERT_HOSTS_DEFAULT, clock: templateClock })).toMatchObject({ created: false, renewed: true, rootCert: pem });
  });

  it('installs the CA in place of an existing empty directory', () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, AGENT_CA_DIR_NAME), { mode: 0o755 });
    const pem = exportRootCertificate({ dataDir, clock: templateClock });
    expect(readdirSync(dataDir)).toEqual([AGENT_CA_DIR_NAME]);
    expect(modeOf(join(dataDir, AGENT_CA_DIR_NAME))).toBe(0o700);
    expect(readFileSync(caPath(dataDir, 'root.crt'), 'utf8')).toBe(pem);
  });

  it('writes the CA file by file into an existing directory that holds other files', () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, AGENT_CA_DIR_NAME), { mode: 0o700 });
    writeFileSync(join(dataDir, AGENT_CA_DIR_NAME, 'notes.txt'), 'left by an operator');
    const pem = exportRootCertificate({ dataDir, clock: templateClock });
    expect(readdirSync(join(dataDir, AGENT_CA_DIR_NAME)).sort()).toEqual(['notes.txt', 'root.crt', 'root.key']);
    expect(modeOf(caPath(dataDir, 'root.key'))).toBe(0o600);
    expect(readFileSync(caPath(dataDir, 'root.crt'), 'utf8')).toBe(pem);
  });
});

describe('broken CA files', () => {
  const cases: readonly [string, string, (dataDir: string) => void][] = [
    ['server.key of another pair', 'server.key is not the key of server.crt', (d) => writeFileSync(caPath(d, 'server.key'), foreign.key)],
    ['garbage root.crt', 'root.crt is not a PEM certificate', (d) => writeFileSync(caPath(d, 'root.crt'), 'not a certificate')],
    ['garbage server.crt', 'server.crt is not a PEM certificate', (d) => writeFileSync(caPath(d, 'server.crt'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')],
    ['garbage root.key', 'root.key is not an unencrypted PEM private key', (d) => writeFileSync(caPath(d, 'root.key'), 'not a key')],
    ['root.crt of another root', 'root.key is not the key of root.crt', (d) => writeFileSync(caPath(d, 'root.crt'), foreign.rootCert)],
    ['the server pair in place of the root', 'root.crt is not a CA certificate', (d) => {
      cpSync(caPath(d, 'server.crt'), caPath(d, 'root.crt'));
      cpSync(caPath(d, 'server.key'), caPath(d, 'root.key'));
    }],
    ['root.key missing', 'root.key is missing', (d) => rmSync(caPath(d, 'root.key'))],
    ['server.crt missing', 'server.crt is missing', (d) => rmSync(caPath(d, 'server.crt'))],
    ['the root missing beside a server pair', 'root.key and root.crt are missing but server.key and server.crt are present', (d) => ['root.key', 'root.crt'].forEach((name) => rmSync(caPath(d, name)))],
    ['a root.key larger than AGENT_CA_FILE_BYTES_MAX', 'is 65537 bytes', (d) => writeFileSync(caPath(d, 'root.key'), 'x'.repeat(AGENT_CA_FILE_BYTES_MAX + 1))],
    ['a directory named server.key', 'server.key: is not a regular file', (d) => {
      rmSync(caPath(d, 'server.key'));
      mkdirSync(caPath(d, 'server.key'));
    }],
  ];

  it.each(cases)('refuses %s with AGENT_CA_INVALID and changes nothing', (_name, problem, breakIt) => {
    const dataDir = copyOfTemplate();
    breakIt(dataDir);
    const before = snapshot(dataDir);
    const failure = failureOf(() => loadAgentTls({ dataDir, hosts: AGENT_CERT_HOSTS_DEFAULT, clock: templateClock }));
    expect(failure).toMatch(/^AGENT_CA_INVALID: /);
    expect(failure).toContain(problem);
    expect(snapshot(dataDir)).toEqual(before);
  });

  it('refuses an expired root in every operation and never replaces it', () => {
    const dataDir = copyOfTemplate();
    const before = snapshot(dataDir);
    const expiresMs = Date.parse(new X509Certificate(readFileSync(caPath(dataDir, 'root.crt'))).validTo);
    const clock = new ManualClock(expiresMs);
    for (const work of [
      () => loadAgentTls({ dataDir, hosts: AGENT_CERT_HOSTS_DEFAULT, clock }),
      () => renewServerCertificate({ dataDir, hosts: AGENT_CERT_HOSTS_DEFAULT, clock }),
      () => exportRootCertificate({ dataDir, clock }),
    ]) {
      expect(failureOf(work)).toMatch(/^AGENT_CA_INVALID: .*root\.crt expired on /);
    }
    expect(snapshot(dataDir)).toEqual(before);
  });
});
