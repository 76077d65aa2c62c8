// Owns one load process of the overload bench: ingest clients posting pre-encoded 20,000-point batches, or plot clients; 503s wait Retry-After, every request has a 30 s timeout.
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { emitResult } from './child-io.js';

/** A user whose token the clients of one tenant share. */
export interface LoadUser {
  readonly username: string;
  readonly apiKey: string;
  readonly tenant: string;
}

/** What one load process does (passed as JSON in argv). */
export interface LoadSpec {
  readonly role: 'ingest' | 'plot';
  readonly url: string;
  readonly users: readonly LoadUser[];
  readonly clients: number;
  /** Global number of this process' first client, so series names differ across processes. */
  readonly firstClient: number;
  readonly durationMs: number;
  /** Metric names the plot clients read (per tenant, the same names). */
  readonly plotMetrics: readonly string[];
}

/** Outcomes of the requests one process started within the run, and the latencies of the answered ones. */
export interface LoadResult {
  readonly role: 'ingest' | 'plot';
  readonly clients: number;
  readonly ok: number;
  readonly shed: number;
  readonly timeouts: number;
  /** Socket errors without any response (connection reset, refused...), by code. */
  readonly errors: Record<string, number>;
  /** Other statuses, by status. */
  readonly otherStatus: Record<string, number>;
  /** Retry-After values seen on 503s, by value. */
  readonly retryAfter: Record<string, number>;
  readonly okMs: number[];
  readonly shedMs: number[];
  /** [seconds into the run the request started, ms it took] of answers slower than SLOW_ANSWER_MS (at most SLOW_KEPT). */
  readonly slow: [number, number][];
  readonly pointsAccepted: number;
  readonly bodyBytes: number;
}

/** Client timeout of the clients. */
export const CLIENT_TIMEOUT_MS = 30_000;
/** Points per ingest batch (the issue: 10,000 to 20,000). */
export const BATCH_POINTS = 20_000;
/** Series each ingest client writes; batches are time-major, BATCH_POINTS / SERIES timestamps each. */
const SERIES_PER_CLIENT = 100;
/** Spacing of one client's timestamps: every batch carries new, recent ones (no duplicate points). */
const POINT_SPACING_MS = 10;
const TIMESTAMPS_PER_BATCH = BATCH_POINTS / SERIES_PER_CLIENT;
/** Digits of a millisecond timestamp until 2286, so the encoded body keeps its length when patched. */
const TIMESTAMP_DIGITS = 13;
/** Pause of a plot client between plots, as a dashboard's panels refresh. */
const PLOT_PAUSE_MS = 500;
/** Extra wait on top of Retry-After, up to this share of it, so refused clients do not return in step. */
const RETRY_JITTER = 0.25;
/** Wait after a connection error before trying again. */
const ERROR_PAUSE_MS = 1_000;
const DAY_MS = 86_400_000;
const TTL_SECONDS = 172_800;

/** Answers slower than this are listed with their start time, to see when a server stalls. */
export const SLOW_ANSWER_MS = 1_000;
const SLOW_KEPT = 500;

type Outcome = { kind: 'status'; status: number; retryAfterS: number; ms: number; startedMs: number } | { kind: 'timeout' } | { kind: 'error'; code: string };

