// Owns starting a real server on an ephemeral port with a temporary data dir and three users, for HTTP tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../src/core/clock.js';
import { systemClock } from '../../src/core/clock.js';
import { openDns } from '../../src/dns/dns-service.js';
import { openFeeds } from '../../src/feeds/feeds-service.js';
import { openIdentity, type IdentityService } from '../../src/identity/identity-service.js';
import type { RuntimeOptions } from '../../src/monitoring/monitoring-runtime.js';
import { openMonitoring } from '../../src/monitoring/monitoring-service.js';
import { createServer, type StrataServer } from '../../src/http/server.js';
import type { ServerConfigInput } from '../../src/http/server-config.js';
import { openStore } from '../../src/store.js';
import type { Store } from '../../src/store-types.js';

/** API keys of the harness users. */
export const KEYS = {
  alice: 'alice-api-key-0123456789', // admin of tenant t1
  olga: 'olga-api-key-0123456789', // observer of tenant t1
  bob: 'bob-api-key-0123456789', // admin of tenant t2
} as const;

/** A running server and what a test needs to talk to it. */
export interface Harness {
  readonly url: string;
  readonly app: StrataServer;
  readonly identity: IdentityService;
  readonly dir: string;
  /** A fresh token for one of the harness users. */
  token(user: keyof typeof KEYS): Promise<string>;
  close(): Promise<void>;
}

/** Options of startHarness. */
export interface HarnessOptions {
  /** The store to serve; built in the data dir by `makeStore`, or a real engine store there, when absent. */
  readonly store?: Store;
  readonly makeStore?: (dir: string) => Promise<Store>;
  readonly config?: ServerConfigInput;
  readonly clock?: Clock;
  /** Settings of the server's monitoring runtime (not started here); its defaults when absent. */
  readonly runtime?: RuntimeOptions;
}

/** Starts a server on 127.0.0.1, port 0, with users alice (t1 admin), olga (t1 observer), bob (t2 admin). */
export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-http-'));
  const clock = options.clock ?? systemClock;
  const makeStore = options.makeStore ?? ((d: string) => openStore({ dir: d, clock, workers: 0, background: false }));
  const store = options.store ?? (await makeStore(dir));
  const identity = openIdentity({ dir, clock });
  identity.createUser({ username: 'alice', tenant: 't1', role: 'admin', apiKey: KEYS.alice });
  identity.createUser({ username: 'olga', tenant: 't1', role: 'observer', apiKey: KEYS.olga });
  identity.createUser({ username: 'bob', tenant: 't2', role: 'admin', apiKey: KEYS.bob });
  const feeds = openFeeds({ dir, clock, region: options.config?.region ?? 'LOCAL' });
  const dns = openDns({ dir, clock });
  const monitoring = openMonitoring({ dir, clock });
  const app = await createServer({ store, identity, feeds, dns, monitoring, clock, ...(options.config ? { config: options.config } : {}), ...(options.runtime ? { runtime: options.runtime } : {}) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = typeof address === 'object' && address !== null ? `http://127.0.0.1:${address.port}` : '';
  return {
    url,
    app,
    identity,
    dir,
    async token(user) {
      const response = await fetch(`${url}/v2.0/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ auth: { 'RAX-KSKEY:apiKeyCredentials': { username: user, apiKey: KEYS[user] } } }),
      });
      const body = (await response.json()) as { access: { token: { id: string } } };
      return body.access.token.id;
    },
    async close() {
      await app.close();
      await store.close();
      identity.close();
      feeds.close();
      dns.close();
      monitoring.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Options of call(). */
export interface CallOptions {
  readonly token?: string;
  /** A JSON-serialisable body (sent as application/json) or raw bytes with `type`. */
  readonly json?: unknown;
  readonly body?: Uint8Array | string;
  readonly type?: string;
  readonly headers?: Record<string, string>;
}

/** A response with its body read as text and, when JSON, parsed. */
export interface CallResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: any;
}

/**
 * `body` as fetch's type takes it under the DOM lib too (tsconfig.test-console.json checks this file through the console
 * tests): views of an ArrayBuffer only. A view of one is re-viewed as such, without a copy; a view of shared memory is copied.
 */
function fetchBody(body: Uint8Array | string): Uint8Array<ArrayBuffer> | string {
  if (typeof body === 'string') return body;
  return body.buffer instanceof ArrayBuffer ? new Uint8Array(body.buffer, body.byteOffset, body.byteLength) : new Uint8Array(body);
}

/** One HTTP request to the harness server. */
export async function call(harness: { url: string }, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers['x-auth-token'] = options.token;
  let body: Uint8Array | string | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  if (options.type !== undefined) headers['content-type'] = options.type;
  const response = await fetch(`${harness.url}${path}`, { method, headers, ...(body !== undefined ? { body: fetchBody(body) } : {}) });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}
