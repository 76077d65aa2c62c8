// Owns replay's client of a target server: authentication, keep-alive connections, timeouts and a rate-limited re-auth on a 401.
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { StrataError } from '../core/errors.js';
import { REPLAY_AUTH_BODY_BYTES_MAX, REPLAY_REAUTH_INTERVAL_MS, REPLAY_REQUEST_TIMEOUT_MS } from './replay-limits.js';
import type { RequestOutcome } from './replay-stats.js';

/** Path of the identity API's token route, relative to the target's base URL. */
const TOKENS_PATH = '/v2.0/tokens';

/** Where to replay and as whom. */
export interface TargetOptions {
  /** Base URL of the target, http or https; a path prefix is kept in front of every request path. */
  readonly url: string;
  readonly username: string;
  readonly apiKey: string;
  /** Connections kept open (the agent's maxSockets): the replay's in-flight bound. */
  readonly concurrency: number;
  /** Per-request limit; REPLAY_REQUEST_TIMEOUT_MS unless a test sets it. */
  readonly timeoutMs?: number;
  /** Monotonic microseconds for latencies and the re-auth interval (injected; performance.now by default). */
  readonly nowUs?: () => number;
}

/** One request to send. */
export interface TargetRequest {
  readonly method: string;
  /** Path and query relative to the target's base URL, starting with "/". */
  readonly path: string;
  readonly contentType: string | null;
  readonly body: Uint8Array | null;
}

/** An authenticated target. */
export interface ReplayTarget {
  readonly url: string;
  /** The tenant of the authenticated user (where recorded tenants go by default). */
  readonly tenant: string;
  /** Sends a request; never rejects: failures without a response come back as outcomes with a code. */
  send(request: TargetRequest): Promise<RequestOutcome>;
  /** Closes the kept-alive connections. */
  close(): void;
}

interface RawResponse {
  readonly status: number;
  readonly body: Buffer;
}

interface Connection {
  readonly base: URL;
  readonly agent: http.Agent;
  readonly timeoutMs: number;
}

/** An Error carrying a system-style code (what node:http gives for connection failures). */
function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The code of a connection failure: the system error code when there is one. */
export function failureCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : 'ERROR';
}

/**
 * One HTTP exchange on the kept-alive agent. The body is kept only up to `keepBytes` (the
 * rest is read and dropped, so the connection can be reused); the timer covers the whole exchange.
 */
function exchange(conn: Connection, request: TargetRequest, headers: Record<string, string>, keepBytes: number): Promise<RawResponse> {
  const lib = conn.base.protocol === 'https:' ? https : http;
  const prefix = conn.base.pathname.replace(/\/+$/, '');
  const allHeaders: Record<string, string> = { 'user-agent': 'strata-replay', ...headers };
  if (request.contentType !== null) allHeaders['content-type'] = request.contentType;
  if (request.body !== null) allHeaders['content-length'] = String(request.body.byteLength);
  return new Promise((resolve, reject) => {
    const req = lib.request(
      { protocol: conn.base.protocol, hostname: conn.base.hostname, port: conn.base.port, path: `${prefix}${request.path}`, method: request.method, headers: allHeaders, agent: conn.agent },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept >= keepBytes) return;
          chunks.push(chunk);
          kept += chunk.length;
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) });
        });
        res.on('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
      },
    );
    const timer = setTimeout(() => req.destroy(codedError('TIMEOUT', `no response within ${conn.timeoutMs} ms`)), conn.timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(request.body === null ? undefined : request.body);
  });
}

interface Identity {
  readonly token: string;
  readonly tenant: string;
}

/** The token route's URL as people read it: the base URL (its path prefix kept) + /v2.0/tokens. */
function tokensUrl(base: URL): string {
  return `${base.href.replace(/\/+$/, '')}${TOKENS_PATH}`;
}

function parseIdentity(response: RawResponse, base: URL): Identity {
  // A 404 means the URL is wrong (no identity API there), not that the credentials are.
  if (response.status === 404) {
    throw new StrataError('REPLAY_AUTH_FAILED', `no identity API at ${tokensUrl(base)} (HTTP 404): check --target.`, { status: 404, url: tokensUrl(base) });
  }
  let token: unknown;
  let tenant: unknown;
  try {
    const access = (JSON.parse(response.body.toString('utf8')) as { access?: { token?: { id?: unknown; tenant?: { id?: unknown } } } }).access;
    token = access?.token?.id;
    tenant = access?.token?.tenant?.id;
  } catch {
    // Falls through to the error below: an answer without a token is an authentication failure.
  }
  if (response.status !== 200 || typeof token !== 'string' || typeof tenant !== 'string') {
    throw new StrataError('REPLAY_AUTH_FAILED', `${base.origin} refused the username and API key (status ${response.status}).`, { status: response.status });
  }
  return { token, tenant };
}

