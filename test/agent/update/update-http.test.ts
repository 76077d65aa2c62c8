// Checks the update HTTP server through a real TLS listener that sniffs HTTP from JSON lines: bundles and signatures are streamed whole, everything else is a JSON error.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as connectTcp, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUpdateHttpServer } from '../../../src/agent/update/update-http.js';
import { UpdateStore } from '../../../src/agent/update/update-store.js';
import { startUpdateTlsServer, throwawayTls, type TestTls, type UpdateTlsServer } from './update-tls-server.js';

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

function answerOf(done: (answer: Answer) => void) {
  return (response: import('node:http').IncomingMessage): void => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => done({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
  };
}

function fetchTls(server: UpdateTlsServer, method: string, path: string): Promise<Answer> {
  return new Promise((done, fail) => {
    const request = httpsRequest({ host: '127.0.0.1', port: server.port, path, method, ca: server.rootCert, rejectUnauthorized: true, agent: false }, answerOf(done));
    request.on('error', fail);
    request.end();
  });
}

let tls: TestTls;
let dataDir: string;
let store: UpdateStore;
let server: UpdateTlsServer | undefined;
const bundle = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7) % 256));
const signature = Buffer.alloc(64, 9);

beforeAll(() => {
  tls = throwawayTls();
});
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'strata-update-http-'));
  store = new UpdateStore(dataDir);
  store.publish('stable', '1.2.3', bundle, signature);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('update HTTP over the endpoint TLS port', () => {
  it('streams a published bundle and its signature with their lengths, and closes the connection', async () => {
    server = await startUpdateTlsServer(store, { tls });
    const got = await fetchTls(server, 'GET', '/upgrades/stable/1.2.3/bundle');
    expect(got.status).toBe(200);
    expect(got.headers['content-length']).toBe(String(bundle.length));
    expect(got.headers['content-type']).toBe('application/octet-stream');
    expect(got.headers.connection).toBe('close');
    expect(got.body.equals(bundle)).toBe(true);
    const sig = await fetchTls(server, 'GET', '/upgrades/stable/1.2.3/bundle.sig');
    expect(sig.body.equals(signature)).toBe(true);
  });

  it('answers HEAD with the length and no body', async () => {
    server = await startUpdateTlsServer(store, { tls });
    const head = await fetchTls(server, 'HEAD', '/upgrades/stable/1.2.3/bundle');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(bundle.length));
    expect(head.body.length).toBe(0);
  });

  it('answers 404 JSON for unpublished versions, other files and other paths', async () => {
    server = await startUpdateTlsServer(store, { tls });
    const missing = await fetchTls(server, 'GET', '/upgrades/stable/1.2.4/bundle');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe('application/json');
    expect(JSON.parse(missing.body.toString())).toMatchObject({ code: 404, type: 'AGENT_UPDATE_UNAVAILABLE' });
    for (const path of ['/upgrades/stable/1.2.3/other', '/', '/upgrades/stable/1.2.3', '/upgrades/stable/1.2.3/bundle/x']) {
      const got = await fetchTls(server, 'GET', path);
      expect(got.status, path).toBe(404);
      expect(JSON.parse(got.body.toString()), path).toMatchObject({ code: 404, type: 'HTTP_ROUTE_NOT_FOUND' });
    }
  });

  it('never serves a file outside the store, whatever the path holds', async () => {
    writeFileSync(join(dataDir, 'bundle'), 'secret');
    server = await startUpdateTlsServer(store, { tls });
    for (const path of ['/upgrades/../../bundle', '/upgrades/stable/..%2F..%2F..%2Fbundle/bundle', '/upgrades/%2e%2e/1.2.3/bundle', '/upgrades/stable/1.2.3%00/bundle', '/upgrades/..%2f../1/bundle']) {
      const got = await fetchTls(server, 'GET', path);
      expect(got.status, path).toBe(404);
      expect(got.body.toString(), path).not.toContain('secret');
    }
  });

  it('refuses to serve a bundle above the size limit', async () => {
    server = await startUpdateTlsServer(store, { tls, bundleBytesMax: bundle.length - 1 });
    const got = await fetchTls(server, 'GET', '/upgrades/stable/1.2.3/bundle');
    expect(got.status).toBe(404);
    expect(JSON.parse(got.body.toString())).toMatchObject({ type: 'AGENT_UPDATE_UNAVAILABLE' });
  });

  it('leaves JSON lines to the protocol (the sniffer does not hand them over)', async () => {
    server = await startUpdateTlsServer(store, { tls });
    const socket = connect({ host: '127.0.0.1', port: server.port, ca: server.rootCert, rejectUnauthorized: true });
    await once(socket, 'secureConnect');
    socket.write('{"v":"1","id":0,"method":"handshake.hello"}\n');
    const [reply] = (await once(socket, 'data')) as [Buffer];
    expect(reply.toString()).toBe('{"not":"http"}\n');
    socket.destroy();
    expect(server.jsonLines).toEqual(['{"v":"1","id":0,"method":"handshake.hello"}']);
  });
});

describe('the update HTTP server on its own', () => {
  it('closes a download that does not read at the download deadline, however long its idle timeout', async () => {
    // Larger than the socket buffers of both ends, so the server is still writing when the deadline comes.
    store.publish('stable', '2.0.0', Buffer.alloc(16 * 1024 * 1024, 7), signature);
    const http = createUpdateHttpServer(store, { downloadTimeoutMs: 300 });
    const serverClosed = new Promise<string>((resolve) => http.once('connection', (socket: Socket) => socket.once('close', () => resolve('closed'))));
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    const client = connectTcp({ host: '127.0.0.1', port: (http.address() as AddressInfo).port });
    try {
      client.on('error', () => undefined);
      // The client never reads: the body sits in the socket buffers and the connection would stay open for the idle timeout.
      client.write('GET /upgrades/stable/2.0.0/bundle HTTP/1.1\r\nHost: agent\r\n\r\n');
      const outcome = await Promise.race([serverClosed, new Promise<string>((resolve) => setTimeout(() => resolve('open'), 5_000))]);
      expect(outcome).toBe('closed');
    } finally {
      client.destroy();
      http.close();
    }
  });

  it('answers 405 with Allow for methods other than GET and HEAD', async () => {
    const http = createUpdateHttpServer(store);
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    try {
      const port = (http.address() as AddressInfo).port;
      const got = await new Promise<Answer>((done, fail) => {
        const request = httpRequest({ host: '127.0.0.1', port, path: '/upgrades/stable/1.2.3/bundle', method: 'POST', agent: false }, answerOf(done));
        request.on('error', fail);
        request.end('x');
      });
      expect(got.status).toBe(405);
      expect(got.headers.allow).toBe('GET, HEAD');
      expect(JSON.parse(got.body.toString())).toMatchObject({ code: 405, type: 'HTTP_METHOD_NOT_ALLOWED' });
    } finally {
      http.close();
    }
  });
});
