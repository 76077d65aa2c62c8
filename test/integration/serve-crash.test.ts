// Tests strata serve as a process: first run, SIGTERM, and kill -9 during ingestion losing nothing acknowledged.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, startServe, tokenFor, type ServeProcess } from './serve-process.js';

const CLIENTS = 4;
const METRICS_PER_BATCH = 50;
const STEP_MS = 30_000;
/** Batches per client at most: their timestamps must fit one FULL query (1440 points). */
const BATCHES_MAX = 1_000;
/** Acknowledged batches per client before the kill, so the kill lands mid-stream. */
const ACKS_BEFORE_KILL = 15;

describe('strata serve as a process', () => {
  let dir: string;
  const running: ServeProcess[] = [];

  beforeAll(() => ensureBuilt());
  afterEach(() => {
    for (const server of running.splice(0)) server.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the first admin on an empty data dir, prints it once, and exits 0 on SIGTERM', async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-serve-'));
    const first = await startServe(dir);
    running.push(first);
    const apiKey = /apiKey: (\S+)/.exec(first.stdout)?.[1];
    expect(first.stdout).toMatch(/username: admin/);
    expect(first.stdout).toMatch(/tenant: 100000/);
    expect(apiKey).toMatch(/^[0-9a-f]{32}$/);
    const token = await tokenFor(first.url, 'admin', apiKey as string);
    const now = Date.now();
    const ingest = await fetch(`${first.url}/ingest/v2.0/100000/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-token': token },
      body: JSON.stringify([{ metricName: 'boot', metricValue: 1, collectionTime: now - 1000, ttlInSeconds: 60 }]),
    });
    expect(ingest.status).toBe(200);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const second = await startServe(dir);
    running.push(second);
    expect(second.stdout).not.toMatch(/apiKey/);
    const again = await tokenFor(second.url, 'admin', apiKey as string);
    const view = await fetch(`${second.url}/metrics/v2.0/100000/views/boot?from=${now - 60_000}&to=${now}&resolution=FULL`, { headers: { 'x-auth-token': again } });
    expect(((await view.json()) as { values: unknown[] }).values).toHaveLength(1);
    expect(runCli(['user', 'list', '--data', dir])).toMatch(/admin\s+100000\s+admin/);
  });

  it('creates no first admin when it cannot listen (port taken), so the next start still prints one', async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-port-'));
    const holder = await startServe(join(dir, 'holder'));
    running.push(holder);
    const port = new URL(holder.url).port;
    const data = join(dir, 'data');
    await expect(startServe(data, ['--port', port])).rejects.toThrow(/exited/);
    expect(runCli(['user', 'list', '--data', data])).not.toMatch(/admin/);
    const next = await startServe(data);
    running.push(next);
    expect(next.stdout).toMatch(/apiKey: [0-9a-f]{32}/);
  });

  it('loses no acknowledged point when killed with SIGKILL during concurrent ingestion', async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-kill-'));
    const apiKey = 'kill-test-api-key-0123456789';
    expect(runCli(['user', 'create', '--data', dir, '--username', 'k', '--tenant', 'kt', '--api-key', apiKey])).toMatch(/apiKey: kill-test-api-key/);
    const server = await startServe(dir);
    running.push(server);
    const token = await tokenFor(server.url, 'k', apiKey);
    const t0 = Math.floor((Date.now() - 24 * 3_600_000) / STEP_MS) * STEP_MS;
    const acked: number[][] = Array.from({ length: CLIENTS }, () => []);
    let killed = false;

    const client = async (c: number): Promise<void> => {
      for (let b = 0; b < BATCHES_MAX && !killed; b++) {
        const body = Array.from({ length: METRICS_PER_BATCH }, (_, j) => ({ metricName: `kill.c${c}.m${j}`, metricValue: b, collectionTime: t0 + b * STEP_MS, ttlInSeconds: 86_400 }));
        try {
          const response = await fetch(`${server.url}/ingest/v2.0/kt/ingest`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-auth-token': token },
            body: JSON.stringify(body),
          });
          if (response.status === 200) acked[c]?.push(b);
          else throw new Error(`unexpected status ${response.status}`);
        } catch (error) {
          if (killed) return; // in flight at the kill: not acknowledged, may or may not be stored
          throw error;
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
    while (acked.some((list) => list.length < ACKS_BEFORE_KILL)) await new Promise((resolve) => setTimeout(resolve, 5));
    killed = true;
    server.child.kill('SIGKILL');
    expect(await server.exited).toBe('SIGKILL');
    await Promise.all(clients);

    const restarted = await startServe(dir);
    running.push(restarted);
    const again = await tokenFor(restarted.url, 'k', apiKey);
    for (let c = 0; c < CLIENTS; c++) {
      const expected = acked[c] as number[];
      expect(expected.length).toBeGreaterThanOrEqual(ACKS_BEFORE_KILL);
      for (let j = 0; j < METRICS_PER_BATCH; j++) {
        const url = `${restarted.url}/metrics/v2.0/kt/views/kill.c${c}.m${j}?from=${t0}&to=${t0 + BATCHES_MAX * STEP_MS}&resolution=FULL`;
        const response = await fetch(url, { headers: { 'x-auth-token': again } });
        expect(response.status).toBe(200);
        const { values } = (await response.json()) as { values: { timestamp: number; average: number }[] };
        const stored = new Map(values.map((v) => [v.timestamp, v.average]));
        const missing = expected.filter((b) => stored.get(t0 + b * STEP_MS) !== b);
        expect(missing, `client ${c} metric ${j}`).toEqual([]);
      }
    }
  });
});
