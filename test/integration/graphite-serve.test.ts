// Tests `strata serve --graphite-port` as a process: Graphite plaintext in over TCP, the same points out of the HTTP query API.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt, ROOT, runCli, startServe, tokenFor, type ServeProcess } from './serve-process.js';

const API_KEY = 'graphite-test-api-key-0123456789';
const LINE = /graphite plaintext listening on tcp:\/\/127\.0\.0\.1:(\d+) \(tenant t1\)/;

/** The Graphite port the server printed after its "listening on" line. */
async function graphitePort(server: ServeProcess): Promise<number> {
  let stdout = server.stdout;
  const found = LINE.exec(stdout);
  if (found) return Number(found[1]);
  return new Promise((resolve, reject) => {
    server.child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = LINE.exec(stdout);
      if (match) resolve(Number(match[1]));
    });
    void server.exited.then((code) => reject(new Error(`strata serve exited (${code}) before its graphite line`)));
  });
}

/** Sends `text` on a fresh connection and closes it. */
async function sendLines(port: number, text: string): Promise<void> {
  const socket = connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.end(text, () => resolve());
  });
  await new Promise<void>((resolve) => (socket.closed ? resolve() : socket.once('close', () => resolve())));
}

interface View {
  readonly values: readonly { timestamp: number; average: number }[];
}

describe('strata serve with a Graphite plaintext listener', () => {
  let dir: string;
  const running: ServeProcess[] = [];

  beforeAll(() => ensureBuilt());
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-graphite-'));
  });
  afterEach(() => {
    for (const server of running.splice(0)) server.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes Graphite lines for its tenant, seconds converted to ms, readable through the query API', async () => {
    runCli(['user', 'create', '--data', dir, '--username', 'gina', '--tenant', 't1', '--api-key', API_KEY]);
    const server = await startServe(dir, ['--graphite-port', '0', '--graphite-tenant', 't1']);
    running.push(server);
    const port = await graphitePort(server);
    const seconds = Math.floor(Date.now() / 1000) - 120;
    await sendLines(port, [`g.cpu 1.5 ${seconds}`, `g.cpu 2 ${seconds + 1}.25`, `g.mem;host=a;dc=x 7 ${seconds}`, `g.bad value ${seconds}`, ''].join('\n'));
    const token = await tokenFor(server.url, 'gina', API_KEY);
    const view = async (metric: string): Promise<View> => {
      const from = (seconds - 60) * 1000;
      const response = await fetch(`${server.url}/metrics/v2.0/t1/views/${encodeURIComponent(metric)}?from=${from}&to=${from + 3_600_000}&resolution=FULL`, {
        headers: { 'x-auth-token': token },
      });
      expect(response.status).toBe(200);
      return (await response.json()) as View;
    };
    // The connection's last write may still be in flight when the client has closed: poll.
    let cpu = await view('g.cpu');
    for (let i = 0; cpu.values.length < 2 && i < 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      cpu = await view('g.cpu');
    }
    expect(cpu.values.map((v) => [v.timestamp, v.average])).toEqual([
      [seconds * 1000, 1.5],
      [(seconds + 1) * 1000 + 250, 2],
    ]);
    const mem = await view('g.mem{dc="x",host="a"}');
    expect(mem.values.map((v) => [v.timestamp, v.average])).toEqual([[seconds * 1000, 7]]);
    const metrics = await fetch(`${server.url}/metrics`);
    const text = await metrics.text();
    expect(text).toMatch(/^strata_graphite_points_accepted_total 3$/m);
    expect(text).toMatch(/^strata_graphite_points_rejected_total 1$/m);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('refuses a Graphite port without a tenant, a tenant without a port, and a tenant the store would refuse (exit 2)', () => {
    const serve = (args: string[]) =>
      spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--data', dir, '--no-agent-endpoint', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
    const noTenant = serve(['--graphite-port', '0']);
    expect(noTenant.status).toBe(2);
    expect(noTenant.stderr).toMatch(/CONFIG_INVALID: --graphite-port needs --graphite-tenant/);
    const noPort = serve(['--graphite-tenant', 't1']);
    expect(noPort.status).toBe(2);
    expect(noPort.stderr).toMatch(/CONFIG_INVALID: --graphite-tenant is given without --graphite-port/);
    const badTenant = serve(['--graphite-port', '0', '--graphite-tenant', 'no spaces']);
    expect(badTenant.status).toBe(2);
    expect(badTenant.stderr).toMatch(/--graphite-tenant/);
  });
});