interface Tally {
  ok: number;
  shed: number;
  timeouts: number;
  errors: Record<string, number>;
  otherStatus: Record<string, number>;
  retryAfter: Record<string, number>;
  okMs: number[];
  shedMs: number[];
  slow: [number, number][];
  pointsAccepted: number;
  bodyBytes: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** One request with the client timeout; the answer's body is read and dropped. */
function send(agent: Agent, url: URL, method: string, path: string, token: string, body: Buffer | undefined): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    const headers: Record<string, string | number> = { 'x-auth-token': token };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = body.length;
    }
    let settled = false;
    const finish = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = request({ host: url.hostname, port: url.port, method, path, agent, headers }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => finish({ kind: 'status', status: res.statusCode ?? 0, retryAfterS: Number(res.headers['retry-after'] ?? 1), ms: performance.now() - started, startedMs: started }));
      res.on('error', (error: NodeJS.ErrnoException) => finish({ kind: 'error', code: error.code ?? error.message }));
    });
    const timer = setTimeout(() => {
      finish({ kind: 'timeout' });
      req.destroy();
    }, CLIENT_TIMEOUT_MS);
    // An error after the answer (the server closing while the body was still being written) changes nothing.
    req.on('error', (error: NodeJS.ErrnoException) => finish({ kind: 'error', code: error.code ?? error.message }));
    req.end(body);
  });
}

/** Counts one outcome; returns how long the client waits before its next request. */
function record(tally: Tally, outcome: Outcome, runStartMs: number): number {
  if (outcome.kind === 'status' && outcome.ms > SLOW_ANSWER_MS && tally.slow.length < SLOW_KEPT) {
    tally.slow.push([Math.round((outcome.startedMs - runStartMs) / 100) / 10, Math.round(outcome.ms)]);
  }
  if (outcome.kind === 'timeout') {
    tally.timeouts += 1;
    return 0;
  }
  if (outcome.kind === 'error') {
    bump(tally.errors, outcome.code);
    return ERROR_PAUSE_MS;
  }
  if (outcome.status === 200) {
    tally.ok += 1;
    tally.okMs.push(outcome.ms);
    return 0;
  }
  if (outcome.status === 503) {
    tally.shed += 1;
    tally.shedMs.push(outcome.ms);
    bump(tally.retryAfter, String(outcome.retryAfterS));
    const waitMs = (Number.isFinite(outcome.retryAfterS) ? outcome.retryAfterS : 1) * 1000;
    return waitMs * (1 + Math.random() * RETRY_JITTER);
  }
  bump(tally.otherStatus, String(outcome.status));
  return ERROR_PAUSE_MS;
}

/** One client's batch body with fixed-width timestamps, and where each timestamp's digits are. */
interface Batch {
  readonly body: Buffer;
  /** offsets[j]: byte offsets of timestamp j's digits (one per series). */
  readonly offsets: number[][];
  nextStartMs: number;
}

function encodeBatch(client: number, startMs: number): Batch {
  const parts: string[] = [];
  const offsets: number[][] = Array.from({ length: TIMESTAMPS_PER_BATCH }, () => []);
  let length = 1;
  parts.push('[');
  for (let j = 0; j < TIMESTAMPS_PER_BATCH; j++) {
    for (let s = 0; s < SERIES_PER_CLIENT; s++) {
      const head = `${j + s > 0 ? ',' : ''}{"metricName":"load.c${client}.s${s}","metricValue":${((client * 7 + s * 13 + j) % 1000) / 10},"collectionTime":`;
      (offsets[j] as number[]).push(length + head.length);
      const item = `${head}${String(startMs + j * POINT_SPACING_MS).padStart(TIMESTAMP_DIGITS, '0')},"ttlInSeconds":${TTL_SECONDS}}`;
      parts.push(item);
      length += item.length;
    }
  }
  parts.push(']');
  return { body: Buffer.from(parts.join(''), 'latin1'), offsets, nextStartMs: startMs + TIMESTAMPS_PER_BATCH * POINT_SPACING_MS };
}

/** Rewrites a sent batch's timestamps to the next, later ones (never earlier than a few seconds ago). */
function advance(batch: Batch): void {
  const startMs = Math.max(batch.nextStartMs, Date.now() - TIMESTAMPS_PER_BATCH * POINT_SPACING_MS);
  for (let j = 0; j < TIMESTAMPS_PER_BATCH; j++) {
    const digits = Buffer.from(String(startMs + j * POINT_SPACING_MS).padStart(TIMESTAMP_DIGITS, '0'), 'latin1');
    for (const offset of batch.offsets[j] as number[]) digits.copy(batch.body, offset);
  }
  batch.nextStartMs = startMs + TIMESTAMPS_PER_BATCH * POINT_SPACING_MS;
}

