// Owns a tiny Prometheus scrape target for the end-to-end tests: a loopback HTTP server whose exposition text the test writes.
import { createServer, type Server } from 'node:http';

/** A running scrape target. */
export interface ScrapeTarget {
  /** `127.0.0.1:PORT`, as a Prometheus static target (and its `instance` label). */
  readonly hostPort: string;
  /** How many times `/metrics` was served. */
  scrapes(): number;
  close(): Promise<void>;
}

/**
 * Serves `render(scrapeIndex)` (Prometheus text format 0.0.4) on `GET /metrics` at 127.0.0.1 on a
 * free port; the index counts from 0, so the test knows every value it handed out.
 */
export async function startScrapeTarget(render: (scrapeIndex: number) => string): Promise<ScrapeTarget> {
  let served = 0;
  const server: Server = createServer((request, response) => {
    if (request.url !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    const text = render(served++);
    response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    hostPort: `127.0.0.1:${port}`,
    scrapes: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A scraper keeps its connection alive; close it so close() does not wait for the scraper.
        server.closeAllConnections();
      }),
  };
}
