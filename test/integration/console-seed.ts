// Owns the data of the console's browser tests: a user, metrics (a sawtooth with distinct levels, search neighbours, thousands of names) and monitoring objects, all through the public CLI and APIs.
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { DEFAULT_GRACE_MS } from '../../src/core/limits.js';
import { LAYOUT } from '../../src/model/resolution.js';
import { call } from '../http/harness.js';
import { base } from './monitoring-client.js';
import { runCli } from './serve-process.js';

/** The sawtooth's sample interval: FULL's assumed one point per 30 s. */
export const SAW_STEP_MS = 30_000;
/** Levels of one sawtooth period: 0..9, each a distinct value. */
export const SAW_LEVELS = 10;
/** Value of level k: 5, 15, ... 95 (never 0, so a missing point cannot pass as a level). */
export const SAW_LEVEL_VALUE = (level: number): number => 10 * level + 5;
/** How far back the sawtooth reaches: within FULL's 2-day retention, so every point is accepted. */
export const SAW_SPAN_MS = 47 * 60 * 60 * 1000;
/** Most metrics of one ingest request sent by these helpers (the API's cap is 100,000 points). */
const INGEST_CHUNK_POINTS = 50_000;
/** Pause between two polls of the server's state. */
const POLL_MS = 250;

/** One point in Blueflood's ingest shape. */
export interface IngestPoint {
  readonly metricName: string;
  readonly metricValue: number;
  readonly collectionTime: number;
  readonly unit?: string;
}

/** Creates a user with `strata user create` on the data dir (before the server opens it). */
export function createUser(dataDir: string, username: string, tenant: string, apiKey: string): void {
  runCli(['user', 'create', '--data', dataDir, '--username', username, '--tenant', tenant, '--api-key', apiKey, '--role', 'admin']);
}

/** The sawtooth's level at time `t` (t on the 30 s grid): rises one level every 30 s, drops after level 9. */
export function sawLevel(t: number): number {
  return Math.floor(t / SAW_STEP_MS) % SAW_LEVELS;
}

/** A sawtooth metric from `nowMs - SAW_SPAN_MS` to `nowMs`, one point every 30 s on the 30 s grid. */
export function sawtooth(metric: string, nowMs: number, unit: string): IngestPoint[] {
  const last = nowMs - (nowMs % SAW_STEP_MS);
  const points: IngestPoint[] = [];
  for (let t = last - SAW_SPAN_MS; t <= last; t += SAW_STEP_MS) points.push({ metricName: metric, metricValue: SAW_LEVEL_VALUE(sawLevel(t)), collectionTime: t, unit });
  return points;
}

/** POSTs points to /ingest/v2.0/{tenant}/ingest (in requests of at most INGEST_CHUNK_POINTS) and expects each accepted whole. */
export async function ingest(url: string, token: string, tenant: string, points: readonly IngestPoint[]): Promise<void> {
  for (let at = 0; at < points.length; at += INGEST_CHUNK_POINTS) {
    const res = await call({ url }, 'POST', `/ingest/v2.0/${tenant}/ingest`, { token, json: points.slice(at, at + INGEST_CHUNK_POINTS) });
    expect(res.status, res.text).toBe(200);
  }
}

