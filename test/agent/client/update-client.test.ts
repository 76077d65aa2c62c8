// Checks the agent's update download against a real TLS update server: verified bundles are staged whole, anything wrong stages nothing.
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type TLSSocket } from 'node:tls';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchAndStageUpdate, STAGED_UPDATES_DIR_NAME, type StageUpdateOptions } from '../../../src/agent/client/update-client.js';
import { generateUpdateKeys, signBundle } from '../../../src/agent/update/bundle-signature.js';
import { UpdateStore } from '../../../src/agent/update/update-store.js';
import { StrataError } from '../../../src/core/errors.js';
import { startUpdateTlsServer, throwawayTls, type TestTls, type UpdateTlsServer } from '../update/update-tls-server.js';

const keys = generateUpdateKeys();
const bundle = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 13 + 5) % 256));
let tls: TestTls;
let otherTls: TestTls;
let dataDir: string;
let stateDir: string;
let store: UpdateStore;
let server: UpdateTlsServer | undefined;
const closers: (() => void)[] = [];

beforeAll(() => {
  tls = throwawayTls();
  otherTls = throwawayTls();
});
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'strata-update-data-'));
  stateDir = mkdtempSync(join(tmpdir(), 'strata-update-state-'));
  store = new UpdateStore(dataDir);
  store.publish('stable', '2.0.1', bundle, signBundle(bundle, keys.privateKeyPem));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const close of closers.splice(0)) close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
});

function options(port: number, ca: string, extra: Partial<StageUpdateOptions> = {}): StageUpdateOptions {
  return { source: { host: '127.0.0.1', port, ca }, channel: 'stable', version: '2.0.1', publicKeyPem: keys.publicKeyPem, stateDir, ...extra };
}

async function failure(promise: Promise<unknown>): Promise<StrataError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(StrataError);
    return error as StrataError;
  }
  throw new Error('expected the update to be refused');
}

