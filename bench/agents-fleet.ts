// Owns one process of simulated agents for the agents bench (bench/agents.ts forks two): each agent holds one TLS connection per endpoint, says hello, fetches its schedule, heartbeats on every connection and posts its six checks' metrics.
import { connect as netConnect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { connect, createSecureContext, type SecureContext } from 'node:tls';
import { pathToFileURL } from 'node:url';
import { AGENT_HEARTBEAT_JITTER_PERCENT, AGENT_REQUEST_TIMEOUT_MS, AGENT_TLS_HANDSHAKE_TIMEOUT_MS } from '../src/agent/agent-limits.js';
import { RpcPeer } from '../src/agent/protocol/rpc-peer.js';
import { isStrataError, StrataError } from '../src/core/errors.js';
import { BENCH_CHECKS, metricsPostParams, type FleetCommand, type FleetConfig, type GrowReport, type WindowReport } from './agents-workload.js';
import { percentile } from './latency.js';

interface SimConnection {
  readonly peer: RpcPeer;
  timer: NodeJS.Timeout | undefined;
  /** True from the agent's start until the bench closes it: a close meanwhile is an unexpected disconnect. */
  live: boolean;
}

interface SimAgent {
  readonly agentId: string;
  readonly guid: string;
  readonly connections: SimConnection[];
  readonly timers: NodeJS.Timeout[];
  rr: number;
  /** The loopback address the agent connects from: agents are hosts of their own, so the endpoint's per-address limits apply to each as in production. */
  readonly localAddress: string;
}

/** Agents per loopback /24 the fleet spreads agents over (127.1.0.1 upwards; Linux routes all of 127/8 to loopback). */
const AGENTS_PER_SUBNET = 250;

/** The loopback address of agent `index`: 127.1.x.y, one per agent. */
function agentAddress(index: number): string {
  return `127.1.${Math.floor(index / AGENTS_PER_SUBNET)}.${1 + (index % AGENTS_PER_SUBNET)}`;
}

/** The counters of a measurement window: what was sent in it (heartbeats) or due in it (posts), and how it ended. */
interface Window {
  readonly startMs: number;
  readonly endMs: number;
  readonly sent: { heartbeat: number; post: number };
  readonly ok: { heartbeat: number; post: number };
  readonly ms: { heartbeat: number[]; post: number[] };
  readonly errors: Record<string, number>;
  readonly lateMs: number[];
  disconnects: number;
  pending: number;
}

function errorKey(error: unknown): string {
  if (!isStrataError(error)) return String(error);
  if (error.code === 'AGENT_REQUEST_REFUSED') return `refused ${String(error.details.type)}`;
  if (error.code === 'AGENT_CONNECTION_CLOSED' && typeof error.details.reason === 'string') return `${error.code} (${error.details.reason})`;
  return error.code;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function count(into: Record<string, number>, key: string): void {
  into[key] = (into[key] ?? 0) + 1;
}

/** The simulated agents of one process. */
class Fleet {
  private readonly agents: SimAgent[] = [];
  private readonly sessions: (Buffer | undefined)[];
  /** Trusts only the bench's root (built once: a `ca` option would build one per connection). */
  private readonly trust: SecureContext;
  /** Each check's first due time (performance.now() ms), for the posts a window expects. */
  private readonly firstDues: number[] = [];
  private window: Window | undefined;
  /** Connections of running agents closed by anything but the bench, since the fleet started. */
  private disconnects = 0;
  /** Agents started so far, connected or failed. */
  private tried = 0;

  constructor(private readonly config: FleetConfig) {
    this.sessions = config.endpoints.map(() => undefined);
    this.trust = createSecureContext({ ca: config.ca });
  }

  /** Starts agents until `target` were tried (at the configured rate and concurrency); a failed agent is not tried again. */
  async grow(target: number): Promise<GrowReport> {
    const started = performance.now();
    const report = { failed: 0, failures: {} as Record<string, number>, tlsMs: [] as number[], helloMs: [] as number[], scheduleMs: [] as number[] };
    const from = this.tried;
    const worker = async (): Promise<void> => {
      while (this.tried < target) {
        const k = this.tried++;
        const dueMs = started + ((k - from) * 1000) / this.config.connectPerSecond;
        if (dueMs > performance.now()) await sleep(dueMs - performance.now());
        await this.connectAgent(this.config.first + k, report).catch((error: unknown) => {
          report.failed++;
          count(report.failures, errorKey(error));
        });
      }
    };
    await Promise.all(Array.from({ length: this.config.connectConcurrency }, worker));
    return { type: 'grown', agents: this.agents.length, ...report, seconds: (performance.now() - started) / 1000 };
  }

  private async connectAgent(index: number, report: { tlsMs: number[]; helloMs: number[]; scheduleMs: number[] }): Promise<void> {
    const agent: SimAgent = { agentId: `bench-${index}.example`, guid: randomUUID(), connections: [], timers: [], rr: 0, localAddress: agentAddress(index) };
    const token = this.config.tokens[Math.floor(index / this.config.agentsPerToken)] as string;
    const opened = await Promise.allSettled(this.config.endpoints.map((_, zone) => this.openConnection(agent, zone, token, report)));
    const failure = opened.find((o) => o.status === 'rejected');
    const connections = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    agent.connections.push(...connections);
    if (failure !== undefined) {
      this.closeAgent(agent);
      throw failure.reason;
    }
    const asked = performance.now();
    const schedule = (await connections[0]!.peer.request('check_schedule.get', {}).catch((error: unknown) => {
      this.closeAgent(agent);
      throw error;
    })) as { checks?: { id: string; type: string }[] };
    report.scheduleMs.push(performance.now() - asked);
    const checks = this.config.mode === 'floor' ? BENCH_CHECKS.map((c, k) => ({ id: `chFloor${k}`, type: c.type })) : (schedule.checks ?? []);
    if (checks.length !== BENCH_CHECKS.length) {
      this.closeAgent(agent);
      throw new Error(`the schedule of ${agent.agentId} lists ${checks.length} checks, not ${BENCH_CHECKS.length}`);
    }
    this.agents.push(agent);
    for (const connection of connections) connection.live = !connection.peer.closed;
    for (const connection of connections) this.startHeartbeats(connection, Math.random() * this.config.heartbeatMs);
    for (const check of checks) this.startCheck(agent, check.id, check.type, performance.now() + Math.random() * this.config.periodMs);
  }

  private async openConnection(agent: SimAgent, zone: number, token: string, report: { tlsMs: number[]; helloMs: number[] }): Promise<SimConnection> {
    const { host, port } = this.config.endpoints[zone]!;
    const started = performance.now();
    const tcp = netConnect({ host, port, localAddress: agent.localAddress });
    const socket = connect({ socket: tcp, host, servername: undefined, secureContext: this.trust, rejectUnauthorized: true, session: this.sessions[zone] });
    socket.on('session', (session: Buffer) => (this.sessions[zone] = session));
    const timer = setTimeout(() => socket.destroy(new Error('TLS handshake timed out')), AGENT_TLS_HANDSHAKE_TIMEOUT_MS);
    try {
      await once(socket, 'secureConnect');
    } finally {
      clearTimeout(timer);
    }
    report.tlsMs.push(performance.now() - started);
    const connection: SimConnection = {
      timer: undefined,
      live: false,
      peer: new RpcPeer({
        socket,
        self: agent.guid,
        peer: 'endpoint',
        // Nothing changes schedules during the bench; anything else the endpoint asks is refused, as the agent does.
        onRequest: (method) => (method === 'check_schedule.changed' ? {} : Promise.reject(new StrataError('AGENT_METHOD_UNKNOWN', `the bench agent does not run ${method}`))),
        onClose: (error) => this.onClose(connection, error),
      }),
    };
    const hello = performance.now();
    const params = { token, agent_id: agent.agentId, agent_name: 'strata-bench', process_version: '0.0.0', bundle_version: '0.0.0', features: [] };
    await connection.peer.request('handshake.hello', params).catch((error: unknown) => {
      connection.peer.close();
      throw error;
    });
    report.helloMs.push(performance.now() - hello);
    return connection;
  }

  private onClose(connection: SimConnection, error: StrataError | undefined): void {
    clearTimeout(connection.timer);
    if (!connection.live) return;
    connection.live = false;
    this.disconnects++;
    if (this.window !== undefined) {
      this.window.disconnects++;
      count(this.window.errors, `disconnect: ${error === undefined ? 'closed by the server' : errorKey(error)}`);
    }
  }

  private closeAgent(agent: SimAgent): void {
    for (const timer of agent.timers) clearTimeout(timer);
    for (const connection of agent.connections) {
      connection.live = false;
      clearTimeout(connection.timer);
      connection.peer.close();
    }
  }

  private startHeartbeats(connection: SimConnection, delayMs: number): void {
    connection.timer = setTimeout(() => {
      if (connection.peer.closed) return;
      const jitter = 1 + ((Math.random() * 2 - 1) * AGENT_HEARTBEAT_JITTER_PERCENT) / 100;
      this.startHeartbeats(connection, this.config.heartbeatMs * jitter);
      const sending = connection.peer.request('heartbeat.post', { timestamp: Date.now() });
      const window = this.windowAt(performance.now());
      if (window === undefined) sending.catch(() => {});
      else this.track(window, 'heartbeat', sending);
    }, delayMs);
  }

  /** Counts a request of a window: its RTT when it succeeds, its error key when not. */
  private track(window: Window, kind: 'heartbeat' | 'post', sending: Promise<unknown>): void {
    const sent = performance.now();
    window.sent[kind]++;
    window.pending++;
    sending
      .then(
        () => {
          window.ok[kind]++;
          window.ms[kind].push(performance.now() - sent);
        },
        (error: unknown) => count(window.errors, `${kind}: ${errorKey(error)}`),
      )
      .finally(() => window.pending--);
  }

  private startCheck(agent: SimAgent, checkId: string, checkType: string, firstDueMs: number): void {
    this.firstDues.push(firstDueMs);
    const slot = agent.timers.length;
    const fire = (dueMs: number): void => {
      agent.timers[slot] = setTimeout(() => {
        fire(dueMs + this.config.periodMs);
        this.post(agent, checkId, checkType, dueMs);
      }, Math.max(0, dueMs - performance.now()));
    };
    fire(firstDueMs);
  }

  private post(agent: SimAgent, checkId: string, checkType: string, dueMs: number): void {
    const window = this.windowAt(dueMs);
    window?.lateMs.push(performance.now() - dueMs);
    const open = agent.connections.filter((c) => !c.peer.closed);
    const connection = open[agent.rr++ % Math.max(1, open.length)];
    if (connection === undefined) {
      if (window !== undefined) count(window.errors, 'post: no open connection');
      return;
    }
    const sending = connection.peer.request('check_metrics.post', metricsPostParams(checkId, checkType, Date.now()));
    if (window === undefined) sending.catch(() => {});
    else this.track(window, 'post', sending);
  }

  private windowAt(atMs: number): Window | undefined {
    const w = this.window;
    return w !== undefined && atMs >= w.startMs && atMs < w.endMs ? w : undefined;
  }

  /** Measures `durationMs` from now, then waits for what was sent in it to settle (bounded by the request timeout). */
  async measure(durationMs: number): Promise<WindowReport> {
    const startMs = performance.now();
    const window: Window = { startMs, endMs: startMs + durationMs, sent: { heartbeat: 0, post: 0 }, ok: { heartbeat: 0, post: 0 }, ms: { heartbeat: [], post: [] }, errors: {}, lateMs: [], disconnects: 0, pending: 0 };
    this.window = window;
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const cpu = process.cpuUsage();
    await sleep(durationMs);
    const cpuUsed = process.cpuUsage(cpu);
    loop.disable();
    // Late timers of the window fire, then its requests settle or time out.
    const settleBy = performance.now() + AGENT_REQUEST_TIMEOUT_MS + 2_000;
    await sleep(1_000);
    while (window.pending > 0 && performance.now() < settleBy) await sleep(100);
    // Posts due in the window: every check's due times first + k * period that fall in it.
    const dueBefore = (atMs: number, firstMs: number): number => (atMs <= firstMs ? 0 : Math.ceil((atMs - firstMs) / this.config.periodMs));
    const postsExpected = this.firstDues.reduce((n, first) => n + dueBefore(window.endMs, first) - dueBefore(window.startMs, first), 0);
    return {
      type: 'window',
      seconds: durationMs / 1000,
      heartbeats: window.sent.heartbeat,
      heartbeatsOk: window.ok.heartbeat,
      heartbeatMs: window.ms.heartbeat,
      postsExpected,
      postsOk: window.ok.post,
      postMs: window.ms.post,
      errors: window.errors,
      disconnects: window.disconnects,
      disconnectsTotal: this.disconnects,
      connections: this.agents.reduce((n, a) => n + a.connections.filter((c) => !c.peer.closed).length, 0),
      cpuPerSecond: (cpuUsed.user + cpuUsed.system) / 1e6 / (durationMs / 1000),
      loopDelayP99Ms: loop.percentile(99) / 1e6,
      timerLateP99Ms: percentile([...window.lateMs].sort((a, b) => a - b), 0.99),
    };
  }

  /** Closes every connection (not counted as disconnects). */
  stop(): void {
    for (const agent of this.agents) this.closeAgent(agent);
  }
}

/** argv: the FleetConfig as JSON; commands arrive over IPC, each answered by one message. */
function main(): void {
  const fleet = new Fleet(JSON.parse(process.argv[2] ?? '') as FleetConfig);
  const answer = (reply: Promise<unknown>): void => {
    reply.then(
      (message) => process.send?.(message as object),
      (error: unknown) => process.send?.({ type: 'error', message: String(error) }),
    );
  };
  process.on('message', (command: FleetCommand) => {
    if (command.type === 'grow') answer(fleet.grow(command.agents));
    else if (command.type === 'window') answer(fleet.measure(command.durationMs));
    else process.disconnect();
  });
  // Told to stop, or the orchestrator is gone: close every connection and end.
  process.on('disconnect', () => {
    fleet.stop();
    setTimeout(() => process.exit(0), 500).unref();
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
