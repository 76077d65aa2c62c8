// End to end over loopback: `strata serve` and `strata agent` processes; connections (operation 3), agent metrics (operations 5, 6), an alarm's changelog, reconnection after kill -9, refused CA, token and updates.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Harness } from '../http/harness.js';
import { freePorts } from './agent-fixture.js';
import { base, create } from './monitoring-client.js';
import { until } from './poll-until.js';
import { CLI, ensureBuilt, ROOT, runCli, startServe, tokenFor, type ServeProcess } from './serve-process.js';

const TENANT = '100000';
const b = base(TENANT);
const AGENT_ID = 'e2e-host.example.com';
const UPDATE_VERSION = '9.0.0';

/** A running `strata agent` with what it printed so far. */
interface AgentProcess {
  readonly child: ChildProcess;
  readonly stateDir: string;
  stdout: string;
  stderr: string;
  readonly exited: Promise<number | string>;
}

/** How often this file polls the processes it started. */
const POLL_MS = 100;
/** How long a restart of serve on the same ports is tried while one of them is in use. */
const RESTART_TRIES_MS = 10_000;

/** True when this process can listen on 127.0.0.1:`port` now (it closes at once). */
async function portFree(port: number): Promise<boolean> {
  const server = createServer();
  const free = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (free) await new Promise((resolve) => server.close(resolve));
  return free;
}