/** Polls `probe` until it returns something other than undefined; throws naming `what` after `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** A gauge of the server's /metrics scrape, or undefined when it is not there. */
export async function gauge(url: string, name: string): Promise<number | undefined> {
  const scrape = await call({ url }, 'GET', '/metrics');
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(scrape.text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * Waits until the engine has sealed what it may and rolled it all up: the head holds at most
 * `headPointsMax` points (the windows still within their grace) and the rollup queue is empty,
 * twice in a row; after that a view returns the same values whenever it is asked.
 */
export async function waitSettled(url: string, headPointsMax: number, timeoutMs: number): Promise<void> {
  let calm = 0;
  await until(
    `the head at most ${headPointsMax} points and the rollup queue empty`,
    async () => {
      const head = await gauge(url, 'strata_head_points');
      const queue = await gauge(url, 'strata_rollup_queue_depth');
      calm = head !== undefined && head <= headPointsMax && queue === 0 ? calm + 1 : 0;
      return calm >= 2 ? true : undefined;
    },
    timeoutMs,
  );
}

/** POSTs a monitoring create and returns the new object's id (X-Object-ID), expecting 201. */
export async function create(url: string, token: string, path: string, json: unknown): Promise<string> {
  const res = await call({ url }, 'POST', path, { token, json });
  expect(res.status, `${path}: ${res.text}`).toBe(201);
  const id = res.headers.get('x-object-id');
  expect(id, `${path} answered an X-Object-ID`).toBeTruthy();
  return id as string;
}

/**
 * How many of `points` (written at `nowMs`) may stay in the head once the engine sealed what it
 * may: those of the windows that had not ended grace ago at `nowMs`. Later, fewer stay.
 */
export function headPointsAfterSealing(points: readonly IngestPoint[], nowMs: number): number {
  const windowMs = LAYOUT.FULL.chunkWidthMs;
  const openFrom = Math.floor((nowMs - DEFAULT_GRACE_MS) / windowMs) * windowMs;
  return points.filter((p) => p.collectionTime >= openFrom).length;
}

/** A loopback remote.http check (disabled until the test enables it) polled from one zone. */
export interface MonitoredTree {
  readonly entity: string;
  readonly check: string;
  readonly alarm: string;
}

/** The alarm of the browser test: CRITICAL unless the site answers 200. */
export const CODE_ALARM = "if (metric['code'] != '200') { return new AlarmStatus(CRITICAL); } return new AlarmStatus(OK);";

/**
 * An entity addressed at 127.0.0.1, a remote.http check of `targetUrl` from `zone` (created
 * disabled, so its first run happens once the alarm exists) and the alarm on it, under the
 * tenant's default notification plan; then the check is enabled, which runs it at once.
 */
export async function createMonitoredTree(url: string, token: string, tenant: string, label: string, targetUrl: string, zone: string): Promise<MonitoredTree> {
  const b = base(tenant);
  const entity = await create(url, token, `${b}/entities`, { label, ip_addresses: { web: '127.0.0.1' } });
  const check = await create(url, token, `${b}/entities/${entity}/checks`, {
    label: `${label} site`,
    type: 'remote.http',
    details: { url: targetUrl, method: 'GET' },
    monitoring_zones_poll: [zone],
    target_alias: 'web',
    period: 30,
    timeout: 5,
    disabled: true,
  });
  const alarm = await create(url, token, `${b}/entities/${entity}/alarms`, {
    label: `${label} code`,
    check_id: check,
    notification_plan_id: 'npTechnicalContactsEmail',
    criteria: CODE_ALARM,
  });
  const enable = await call({ url }, 'PUT', `${b}/entities/${entity}/checks/${check}`, { token, json: { disabled: false } });
  expect(enable.status, enable.text).toBe(204);
  return { entity, check, alarm };
}

/** Creates `count` entities labelled by `labelOf(i)` with at most `concurrency` requests in flight; returns their ids in order. */
export async function createEntities(url: string, token: string, tenant: string, count: number, concurrency: number, labelOf: (i: number) => string): Promise<string[]> {
  const ids: string[] = new Array<string>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) ids[i] = await create(url, token, `${base(tenant)}/entities`, { label: labelOf(i) });
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ids;
}

/** A loopback HTTP target for a remote.http check: answers `status` (200 until a test flips it) to every request. */
export class LoopbackTarget {
  status = 200;
  private readonly server: Server = createHttpServer((request, response) => {
    request.resume();
    response.writeHead(this.status, { 'content-type': 'text/plain' }).end(this.status === 200 ? 'healthy' : 'broken');
  });

  /** Listens on a free port of 127.0.0.1; resolves with the URL a check should poll. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/health`;
  }

  /** Closes its connections and stops listening. */
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
