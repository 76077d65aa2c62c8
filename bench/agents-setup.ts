// Owns the agents bench's server side: starting `strata serve` with its agent endpoints, creating the agent tokens, entities and agent checks over the HTTP API, reading a process's CPU and RSS from /proc, and asking the API for an agent's connections.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { AGENT_TOKEN_CONNECTIONS_MAX } from '../src/agent/agent-limits.js';
import { reportProgress } from './child-io.js';
import { AGENT_CHECK_PERIOD_S, AGENT_ZONES, BENCH_CHECKS } from './agents-workload.js';

/** The bench's user and tenant (created with `strata user create` before the server starts). */
const USER = { username: 'agentbench', tenant: 'agentbench', apiKey: 'agents-bench-key-0123456789abcdef' } as const;
/** HTTP requests in flight while creating the entities and checks. */
const CREATE_CONCURRENCY = 16;
/** Check timeout, s: below the 30 s period (the API refuses a timeout that is not). */
const CHECK_TIMEOUT_S = 10;
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const CLOCK_TICKS_PER_S = 100;

/** A running `strata serve`: its API, its agent endpoints in zone order, the tenant's API token. */
export interface BenchServer {
  readonly child: ChildProcess;
  readonly url: string;
  readonly endpoints: { readonly zone: string; readonly host: string; readonly port: number }[];
  readonly token: string;
  stderr(): string;
}

/** Agents one token may serve: its connection limit over the connections of an agent. */
export const AGENTS_PER_TOKEN = Math.floor(AGENT_TOKEN_CONNECTIONS_MAX / AGENT_ZONES);

/** The tenant's monitoring base path. */
function base(server: { url: string }): string {
  return `${server.url}/monitoring/v1.0/${USER.tenant}`;
}

/** The bench sets up tens of thousands of agent checks over the API in one account: above the default account and rate limits. */
const BENCH_ACCOUNT_FLAGS = ['--account-limits', 'entities=100000,checks=100000,alarms=100000', '--rate-limits', 'global=1000000'];

/** Starts `cli serve` on `dir` with free ports and the given heartbeat; resolves once it listens. */
export async function startServer(cli: string, dir: string, heartbeatMs: number): Promise<BenchServer> {
  execFileSync(process.execPath, [cli, 'user', 'create', '--data', dir, '--username', USER.username, '--tenant', USER.tenant, '--api-key', USER.apiKey, '--role', 'admin'], { stdio: 'ignore' });
  const args = ['serve', '--port', '0', '--data', dir, '--log-level', 'warn', '--agent-ports', '0,0,0', '--agent-heartbeat-ms', String(heartbeatMs), ...BENCH_ACCOUNT_FLAGS];
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-8000)));
  // Read for as long as the server runs: a full pipe would stall it.
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout = (stdout + chunk.toString()).slice(-64_000);
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`strata serve exited (${code}) before listening:\n${stderr}`)));
  });
  const endpoints = [...stdout.matchAll(/agent endpoint (\S+) listening on tls:\/\/(\S+):(\d+)/g)].map((m) => ({ zone: m[1] as string, host: (m[2] as string).replace(/^\[|\]$/g, ''), port: Number(m[3]) }));
  if (endpoints.length !== AGENT_ZONES) throw new Error(`strata serve printed ${endpoints.length} agent endpoints, not ${AGENT_ZONES}:\n${stdout}`);
  const response = await fetch(`${url}/v2.0/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ auth: { 'RAX-KSKEY:apiKeyCredentials': { username: USER.username, apiKey: USER.apiKey } } }),
  });
  const token = ((await response.json()) as { access: { token: { id: string } } }).access.token.id;
  return { child, url, endpoints, token, stderr: () => stderr };
}

/** Stops a child with SIGTERM (SIGKILL after 30 s) and waits for it. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

async function api(server: BenchServer, method: string, path: string, body?: unknown): Promise<{ status: number; id: string | null; json: unknown }> {
  const response = await fetch(`${base(server)}${path}`, {
    method,
    headers: { 'x-auth-token': server.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: HTTP ${response.status} ${text}`);
  return { status: response.status, id: response.headers.get('x-object-id'), json: text === '' ? null : JSON.parse(text) };
}

/** Runs `task(0..count-1)` with at most `concurrency` in flight. */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** Creates enough agent tokens for `agents` agents and returns their values (agent i uses token floor(i / AGENTS_PER_TOKEN)). */
export async function createTokens(server: BenchServer, agents: number): Promise<string[]> {
  const values: string[] = [];
  for (let t = 0; t < Math.ceil(agents / AGENTS_PER_TOKEN); t++) {
    const { id } = await api(server, 'POST', '/agent_tokens', { label: `bench-${t}` });
    values.push(((await api(server, 'GET', `/agent_tokens/${id}`)).json as { token: string }).token);
  }
  return values;
}

/** One entity per agent (agent_id `bench-<i>.example`) with its six agent checks at the bench period. */
export async function createAgentEntities(server: BenchServer, agents: number): Promise<void> {
  let done = 0;
  await pool(agents, CREATE_CONCURRENCY, async (i) => {
    const { id } = await api(server, 'POST', '/entities', { label: `bench-${i}`, agent_id: `bench-${i}.example` });
    for (const check of BENCH_CHECKS) {
      await api(server, 'POST', `/entities/${id}/checks`, { label: check.type, type: check.type, details: check.details, period: AGENT_CHECK_PERIOD_S, timeout: CHECK_TIMEOUT_S });
    }
    if (++done % 100 === 0 || done === agents) reportProgress(`agents: creating ${agents.toLocaleString('en-US')} entities with ${BENCH_CHECKS.length} agent checks each`, done, agents);
  });
}

/** How many live connections the API lists for an agent. */
export async function connectionsOf(server: BenchServer, agentId: string): Promise<number> {
  return ((await api(server, 'GET', `/agents/${agentId}/connections`)).json as { values: unknown[] }).values.length;
}

/** CPU seconds used so far and current RSS of a process, from /proc. */
export function processSample(pid: number): { cpuS: number; rssMiB: number } {
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rss = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpuS: ticks / CLOCK_TICKS_PER_S, rssMiB: rss ? Number(rss[1]) / 1024 : NaN };
}

/** The soft limit of open files of a process, from /proc. */
export function openFilesLimit(pid: number): number {
  const match = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
  return match?.[1] === undefined || match[1] === 'unlimited' ? Infinity : Number(match[1]);
}
