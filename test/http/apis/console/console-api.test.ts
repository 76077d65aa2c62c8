// Tests serving the web console in process (inject) from a fixture build: types, cache and security headers, ETags, no token, traversal refused, 405s, and CONSOLE_NOT_BUILT.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { CONSOLE_CSP, CONSOLE_RELOAD_INTERVAL_MS } from '../../../../src/http/apis/console/console-api.js';
import { CONSOLE_ASSET_FILES_MAX } from '../../../../src/http/http-limits.js';
import { startHarness, type Harness } from '../../harness.js';
import { expectMetricsError, inject, type Injected } from '../../inject.js';
import { INDEX_HTML, MAP_TEXT, makeConsoleFixture, SCRIPT, SCRIPT_MAP, SCRIPT_TEXT, SECRET, STYLE, STYLE_TEXT, type ConsoleFixture } from './console-fixture.js';

const START_MS = Date.UTC(2026, 0, 1, 12);
/** What a browser sends when it loads a page. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const STRONG_ETAG = /^"[A-Za-z0-9_-]{16,}"$/;

/** One GET over a socket with the path exactly as given (Node's client sends it unnormalized). */
function rawGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpGet({ host: '127.0.0.1', port, path }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** The headers every console answer carries, whatever its status. */
function expectSecurityHeaders(res: Injected): void {
  expect(res.headers['content-security-policy']).toBe(
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  );
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
}

describe('the web console (in process)', () => {
  let fixture: ConsoleFixture;
  let h: Harness;

  beforeAll(async () => {
    fixture = makeConsoleFixture();
    h = await startHarness({ clock: new ManualClock(START_MS), config: { consoleDir: fixture.dir } });
  });
  afterAll(async () => {
    await h.close();
    fixture.remove();
  });

  it('serves index.html at / without a token, revalidated on every load, with the security headers', async () => {
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    const headerSets: Record<string, string>[] = [{}, { 'x-auth-token': 'not-a-token' }, { accept: BROWSER_ACCEPT }, { accept: 'application/json' }];
    for (const headers of headerSets) {
      const res = await inject(h, 'GET', '/', { headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toBe(INDEX_HTML);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(String(res.headers['etag'])).toMatch(STRONG_ETAG);
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(INDEX_HTML));
      expectSecurityHeaders(res);
    }
    expect((await inject(h, 'GET', '/?from=bookmark')).text).toBe(INDEX_HTML);
  });

  it.each([
    [SCRIPT, 'text/javascript; charset=utf-8', SCRIPT_TEXT],
    [STYLE, 'text/css; charset=utf-8', STYLE_TEXT],
    [SCRIPT_MAP, 'application/json; charset=utf-8', MAP_TEXT],
  ])('serves /assets/%s as %s, cached for good', async (name, type, text) => {
    const res = await inject(h, 'GET', `/assets/${name}`, { accept: '*/*' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.text).toBe(text);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(String(res.headers['etag'])).toMatch(STRONG_ETAG);
    expectSecurityHeaders(res);
  });

  it('gives each file its own ETag, the same on every request', async () => {
    const tags = await Promise.all(['/', `/assets/${SCRIPT}`, `/assets/${STYLE}`, '/'].map(async (url) => String((await inject(h, 'GET', url)).headers['etag'])));
    expect(new Set(tags).size).toBe(3);
    expect(tags[0]).toBe(tags[3]);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    for (const [url, length] of [['/', Buffer.byteLength(INDEX_HTML)], [`/assets/${SCRIPT}`, Buffer.byteLength(SCRIPT_TEXT)]] as const) {
      const get = await inject(h, 'GET', url);
      const head = await inject(h, 'HEAD', url);
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect(Number(head.headers['content-length'])).toBe(length);
      for (const name of ['content-type', 'etag', 'cache-control']) expect(head.headers[name], name).toBe(get.headers[name]);
      expectSecurityHeaders(head);
    }
  });

  it('answers a conditional GET or HEAD with 304 when the client has the current file', async () => {
    for (const url of ['/', `/assets/${SCRIPT}`]) {
      const etag = String((await inject(h, 'GET', url)).headers['etag']);
      for (const condition of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        for (const method of ['GET', 'HEAD'] as const) {
          const res = await inject(h, method, url, { headers: { 'if-none-match': condition } });
          expect(res.status, `${method} ${url} If-None-Match: ${condition}`).toBe(304);
          expect(res.text).toBe('');
          expect(res.headers['etag']).toBe(etag);
          expect(res.headers['cache-control']).toBe(url === '/' ? 'no-cache' : 'public, max-age=31536000, immutable');
          expectSecurityHeaders(res);
        }
      }
      for (const condition of ['"other"', etag.slice(0, -2) + '"', `W/"x"`, '']) {
        const res = await inject(h, 'GET', url, { headers: { 'if-none-match': condition } });
        expect(res.status, `If-None-Match: ${condition}`).toBe(200);
        expect(res.text.length).toBeGreaterThan(0);
      }
    }
  });

  it('answers 404 in the default error shape for a file the build does not have, not to be cached', async () => {
    const res = await inject(h, 'GET', '/assets/missing-ZZZZ9999.js', { accept: '*/*' });
    expectMetricsError(res, 404, 'HTTP_ROUTE_NOT_FOUND');
    expect(res.json.message).toBe('No resource at GET /assets/missing-ZZZZ9999.js.');
    expect(res.headers['cache-control']).toBe('no-store');
    expectSecurityHeaders(res);
    expectMetricsError(await inject(h, 'GET', '/index.html'), 404, 'HTTP_ROUTE_NOT_FOUND');
  });

  /** Paths whose dot segments a URL parser resolves within the site (`/assets/..` is `/`); sent raw below. */
  const DOT_SEGMENT_PATHS = ['/assets/..', '/assets/%2e%2e', '/assets/%2E%2e', '/assets/../../secret.js', '/assets/%2e%2e/%2e%2e/secret.js', '/assets/./../secret.js'];

  it.each([
    '/assets/../secret.js',
    '/assets/..%2fsecret.js',
    '/assets/..%2Fpackage.json',
    '/assets/%2e%2e%2fsecret.js',
    '/assets/%2e%2e/secret.js',
    '/assets/%2E%2E%2F%2E%2E%2Fsecret.js',
    '/assets/..%5csecret.js',
    '/assets/%252e%252e%252fsecret.js',
    '/assets/.',
    '/assets/%2Fetc%2Fpasswd',
    '/assets//etc/passwd',
    `/assets/${encodeURIComponent(join(tmpdir(), 'secret.js'))}`,
    '/assets/%00',
    `/assets/${SCRIPT}%00`,
    `/assets/${SCRIPT}%00.map`,
    `/assets/%00${SCRIPT}`,
    '/assets/.hidden.js',
    '/assets/notes.txt',
    '/assets/link-CCCC3333.js',
    '/assets/sub/x.js',
    '/assets/sub%2fx.js',
    '/assets/sub%2Fx.js',
    '/assets/__proto__',
    '/assets/constructor',
    '/../secret.js',
    '/%2e%2e/secret.js',
    '/%2e%2e%2fsecret.js',
    '/..%2f..%2fpackage.json',
    '/assets',
    '/assets/',
  ])('refuses %s with a 4xx in the default error shape, never a file outside the build', async (url) => {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await inject(h, method, url);
      expect(res.status, `${method} ${url}: ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.text).not.toContain(SECRET);
      if (method === 'GET') {
        expect(['HTTP_ROUTE_NOT_FOUND', 'HTTP_REQUEST_INVALID']).toContain(res.json?.details?.code);
        expectMetricsError(res, res.status, res.json.details.code);
      }
    }
  });

  it('answers dot-segment paths sent unnormalized over a socket with 404, never a file outside the build', async () => {
    const { port } = new URL(h.url);
    for (const path of [...DOT_SEGMENT_PATHS, '/assets/..%2f..%2fsecret.js', '/assets/%2e%2e%2f%2e%2e%2fpackage.json', '/../../secret.js']) {
      const { status, body } = await rawGet(Number(port), path);
      expect(body, path).not.toContain(SECRET);
      expect(status, path).toBe(404);
    }
    // Through inject, the URL parser has already resolved them: still the page or a 4xx, never a secret.
    for (const path of DOT_SEGMENT_PATHS) {
      const res = await inject(h, 'GET', path);
      expect(res.text, path).not.toContain(SECRET);
      expect([200, 404], path).toContain(res.status);
    }
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const)('answers %s with 405 and Allow: GET, HEAD, in the default error shape', async (method) => {
    for (const url of ['/', `/assets/${SCRIPT}`, '/assets/missing.js']) {
      const res = await inject(h, method, url, { json: {} });
      expectMetricsError(res, 405, 'HTTP_METHOD_NOT_ALLOWED', { allow: 'GET, HEAD' });
      expect(res.headers['cache-control']).toBe('no-store');
      expectSecurityHeaders(res);
    }
  });

  it('lists GET / and GET /assets/{name} in /openapi.json under the console tag, public, and no other method', async () => {
    const doc = (await inject(h, 'GET', '/openapi.json')).json as { paths: Record<string, Record<string, { tags?: string[]; security?: unknown }>> };
    for (const path of ['/', '/assets/{name}']) {
      expect(Object.keys(doc.paths[path] ?? {}), path).toEqual(['get']);
      expect(doc.paths[path]?.['get']?.tags).toEqual(['console']);
      expect(doc.paths[path]?.['get']?.security).toBeUndefined();
    }
  });
});

describe('the web console before it is built (in process)', () => {
  let root: string;
  let clock: ManualClock;
  let h: Harness;
  const consoleDir = (): string => join(root, 'console');

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'strata-console-unbuilt-'));
    clock = new ManualClock(START_MS);
    h = await startHarness({ clock, config: { consoleDir: consoleDir() } });
  });
  afterAll(async () => {
    await h.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers 503 CONSOLE_NOT_BUILT in the default error shape, saying to run npm run build, with Retry-After', async () => {
    for (const url of ['/', `/assets/${SCRIPT}`]) {
      const res = await inject(h, 'GET', url, { accept: BROWSER_ACCEPT });
      expectMetricsError(res, 503, 'CONSOLE_NOT_BUILT');
      expect(res.json.message).toContain('npm run build');
      expect(res.json.message).not.toContain(root);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.headers['cache-control']).toBe('no-store');
      expectSecurityHeaders(res);
    }
    const head = await inject(h, 'HEAD', '/');
    expect(head.status).toBe(503);
    expect(head.text).toBe('');
    // The rest of the server is unaffected.
    expect((await inject(h, 'GET', '/healthz')).status).toBe(200);
  });

  it('remembers a build that failed to load for CONSOLE_RELOAD_INTERVAL_MS, then reads the disk again', async () => {
    // Over the file limit: the load throws CONFIG_INVALID.
    mkdirSync(join(consoleDir(), 'assets'), { recursive: true });
    writeFileSync(join(consoleDir(), 'index.html'), INDEX_HTML);
    const extra = Array.from({ length: CONSOLE_ASSET_FILES_MAX + 1 }, (_, i) => join(consoleDir(), 'assets', `extra-${String(i).padStart(8, '0')}.js`));
    for (const path of extra) writeFileSync(path, '1');
    clock.advance(CONSOLE_RELOAD_INTERVAL_MS);
    const failed = await inject(h, 'GET', '/');
    expect(failed.status).toBeGreaterThanOrEqual(400);
    expect(failed.json.details?.code ?? failed.json.code).toBe('CONFIG_INVALID');
    // Fixed on disk, but not read again until the interval passed: the same error, without a disk read per request.
    for (const path of extra) rmSync(path);
    writeFileSync(join(consoleDir(), 'assets', SCRIPT), SCRIPT_TEXT);
    clock.advance(CONSOLE_RELOAD_INTERVAL_MS - 1);
    const remembered = await inject(h, 'GET', '/');
    expect(remembered.status).toBe(failed.status);
    expect(remembered.json).toMatchObject({ message: failed.json.message });
    clock.advance(1);
    const res = await inject(h, 'GET', '/');
    expect(res.status).toBe(200);
    expect(res.text).toBe(INDEX_HTML);
    expect((await inject(h, 'GET', `/assets/${SCRIPT}`)).text).toBe(SCRIPT_TEXT);
    // Read once: a later change on disk is not served until the server restarts.
    writeFileSync(join(consoleDir(), 'index.html'), 'changed');
    clock.advance(CONSOLE_RELOAD_INTERVAL_MS);
    expect((await inject(h, 'GET', '/')).text).toBe(INDEX_HTML);
  });
});

describe('a console built after the server started (in process)', () => {
  let root: string;
  let clock: ManualClock;
  let h: Harness;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'strata-console-late-'));
    clock = new ManualClock(START_MS);
    h = await startHarness({ clock, config: { consoleDir: join(root, 'console') } });
  });
  afterAll(async () => {
    await h.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('is served once CONSOLE_RELOAD_INTERVAL_MS passed since the last look, not before', async () => {
    expectMetricsError(await inject(h, 'GET', '/'), 503, 'CONSOLE_NOT_BUILT');
    mkdirSync(join(root, 'console', 'assets'), { recursive: true });
    writeFileSync(join(root, 'console', 'assets', SCRIPT), SCRIPT_TEXT);
    writeFileSync(join(root, 'console', 'index.html'), INDEX_HTML);
    clock.advance(CONSOLE_RELOAD_INTERVAL_MS - 1);
    expectMetricsError(await inject(h, 'GET', '/'), 503, 'CONSOLE_NOT_BUILT');
    clock.advance(1);
    expect(await inject(h, 'GET', '/')).toMatchObject({ status: 200, text: INDEX_HTML });
  });
});