/** The pino lines an agent wrote on stderr, parsed. */
function logLines(agent: AgentProcess): Record<string, unknown>[] {
  return agent.stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('strata agent against strata serve, over loopback', () => {
  let work: string;
  let data: string;
  let ports: number[];
  let endpoints: string;
  let serve: ServeProcess;
  let apiKey: string;
  let token: string;
  let agentToken: string;
  let rootPem: string;
  let entity: string;
  let check: string;
  let alarm: string;
  let main: AgentProcess;
  const agents: AgentProcess[] = [];
  const servers: ServeProcess[] = [];

  function startAgent(name: string, args: { id?: string; token?: string; ca?: string; endpoints?: string; updateKey?: string }): AgentProcess {
    const stateDir = join(work, `state-${name}`);
    const argv = [CLI, 'agent', '--token', args.token ?? agentToken, '--id', args.id ?? AGENT_ID, '--endpoints', args.endpoints ?? endpoints];
    argv.push('--ca', args.ca ?? rootPem, '--state-dir', stateDir, '--log-level', 'info');
    if (args.updateKey !== undefined) argv.push('--update-key', args.updateKey);
    const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
    const agent: AgentProcess = { child, stateDir, stdout: '', stderr: '', exited };
    child.stdout?.on('data', (chunk: Buffer) => (agent.stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (agent.stderr += chunk.toString()));
    agents.push(agent);
    return agent;
  }

  /**
   * Starts serve again on the same agent ports (the agent knows only those). While no server held them,
   * any process may have taken one as the local port of an outgoing connection for a while: a start that
   * cannot listen (EADDRINUSE, serve exits) is tried again until RESTART_TRIES_MS passed.
   */
  async function restartServer(): Promise<void> {
    const deadline = Date.now() + RESTART_TRIES_MS;
    for (;;) {
      try {
        serve = await startServe(data, ['--agent-ports', ports.join(',')]);
        break;
      } catch (error) {
        // serve names EADDRINUSE on stderr and exits, but its stderr may still be unread when the exit is
        // seen: the ports themselves tell too. Any other failure is thrown at once.
        const inUse = String(error).includes('EADDRINUSE') || (await Promise.all(ports.map(portFree))).includes(false);
        if (!inUse || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    servers.push(serve);
    token = await tokenFor(serve.url, 'admin', apiKey);
  }

  const get = (path: string) => call({ url: serve.url }, 'GET', `${b}${path}`, { token });
  const connectionsOf = async (agentId: string) => (await get(`/agents/${agentId}/connections`)).json?.values as { id: string }[] | undefined;
  const connectedLines = (agent: AgentProcess) => agent.stdout.split('\n').filter((line) => line.startsWith('agent connected to '));

  beforeAll(async () => {
    ensureBuilt();
    work = mkdtempSync(join(tmpdir(), 'strata-agent-e2e-'));
    data = join(work, 'data');
    ports = await freePorts(3);
    endpoints = ports.map((port) => `127.0.0.1:${port}`).join(',');
    serve = await startServe(data, ['--agent-ports', ports.join(',')]);
    servers.push(serve);
    for (const [zone, port] of [['mzdfw', ports[0]], ['mziad', ports[1]], ['mzord', ports[2]]]) {
      expect(serve.stdout).toContain(`agent endpoint ${zone} listening on tls://127.0.0.1:${port}\n`);
    }
    apiKey = /apiKey: (\S+)/.exec(serve.stdout)?.[1] as string;
    token = await tokenFor(serve.url, 'admin', apiKey);
    rootPem = join(work, 'root.pem');
    writeFileSync(rootPem, runCli(['agent-ca', 'export', '--data', data]));
    // create() reads only the url of its harness.
    const h = { url: serve.url } as unknown as Harness;
    const tokenId = await create(h, token, `${b}/agent_tokens`, { label: 'e2e hosts' });
    agentToken = (await get(`/agent_tokens/${tokenId}`)).json.token as string;
    entity = await create(h, token, `${b}/entities`, { label: 'e2e host', agent_id: AGENT_ID });
    check = await create(h, token, `${b}/entities/${entity}/checks`, { label: 'memory', type: 'agent.memory', period: 30, timeout: 10 });
    alarm = await create(h, token, `${b}/entities/${entity}/alarms`, {
      check_id: check,
      notification_plan_id: 'npTechnicalContactsEmail',
      criteria: "if (metric['total'] > 0) { return new AlarmStatus(CRITICAL, 'total #{total}'); }\nreturn new AlarmStatus(OK);",
    });
    main = startAgent('main', {});
  }, 30_000);

  afterAll(async () => {
    for (const agent of agents) agent.child.kill('SIGKILL');
    for (const server of servers) server.child.kill('SIGKILL');
    await Promise.all([...agents.map((agent) => agent.exited), ...servers.map((server) => server.exited)]);
    rmSync(work, { recursive: true, force: true });
  });

  it('shows the agent (operations 1, 2) with one connection per zone endpoint (operation 3)', async () => {
    // The server lists a connection before the agent has its hello answer and prints its line: wait for both.
    const connections = await until(() => `3 connections; agent stdout:\n${main.stdout}\nstderr:\n${main.stderr}`, async () => {
      const values = await connectionsOf(AGENT_ID);
      return values?.length === 3 && connectedLines(main).length >= 3 ? values : undefined;
    }, 15_000, POLL_MS);
    const guid = readFileSync(join(main.stateDir, 'guid'), 'utf8').trim();
    for (const connection of connections) {
      expect(connection).toMatchObject({ guid, agent_id: AGENT_ID, process_version: '0.1.0', bundle_version: '0.1.0', agent_ip: '127.0.0.1' });
    }
    expect(new Set(connections.map((c) => c.id)).size).toBe(3);
    expect(connectedLines(main).sort()).toEqual(ports.map((port, i) => `agent connected to 127.0.0.1:${port} (zone connection ${i + 1})`).sort());
    const listed = await get('/agents');
    expect(listed.json.values).toEqual([{ id: AGENT_ID, last_connected: expect.any(Number) }]);
    expect((await get(`/agents/${AGENT_ID}`)).status).toBe(200);
  });

  it('stores the agent check\'s metrics (operations 5 and 6) and fires the alarm into the alarm changelog', async () => {
    // The first run is at a random phase within the 30 s period.
    const entry = await until(() => `a CRITICAL changelog entry; agent stderr:\n${main.stderr}`, async () => {
      const values = (await get(`/changelogs/alarms?entityId=${entity}`)).json?.values as { alarm_id: string; state: string }[] | undefined;
      return values?.find((e) => e.alarm_id === alarm && e.state === 'CRITICAL');
    }, 45_000, POLL_MS);
    expect(entry).toMatchObject({ entity_id: entity, check_id: check, alarm_id: alarm, state: 'CRITICAL' });
    const names = await until(() => 'agent metrics listed', async () => {
      const values = (await get(`/entities/${entity}/checks/${check}/metrics?limit=100`)).json?.values as { name: string }[] | undefined;
      return values?.some((m) => m.name === 'total') ? values.map((m) => m.name) : undefined;
    }, 10_000, POLL_MS);
    expect(names).toEqual(expect.arrayContaining(['total', 'actual_used', 'actual_free', 'free', 'used']));
    const now = Date.now();
    const plot = await get(`/entities/${entity}/checks/${check}/metrics/total/plot?from=${now - 600_000}&to=${now + 60_000}&resolution=FULL`);
    expect(plot.status, plot.text).toBe(200);
    expect(plot.json.values.length).toBeGreaterThanOrEqual(1);
    const meminfoTotalKb = Number(/^MemTotal:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1]);
    const point = plot.json.values[0] as Record<string, unknown>;
    const numbers = Object.entries(point).filter(([key, value]) => key !== 'timestamp' && typeof value === 'number').map(([, value]) => value as number);
    expect(numbers.length, JSON.stringify(point)).toBeGreaterThan(0);
    // The host's memory in bytes (the agent reads this /proc).
    expect(numbers).toContain(meminfoTotalKb * 1024);
  }, 60_000);

  it('reconnects every endpoint after the server is killed with SIGKILL and restarted on the same ports', async () => {
    const before = new Set(((await connectionsOf(AGENT_ID)) ?? []).map((c) => c.id));
    expect(before.size).toBe(3);
    serve.child.kill('SIGKILL');
    expect(await serve.exited).toBe('SIGKILL');
    await restartServer();
    // As above: the agent prints its line only once it has the hello answer.
    const after = await until(() => `3 connections after the restart; agent stdout:\n${main.stdout}\nstderr:\n${main.stderr}`, async () => {
      const values = await connectionsOf(AGENT_ID);
      return values?.length === 3 && connectedLines(main).length >= 6 ? values : undefined;
    }, 30_000, POLL_MS);
    expect(after.every((c) => !before.has(c.id))).toBe(true);
    expect(connectedLines(main)).toHaveLength(6);
  }, 60_000);

  it('refuses an agent that trusts another root, and one with a wrong token: no connection, the agent unknown (operation 2)', async () => {
    const otherPem = join(work, 'other-root.pem');
    writeFileSync(otherPem, runCli(['agent-ca', 'export', '--data', join(work, 'other-data')]));
    const wrongCa = startAgent('wrong-ca', { id: 'wrong-ca.example.com', ca: otherPem });
    const wrongToken = startAgent('wrong-token', { id: 'wrong-token.example.com', token: `${'0'.repeat(64)}:${TENANT}` });
    const attempts = (agent: AgentProcess, msg: string) => () => (logLines(agent).filter((line) => line.msg === msg).length >= 3 * 2 ? true : undefined);
    // Six failed attempts over the three endpoints.
    await until(() => `wrong CA refusals:\n${wrongCa.stderr}`, attempts(wrongCa, 'agent connection closed; reconnecting'), 15_000, POLL_MS);
    await until(() => `wrong token refusals:\n${wrongToken.stderr}`, attempts(wrongToken, 'agent hello refused'), 15_000, POLL_MS);
    const tlsCodes = new Set(logLines(wrongCa).filter((line) => line.msg === 'agent connection closed; reconnecting').map((line) => line.code));
    expect([...tlsCodes]).toEqual(['UNABLE_TO_VERIFY_LEAF_SIGNATURE']);
    for (const line of logLines(wrongToken).filter((l) => l.msg === 'agent hello refused')) {
      expect(line).toMatchObject({ code: 'AGENT_REQUEST_REFUSED', reason: { code: 401, type: 'AGENT_TOKEN_INVALID' } });
    }
    expect(wrongToken.stderr).not.toContain('0'.repeat(64));
    for (const agent of [wrongCa, wrongToken]) {
      expect(connectedLines(agent)).toEqual([]);
      expect(logLines(agent).some((line) => line.msg === 'agent connected')).toBe(false);
    }
    for (const id of ['wrong-ca.example.com', 'wrong-token.example.com']) {
      expect((await get(`/agents/${id}`)).status).toBe(404);
      expect((await get(`/agents/${id}/connections`)).status).toBe(404);
    }
    expect((await get('/agents')).json.values.map((a: { id: string }) => a.id)).toEqual([AGENT_ID]);
  }, 40_000);

  it('stages a correctly signed update and refuses a wrongly signed or tampered one', async () => {
    const keys = join(work, 'keys');
    const otherKeys = join(work, 'other-keys');
    runCli(['agent-update', 'keygen', '--out', keys]);
    runCli(['agent-update', 'keygen', '--out', otherKeys]);
    const bundle = join(work, 'bundle.tar.gz');
    const bytes = Buffer.from(`strata agent bundle ${UPDATE_VERSION}\n`.repeat(64));
    writeFileSync(bundle, bytes);
    runCli(['agent-update', 'sign', '--key', join(keys, 'update-signing.key'), '--bundle', bundle, '--version', UPDATE_VERSION, '--out', data]);
    const published = join(data, 'agent-updates', 'stable', UPDATE_VERSION, 'bundle');
    expect(readFileSync(published)).toEqual(bytes);
    const oneEndpoint = `127.0.0.1:${ports[0]}`;
    const outcome = (agent: AgentProcess) => () => logLines(agent).find((line) => line.msg === 'agent update refused' || line.msg === 'agent update staged');
    const staged = (agent: AgentProcess) => join(agent.stateDir, 'updates', UPDATE_VERSION);

    // Signed with another key than the one the agent pins.
    const wrongKey = startAgent('update-wrong-key', { id: 'update-wrong-key.example.com', endpoints: oneEndpoint, updateKey: join(otherKeys, 'update-signing.pub') });
    expect(await until(() => `an update outcome:\n${wrongKey.stderr}`, outcome(wrongKey), 15_000, POLL_MS)).toMatchObject({ msg: 'agent update refused', code: 'AGENT_UPDATE_SIGNATURE_INVALID' });
    expect(existsSync(staged(wrongKey))).toBe(false);

    // Positive control: the right key stages the bundle, byte for byte.
    const good = startAgent('update-good', { id: 'update-good.example.com', endpoints: oneEndpoint, updateKey: join(keys, 'update-signing.pub') });
    expect(await until(() => `an update outcome:\n${good.stderr}`, outcome(good), 15_000, POLL_MS)).toMatchObject({ msg: 'agent update staged', to: UPDATE_VERSION });
    expect(readFileSync(join(staged(good), 'bundle'))).toEqual(bytes);

    // Tampered after signing: one byte of the published bundle flipped.
    const tampered = Buffer.from(bytes);
    tampered[100] = (tampered[100] as number) ^ 0x01;
    writeFileSync(published, tampered);
    const victim = startAgent('update-tampered', { id: 'update-tampered.example.com', endpoints: oneEndpoint, updateKey: join(keys, 'update-signing.pub') });
    expect(await until(() => `an update outcome:\n${victim.stderr}`, outcome(victim), 15_000, POLL_MS)).toMatchObject({ msg: 'agent update refused', code: 'AGENT_UPDATE_SIGNATURE_INVALID' });
    expect(existsSync(staged(victim))).toBe(false);
    const updatesDir = join(victim.stateDir, 'updates');
    expect(existsSync(updatesDir) ? readdirSync(updatesDir) : []).toEqual([]);
  }, 50_000);
});