async function authenticate(conn: Connection, username: string, apiKey: string): Promise<Identity> {
  const body = Buffer.from(JSON.stringify({ auth: { 'RAX-KSKEY:apiKeyCredentials': { username, apiKey } } }), 'utf8');
  const response = await exchange(conn, { method: 'POST', path: TOKENS_PATH, contentType: 'application/json', body }, { accept: 'application/json' }, REPLAY_AUTH_BODY_BYTES_MAX);
  return parseIdentity(response, conn.base);
}

function parseBase(url: string): URL {
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new StrataError('CONFIG_INVALID', `--target ${JSON.stringify(url)} is not a URL; give e.g. http://127.0.0.1:19000.`, { option: 'target' });
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new StrataError('CONFIG_INVALID', `--target must be an http:// or https:// URL, not ${base.protocol}`, { option: 'target' });
  }
  return base;
}

/**
 * Authenticates against the target and returns a client of it. A target that cannot be reached is
 * REPLAY_TARGET_UNREACHABLE, credentials it refuses REPLAY_AUTH_FAILED: replay cannot start.
 */
export async function connectTarget(options: TargetOptions): Promise<ReplayTarget> {
  const base = parseBase(options.url);
  const agentOptions = { keepAlive: true, maxSockets: options.concurrency };
  const agent = base.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  const conn: Connection = { base, agent, timeoutMs: options.timeoutMs ?? REPLAY_REQUEST_TIMEOUT_MS };
  let identity: Identity;
  try {
    identity = await authenticate(conn, options.username, options.apiKey);
  } catch (error) {
    agent.destroy();
    if (error instanceof StrataError) throw error;
    throw new StrataError('REPLAY_TARGET_UNREACHABLE', `Cannot reach ${base.origin}: ${failureCode(error)} (${(error as Error).message}).`, { address: base.origin, error: failureCode(error) });
  }
  const nowUs = options.nowUs ?? (() => performance.now() * 1000);
  // Several requests may see a 401 at once (the token expired under them): they share one re-auth.
  // A target that keeps answering 401 gets at most one token request per REPLAY_REAUTH_INTERVAL_MS;
  // the requests in between keep their 401 instead of each asking for a token.
  let reauth: Promise<Identity> | undefined;
  let lastReauthUs = Number.NEGATIVE_INFINITY;
  const renew = (stale: Identity): Promise<Identity> | undefined => {
    if (identity !== stale) return Promise.resolve(identity);
    if (reauth !== undefined) return reauth;
    if (nowUs() - lastReauthUs < REPLAY_REAUTH_INTERVAL_MS * 1000) return undefined;
    lastReauthUs = nowUs();
    reauth = authenticate(conn, options.username, options.apiKey).then(
      (fresh) => {
        identity = fresh;
        reauth = undefined;
        return fresh;
      },
      (error: unknown) => {
        reauth = undefined;
        throw error;
      },
    );
    return reauth;
  };
  const attempt = async (request: TargetRequest, used: Identity): Promise<number> => (await exchange(conn, request, { 'x-auth-token': used.token }, 0)).status;
  return {
    url: base.href,
    tenant: identity.tenant,
    async send(request) {
      // Latency runs from the first send: a request that met an expired token took the 401, the re-auth and the retry.
      const startUs = nowUs();
      const answered = (status: number): RequestOutcome => ({ kind: 'response', status, latencyUs: nowUs() - startUs });
      try {
        const used = identity;
        const first = await attempt(request, used);
        if (first !== 401) return answered(first);
        let fresh: Identity | undefined;
        try {
          fresh = await renew(used);
        } catch {
          fresh = undefined;
        }
        return answered(fresh === undefined ? first : await attempt(request, fresh));
      } catch (error) {
        return { kind: 'failure', code: failureCode(error) };
      }
    },
    close() {
      agent.destroy();
    },
  };
}