async function tokenOf(url: string, user: LoadUser): Promise<string> {
  const response = await fetch(`${url}/v2.0/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ auth: { 'RAX-KSKEY:apiKeyCredentials': { username: user.username, apiKey: user.apiKey } } }),
  });
  if (!response.ok) throw new Error(`token for ${user.username}: HTTP ${response.status}`);
  return ((await response.json()) as { access: { token: { id: string } } }).access.token.id;
}

async function runClients(spec: LoadSpec, tokens: readonly string[], go: Promise<void>): Promise<Tally> {
  const url = new URL(spec.url);
  const agent = new Agent({ keepAlive: true, maxSockets: spec.clients });
  const tally: Tally = { ok: 0, shed: 0, timeouts: 0, errors: {}, otherStatus: {}, retryAfter: {}, okMs: [], shedMs: [], slow: [], pointsAccepted: 0, bodyBytes: 0 };
  const startMs = Date.now() - 60_000;
  const batches = spec.role === 'ingest' ? Array.from({ length: spec.clients }, (_, c) => encodeBatch(spec.firstClient + c, startMs)) : [];
  process.stdout.write('ready\n');
  await go;
  const runStartMs = performance.now();
  const deadline = runStartMs + spec.durationMs;
  const client = async (c: number): Promise<void> => {
    const user = c % spec.users.length;
    const tenant = (spec.users[user] as LoadUser).tenant;
    const token = tokens[user] as string;
    // Spread the first requests over a second, as clients that were not started in the same instant.
    await sleep(Math.random() * 1000);
    let k = c;
    while (performance.now() < deadline) {
      let outcome: Outcome;
      if (spec.role === 'ingest') {
        const batch = batches[c] as Batch;
        outcome = await send(agent, url, 'POST', `/ingest/v2.0/${tenant}/ingest`, token, batch.body);
        if (outcome.kind === 'status' && outcome.status === 200) {
          tally.pointsAccepted += BATCH_POINTS;
          tally.bodyBytes += batch.body.length;
        }
        // A batch given up on may still have been written: the next one moves on either way.
        if (outcome.kind === 'timeout' || (outcome.kind === 'status' && outcome.status === 200)) advance(batch);
      } else {
        const metric = spec.plotMetrics[k++ % spec.plotMetrics.length] as string;
        const now = Date.now();
        outcome = await send(agent, url, 'GET', `/metrics/v2.0/${tenant}/views/${metric}?from=${now - DAY_MS}&to=${now}&resolution=MIN5&select=average,min,max`, token, undefined);
      }
      const waitMs = record(tally, outcome, runStartMs);
      const pauseMs = spec.role === 'plot' && outcome.kind === 'status' && outcome.status === 200 ? PLOT_PAUSE_MS : waitMs;
      if (pauseMs > 0) await sleep(Math.min(pauseMs, Math.max(0, deadline - performance.now())));
    }
  };
  await Promise.all(Array.from({ length: spec.clients }, (_, c) => client(c)));
  agent.destroy();
  return tally;
}

/** argv: the LoadSpec as JSON. Prints "ready" once its bodies are encoded and its tokens fetched, starts on "go". */
async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as LoadSpec;
  const tokens = await Promise.all(spec.users.map((user) => tokenOf(spec.url, user)));
  const lines = createInterface({ input: process.stdin });
  const go = new Promise<void>((resolve) => {
    lines.on('line', (line) => {
      if (line.trim() === 'go') resolve();
    });
  });
  const tally = await runClients(spec, tokens, go);
  lines.close();
  const result: LoadResult = { role: spec.role, clients: spec.clients, ...tally };
  emitResult(result);
  process.exit(0);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
