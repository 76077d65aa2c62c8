// Owns the world of the monitoring runtime's integration tests: a real server with its runtime started, a loopback HTTP target that goes down and up, a real webhook receiver, and alarms on HTTP checks of that target.
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { CHECK_PERIOD_S_MAX } from '../../src/monitoring/monitoring-limits.js';
import type { RuntimeOptions } from '../../src/monitoring/monitoring-runtime.js';
import { call, startHarness, type Harness, type KEYS } from '../http/harness.js';
import { base, create } from './monitoring-client.js';
import { until } from './poll-until.js';

/** The tenant of the world's user alice, where its alarms live. */
export const WORLD_TENANT = 't1';

/** A loopback HTTP server answering 200 "healthy", that can be stopped and started again on the same port; it counts what it answered. */
export class LoopbackTarget {
  private server: Server | undefined;
  port = 0;
  /** Requests answered so far. */
  requests = 0;
  /** Their paths, in order. */
  readonly paths: string[] = [];

  /** Starts listening (on the port it had, once it had one). */
  async up(): Promise<void> {
    this.server = createHttpServer((request, response) => {
      this.requests++;
      this.paths.push(request.url ?? '');
      request.resume();
      response.writeHead(200, { 'content-type': 'text/plain' }).end('healthy');
    });
    await new Promise<void>((resolve) => this.server?.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Stops listening and drops its connections: checks of it fail until up() again. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}

/** One delivery a hook receiver got: its path, headers and JSON body. */
export interface HookRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: any;
}

/** A running webhook receiver on loopback. */
export interface HookReceiver {
  /** Its base URL, without a path: webhooks name a path under it. */
  readonly url: string;
  readonly received: HookRequest[];
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 that records every request and answers it with `statusFor(path)` (200 unless told). */
export async function startHookReceiver(statusFor: (path: string) => number = () => 200): Promise<HookReceiver> {
  const received: HookRequest[] = [];
  const server = createHttpServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      received.push({ path, headers: request.headers, body: JSON.parse(text) });
      response.writeHead(statusFor(path)).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

/** Options of startMonitoringWorld. */
export interface WorldOptions {
  /** Settings of the server's monitoring runtime (e.g. fast delivery retries); its defaults when absent. */
  readonly runtime?: RuntimeOptions;
  /** How the receiver answers each path; 200 when absent. */
  readonly statusFor?: (path: string) => number;
}

/** A running world: the server (its runtime started), a token of each user, the target (up) and the receiver. */
export interface MonitoringWorld {
  readonly h: Harness;
  readonly tokens: Readonly<Record<keyof typeof KEYS, string>>;
  readonly target: LoopbackTarget;
  readonly receiver: HookReceiver;
  close(): Promise<void>;
}

/** Starts the server with its runtime, the target and the receiver; `close()` stops all three and removes the data dir. */
export async function startMonitoringWorld(options: WorldOptions = {}): Promise<MonitoringWorld> {
  const h = await startHarness(options.runtime ? { runtime: options.runtime } : {});
  await h.app.strata.runtime.start();
  const target = new LoopbackTarget();
  await target.up();
  const receiver = await startHookReceiver(options.statusFor);
  const tokens = { alice: await h.token('alice'), olga: await h.token('olga'), bob: await h.token('bob') };
  const close = async (): Promise<void> => {
    await h.close();
    await target.down();
    await receiver.close();
  };
  return { h, tokens, target, receiver, close };
}

/** Starts a world before the calling file's tests and closes it after them; the answer reads it (inside tests and hooks only). */
export function monitoringWorldOfFile(options: WorldOptions = {}): () => MonitoringWorld {
  let world: MonitoringWorld | undefined;
  beforeAll(async () => {
    world = await startMonitoringWorld(options);
  });
  afterAll(async () => {
    await world?.close();
  });
  return () => {
    if (world === undefined) throw new Error('the monitoring world is read before it started');
    return world;
  };
}

/**
 * The period of the checks createHttpAlarm makes: the longest a check may have. The tests drive every run themselves
 * (reachState, through runNow); the scheduler runs a new check once when it is created (its prompt first run, with the
 * target up) and next only half a period later, 15 minutes on. So no scheduled run of an earlier test's check sees a
 * later test's target down and flips its alarm (a change, a webhook and an outbox row in that later test's window), and
 * no scheduled run of another zone lands between a test's own runs and adds a change it did not drive.
 */
export const WORLD_CHECK_PERIOD_S = CHECK_PERIOD_S_MAX;

/** What createHttpAlarm makes, all in WORLD_TENANT. */
export interface HttpAlarm {
  readonly entity: string;
  readonly check: string;
  readonly plan: string;
  readonly alarm: string;
  /** The webhook notifications, one per path asked for, in that order. */
  readonly hooks: readonly string[];
}

/** Options of createHttpAlarm. */
export interface HttpAlarmOptions {
  /** The entity's label. */
  readonly label: string;
  /** The zones the check polls from. */
  readonly zones: readonly string[];
  /** The check's label, when it has one. */
  readonly checkLabel?: string;
  /** Receiver paths, one webhook each, labelled by the path: the plan notifies all of them on CRITICAL, the first on OK. */
  readonly hookPaths?: readonly string[];
  /** The alarm's status messages: CRITICAL when the target answers anything but 200, else OK. */
  readonly messages: { readonly critical: string; readonly ok: string };
}

/** Creates, as alice over HTTP, an entity at 127.0.0.1, webhooks to the receiver, their plan, a remote.http check of the target's /health (every WORLD_CHECK_PERIOD_S) and its alarm. */
export async function createHttpAlarm(world: MonitoringWorld, options: HttpAlarmOptions): Promise<HttpAlarm> {
  const { h, tokens, target, receiver } = world;
  const b = base(WORLD_TENANT);
  const entity = await create(h, tokens.alice, `${b}/entities`, { label: options.label, ip_addresses: { web: '127.0.0.1' } });
  const hooks: string[] = [];
  for (const path of options.hookPaths ?? ['/hook']) {
    hooks.push(await create(h, tokens.alice, `${b}/notifications`, { label: path.slice(1), type: 'webhook', details: { url: `${receiver.url}${path}` } }));
  }
  const plan = await create(h, tokens.alice, `${b}/notification_plans`, { label: 'ops', critical_state: hooks, ok_state: hooks.slice(0, 1) });
  const check = await create(h, tokens.alice, `${b}/entities/${entity}/checks`, {
    ...(options.checkLabel === undefined ? {} : { label: options.checkLabel }),
    type: 'remote.http',
    details: { url: `http://127.0.0.1:${target.port}/health`, method: 'GET' },
    monitoring_zones_poll: options.zones,
    target_alias: 'web',
    period: WORLD_CHECK_PERIOD_S,
    timeout: 5,
  });
  const { critical, ok } = options.messages;
  const alarm = await create(h, tokens.alice, `${b}/entities/${entity}/alarms`, {
    check_id: check,
    notification_plan_id: plan,
    criteria: `if (metric['code'] != '200') { return new AlarmStatus(CRITICAL, '${critical}'); } return new AlarmStatus(OK, '${ok}');`,
  });
  return { entity, check, plan, alarm, hooks };
}

/** The alarm's entries of its entity's changelog (operation 9), oldest first. */
export async function alarmChangelog(world: MonitoringWorld, t: Pick<HttpAlarm, 'entity' | 'alarm'>): Promise<any[]> {
  const res = await call(world.h, 'GET', `${base(WORLD_TENANT)}/changelogs/alarms?entityId=${t.entity}`, { token: world.tokens.alice });
  return res.json.values.filter((entry: any) => entry.alarm_id === t.alarm);
}

/** Runs the check now, again and again, until the alarm's latest changelog entry is `state`; returns the alarm's entries. */
export function reachState(world: MonitoringWorld, t: Pick<HttpAlarm, 'entity' | 'check' | 'alarm'>, state: string): Promise<any[]> {
  return until(`the alarm ${state}`, async () => {
    await world.h.app.strata.runtime.runNow(WORLD_TENANT, t.entity, t.check);
    const entries = await alarmChangelog(world, t);
    return entries.at(-1)?.state === state ? entries : undefined;
  });
}