function staged(): string[] {
  const dir = join(stateDir, STAGED_UPDATES_DIR_NAME);
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** A TLS server that answers every connection with `respond` (raw bytes), for what the update server never sends. */
async function rawServer(respond: (socket: TLSSocket, head: string) => void): Promise<number> {
  const raw = createServer({ key: tls.key, cert: tls.cert }, (socket) => {
    socket.on('error', () => socket.destroy());
    socket.once('data', (chunk: Buffer) => respond(socket, chunk.toString('latin1')));
  });
  const sockets = new Set<TLSSocket>();
  raw.on('secureConnection', (socket: TLSSocket) => sockets.add(socket));
  raw.listen(0, '127.0.0.1');
  await once(raw, 'listening');
  closers.push(() => {
    for (const socket of sockets) socket.destroy();
    raw.close();
  });
  return (raw.address() as AddressInfo).port;
}

describe('fetchAndStageUpdate', () => {
  it('downloads, verifies and stages the bundle and its signature under <stateDir>/updates/<version>', async () => {
    server = await startUpdateTlsServer(store, { tls });
    const path = await fetchAndStageUpdate(options(server.port, tls.rootCert));
    expect(path).toBe(join(stateDir, 'updates', '2.0.1', 'bundle'));
    expect(readFileSync(path).equals(bundle)).toBe(true);
    expect(readFileSync(join(stateDir, 'updates', '2.0.1', 'bundle.sig')).equals(signBundle(bundle, keys.privateKeyPem))).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(stateDir, 'updates', '2.0.1')).mode & 0o777).toBe(0o700);
    expect(staged()).toEqual(['2.0.1']);
    // Staging the same version again replaces it and leaves nothing else behind.
    await fetchAndStageUpdate(options(server.port, tls.rootCert, { source: { host: '127.0.0.1', port: server.port, ca: tls.rootCert, servername: 'localhost' } }));
    expect(staged()).toEqual(['2.0.1']);
  });

  it('stages nothing and throws AGENT_UPDATE_SIGNATURE_INVALID when the served bundle was tampered with', async () => {
    const file = store.filePath('stable', '2.0.1', 'bundle') ?? '';
    const tampered = Buffer.from(bundle);
    tampered[123_456] = (tampered[123_456] ?? 0) ^ 1;
    writeFileSync(file, tampered);
    server = await startUpdateTlsServer(store, { tls });
    const error = await failure(fetchAndStageUpdate(options(server.port, tls.rootCert)));
    expect(error.code).toBe('AGENT_UPDATE_SIGNATURE_INVALID');
    expect(staged()).toEqual([]);
  });

  it('refuses a bundle signed by a key other than the pinned one', async () => {
    server = await startUpdateTlsServer(store, { tls });
    const error = await failure(fetchAndStageUpdate(options(server.port, tls.rootCert, { publicKeyPem: generateUpdateKeys().publicKeyPem })));
    expect(error.code).toBe('AGENT_UPDATE_SIGNATURE_INVALID');
    expect(staged()).toEqual([]);
  });

  it('fails before any download when the pinned key is not a key', async () => {
    const error = await failure(fetchAndStageUpdate(options(1, tls.rootCert, { publicKeyPem: 'nope' })));
    expect(error).toMatchObject({ code: 'AGENT_UPDATE_SIGNATURE_INVALID', details: { reason: 'key_invalid' } });
  });

  it('does not trust a server whose certificate another CA issued, nor one for another name', async () => {
    server = await startUpdateTlsServer(store, { tls });
    const untrusted = await failure(fetchAndStageUpdate(options(server.port, otherTls.rootCert)));
    expect(untrusted).toMatchObject({ code: 'AGENT_UPDATE_UNAVAILABLE', details: { reason: 'network' } });
    const wrongName = await failure(fetchAndStageUpdate(options(server.port, tls.rootCert, { source: { host: '127.0.0.1', port: server.port, ca: tls.rootCert, servername: 'example.com' } })));
    expect(wrongName).toMatchObject({ code: 'AGENT_UPDATE_UNAVAILABLE', details: { reason: 'network', errorCode: 'ERR_TLS_CERT_ALTNAME_INVALID' } });
    expect(staged()).toEqual([]);
  });

  it('refuses a bundle above the size limit by its Content-Length', async () => {
    server = await startUpdateTlsServer(store, { tls });
    const error = await failure(fetchAndStageUpdate(options(server.port, tls.rootCert, { bundleBytesMax: bundle.length - 1 })));
    expect(error).toMatchObject({ code: 'AGENT_UPDATE_UNAVAILABLE', details: { reason: 'too_large' } });
    expect(staged()).toEqual([]);
  });

  it('refuses a body that grows past the limit without a Content-Length', async () => {
    const paths: string[] = [];
    const port = await rawServer((socket, head) => {
      paths.push(head.split(' ')[1] ?? '');
      // The signature is 64 bytes; the "bundle" is 20 chunks of 100, past the 1000 allowed.
      const chunks = head.includes('bundle.sig') ? 1 : 20;
      const chunk = 'A'.repeat(head.includes('bundle.sig') ? 64 : 100);
      socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n');
      for (let i = 0; i < chunks; i += 1) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      socket.end('0\r\n\r\n');
    });
    const error = await failure(fetchAndStageUpdate(options(port, tls.rootCert, { bundleBytesMax: 1_000 })));
    expect(paths).toEqual(['/upgrades/stable/2.0.1/bundle.sig', '/upgrades/stable/2.0.1/bundle']);
    expect(error).toMatchObject({ code: 'AGENT_UPDATE_UNAVAILABLE', details: { reason: 'too_large', bytesMax: 1_000 } });
    expect(staged()).toEqual([]);
  });

  it('reports an unpublished version as not found, and refuses bad names without a request', async () => {
    server = await startUpdateTlsServer(store, { tls });
    expect(await failure(fetchAndStageUpdate(options(server.port, tls.rootCert, { version: '2.0.2' })))).toMatchObject({ code: 'AGENT_UPDATE_UNAVAILABLE', details: { reason: 'not_found' } });
    for (const version of ['../2.0.1', '2.0.1/..', '2.0.1\0']) {
      expect(await failure(fetchAndStageUpdate(options(server.port, tls.rootCert, { version })))).toMatchObject({ details: { reason: 'name_invalid' } });
    }
    expect(await failure(fetchAndStageUpdate(options(server.port, tls.rootCert, { channel: '../stable' })))).toMatchObject({ details: { reason: 'name_invalid' } });
    expect(staged()).toEqual([]);
  });

  it('gives up at its deadline when the server never answers', async () => {
    const port = await rawServer(() => undefined);
    const error = await failure(fetchAndStageUpdate(options(port, tls.rootCert, { timeoutMs: 300 })));
    expect(error).toMatchObject({ code: 'AGENT_UPDATE_UNAVAILABLE', details: { reason: 'timeout' } });
    expect(staged()).toEqual([]);
  });
});
