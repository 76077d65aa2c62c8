// Tests the remote.http probe over TLS against real loopback HTTPS servers with certificates openssl makes for the test:
// certificate verification, SNI and host name checks, and TLS failures as clean unavailable results.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { httpProbe } from '../../../src/monitoring/probes/http-probe.js';
import { ensureProgram } from '../../support/debian-program.js';
import { httpCheck, probeContext, startServer, type TestServer } from './http-probe-harness.js';

/** Set (to the certificate directory) in the nested run that trusts the test CA through NODE_EXTRA_CA_CERTS. */
const TRUSTED_DIR = process.env['STRATA_HTTP_PROBE_TLS_DIR'];
const NESTED_RUN_TIMEOUT_MS = 40_000;
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Makes a CA, and leaf certificates signed by it: valid for localhost and 127.0.0.1, the same but expired, one for another name; and a self-signed one. */
function makeCertificates(dir: string): void {
  ensureProgram('openssl', 'openssl');
  const run = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  run('req', '-x509', ...EC_KEY, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Strata Test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  run('req', ...EC_KEY, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1');
  run('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '2', '-out', 'leaf.pem', '-days', '2', '-copy_extensions', 'copy');
  run('req', ...EC_KEY, '-keyout', 'other.key', '-out', 'other.csr', '-subj', '/CN=other.example.test', '-addext', 'subjectAltName=DNS:other.example.test');
  run('x509', '-req', '-in', 'other.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '3', '-out', 'other.pem', '-days', '2', '-copy_extensions', 'copy');
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '04\n');
  writeFileSync(
    join(dir, 'ca.cnf'),
    '[ ca ]\ndefault_ca = test_ca\n[ test_ca ]\ndatabase = index.txt\nnew_certs_dir = .\nserial = serial\ndefault_md = sha256\npolicy = any\ncopy_extensions = copy\n[ any ]\ncommonName = supplied\n',
  );
  run('ca', '-batch', '-config', 'ca.cnf', '-cert', 'ca.pem', '-keyfile', 'ca.key', '-in', 'leaf.csr', '-out', 'expired.pem', '-startdate', '20200101000000Z', '-enddate', '20210101000000Z', '-notext');
  run('req', '-x509', ...EC_KEY, '-keyout', 'self.key', '-out', 'self.pem', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost');
}

interface TlsServer {
  readonly port: number;
  /** The SNI server names the server saw, one per handshake that sent one. */
  readonly serverNames: string[];
  close(): Promise<void>;
}

/** An HTTPS server on 127.0.0.1 port 0 serving the certificate and key files given, recording SNI names. */
async function startTls(dir: string, cert: string, key: string): Promise<TlsServer> {
  const serverNames: string[] = [];
  const credentials = { cert: readFileSync(join(dir, cert)), key: readFileSync(join(dir, key)) };
  const context = createSecureContext(credentials);
  // Called during the handshake, before the client judges the certificate: it sees the SNI name even when the client refuses.
  const SNICallback = (name: string, done: (error: Error | null, context: SecureContext) => void): void => {
    serverNames.push(name);
    done(null, context);
  };
  const server: Server = createHttpsServer({ ...credentials, SNICallback }, (_req, res) => {
    res.writeHead(200);
    res.end('secure hello');
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    serverNames,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((server) => server.close()));
});

async function tls(dir: string, cert: string, key: string): Promise<TlsServer> {
  const server = await startTls(dir, cert, key);
  opened.push(server);
  return server;
}

/** Runs this file's trusted-CA test again in a process that trusts the test CA (NODE_EXTRA_CA_CERTS is read at start-up only). */
function runTrusted(dir: string): Promise<{ code: number | null; output: string }> {
  const vitest = fileURLToPath(new URL('../../../node_modules/vitest/vitest.mjs', import.meta.url));
  const file = fileURLToPath(import.meta.url);
  const env = { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'), STRATA_HTTP_PROBE_TLS_DIR: dir };
  return new Promise((resolve) => {
    execFile(process.execPath, [vitest, 'run', file, '-t', 'trusted test CA'], { env, timeout: NESTED_RUN_TIMEOUT_MS }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, output: `${stdout}\n${stderr}` });
    });
  });
}

describe('httpProbe over TLS', () => {
  let dir = '';
  beforeAll(() => {
    dir = TRUSTED_DIR ?? mkdtempSync(join(tmpdir(), 'strata-http-probe-tls-'));
    if (TRUSTED_DIR === undefined) makeCertificates(dir);
  }, 300_000);
  afterAll(() => {
    if (TRUSTED_DIR === undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('reports https to a plain HTTP port as a clean TLS failure', async () => {
    const plain: TestServer = await startServer(() => undefined);
    opened.push(plain);
    const outcome = await httpProbe(probeContext(httpCheck({ url: `https://localhost:${plain.port}/` })));
    expect(outcome.available).toBe(false);
    expect(outcome.status).toMatch(/^TLS handshake failed: /);
    expect(outcome.metrics['tt_connect']?.unit).toBe('milliseconds');
  });

  it('refuses a self-signed certificate, after sending the URL host as SNI', async () => {
    const server = await tls(dir, 'self.pem', 'self.key');
    const outcome = await httpProbe(probeContext(httpCheck({ url: `https://localhost:${server.port}/` })));
    expect(outcome.available).toBe(false);
    expect(outcome.status).toBe('self-signed certificate');
    expect(server.serverNames).toEqual(['localhost']);
  });

  it('refuses a certificate whose CA the process does not trust', async () => {
    const server = await tls(dir, 'leaf.pem', 'leaf.key');
    const outcome = await httpProbe(probeContext(httpCheck({ url: `https://localhost:${server.port}/` })));
    expect(outcome.available).toBe(TRUSTED_DIR !== undefined);
    if (TRUSTED_DIR === undefined) expect(outcome.status).toBe('unable to verify the first certificate');
  });

  it('with the trusted test CA: accepts a valid certificate and refuses expired and misnamed ones', async () => {
    if (TRUSTED_DIR === undefined) {
      const nested = await runTrusted(dir);
      expect(nested.output).toMatch(/1 passed/);
      expect(nested.code).toBe(0);
      return;
    }
    const valid = await tls(dir, 'leaf.pem', 'leaf.key');
    const byName = await httpProbe(probeContext(httpCheck({ url: `https://localhost:${valid.port}/`, body: 'secure' })));
    expect(byName.available).toBe(true);
    expect(byName.status).toMatch(/^code=200,rt=\d+\.\d{3}s,bytes=12$/);
    expect(byName.metrics['body_match']?.data).toBe('secure');
    expect(Number(byName.metrics['tt_connect']?.data)).toBeLessThanOrEqual(Number(byName.metrics['tt_firstbyte']?.data));
    const byAddress = await httpProbe(probeContext(httpCheck({ url: `https://127.0.0.1:${valid.port}/` })));
    expect(byAddress.available).toBe(true);
    // An IP address is never sent as SNI; the certificate is then checked against the address.
    expect(valid.serverNames).toEqual(['localhost']);
    const expired = await tls(dir, 'expired.pem', 'leaf.key');
    const late = await httpProbe(probeContext(httpCheck({ url: `https://localhost:${expired.port}/` })));
    expect(late).toMatchObject({ available: false, status: 'certificate has expired' });
    const other = await tls(dir, 'other.pem', 'other.key');
    const misnamed = await httpProbe(probeContext(httpCheck({ url: `https://localhost:${other.port}/` })));
    expect(misnamed.available).toBe(false);
    expect(misnamed.status).toContain("does not match certificate's altnames");
  });
});
