// Owns the benchmark's HTTP client: keep-alive POSTs and GETs of prepared bodies with node:http, nothing else.
import { Agent, request } from 'node:http';

/** A minimal keep-alive client for one server. */
export interface BenchClient {
  /** POSTs a prepared body; resolves with the status once the response has been read. */
  post(path: string, body: Buffer, contentType: string, headers?: Readonly<Record<string, string>>): Promise<number>;
  /** GETs a path; resolves with the status and the body text. */
  get(path: string): Promise<{ status: number; text: string }>;
  close(): void;
}

/** A client of `baseUrl` keeping up to `sockets` connections open, sending `token` on every request. */
export function benchClient(baseUrl: string, token: string, sockets: number): BenchClient {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const send = (method: string, path: string, body: Buffer | undefined, contentType: string | undefined, extra: Readonly<Record<string, string>> = {}): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...extra, 'x-auth-token': token };
      if (body !== undefined) {
        headers['content-type'] = contentType ?? 'application/json';
        headers['content-length'] = body.length;
      }
      const req = request({ host: url.hostname, port: url.port, method, path, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    post: async (path, body, contentType, headers) => (await send('POST', path, body, contentType, headers)).status,
    get: (path) => send('GET', path, undefined, undefined),
    close: () => agent.destroy(),
  };
}
