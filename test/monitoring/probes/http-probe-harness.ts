// Owns the fixtures of the remote.http probe tests: a check, a probe context, and real loopback HTTP servers that record what they receive.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CheckDoc } from '../../../src/monitoring/check-rules.js';
import type { CheckDetails } from '../../../src/monitoring/check-types.js';

/** A remote.http check doc with these details (defaults filled as stored) targeting alias `main`. */
export function httpCheck(details: CheckDetails, overrides: Partial<CheckDoc> = {}): CheckDoc {
  return {
    label: 'probe test',
    type: 'remote.http',
    details: { method: 'GET', follow_redirects: true, include_body: false, ...details },
    monitoring_zones_poll: ['mzA'],
    target_alias: 'main',
    target_hostname: null,
    target_resolver: null,
    period: 60,
    timeout: 30,
    disabled: false,
    metadata: null,
    ...overrides,
  };
}

export { probeContext, type ContextOptions } from './probe-context.js';

/** A request a test server received. */
export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A listening test server. */
export interface TestServer {
  readonly port: number;
  /** `http://<host>:<port><path>` (IPv6 hosts bracketed). */
  url(path?: string, host?: string): string;
  readonly received: Received[];
  close(): Promise<void>;
}

/** A handler that may answer after the request body has been read. */
export type Handler = (req: IncomingMessage, res: ServerResponse, received: Received) => void;

/** Starts an HTTP server on `host` port 0 that records each request (body included) before handing it to `handler`. */
export async function startServer(handler: Handler, host = '127.0.0.1'): Promise<TestServer> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      handler(req, res, entry);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    received,
    url: (path = '/', name = host) => `http://${name.includes(':') ? `[${name}]` : name}:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export { closedPort } from '../../support/closed-ports.js';
