// Tests `strata serve --backend clickhouse` as a process on its own 2-shard cluster: ingest over HTTP, FULL and MIN5 back, listing, a stopped shard answering 503 STORE_SHARD_UNAVAILABLE (and /healthz saying so), recovery once it is back.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseStatement, startClickHouseCluster, type ClickHouseCluster } from '../support/clickhouse-cluster.js';
import { until } from './poll-until.js';
import { CLI, ensureBuilt, ROOT, startServe, tokenFor, type ServeProcess } from './serve-process.js';

/** The tenant of the first-run admin (`--admin-tenant`'s default). */
const TENANT = '100000';
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** Metrics written: enough that both shards hold some (checked, not assumed). */
const METRICS = Array.from({ length: 12 }, (_, k) => `web${String(k).padStart(2, '0')}.cpu`);
/** One point every 30 s over the hour. */
const POINTS_PER_METRIC = 120;
/** How long a shard's failure or recovery may take to show (pings run every 5 s); bounds a broken test only. */
const SHOWS_WITHIN_MS = 45_000;
/** The refusals' budget: eight server starts, each loading the whole CLI. */
const REFUSALS_TIMEOUT_MS = 180_000;
/** The whole serve test's budget: stopping a shard gracefully alone takes about 10 s here. */
const SERVE_TEST_TIMEOUT_MS = 240_000;

interface Fault {
  readonly type: string;
  readonly code: number;
  readonly message: string;
  readonly details: { readonly code: string; readonly shard?: string };
  readonly errors?: readonly unknown[];
}

interface View {
  readonly unit: string;
  readonly values: readonly { timestamp: number; numPoints: number; average?: number; variance?: number; min?: number; max?: number }[];
}

/** The value of metric `k` at point `i`: 40..49 plus k, so every 5-minute bucket's statistics are exact. */
function valueOf(k: number, i: number): number {
  return 40 + (i % 10) + k;
}

describe('strata serve --backend clickhouse', () => {
  let dir: string;
  let cluster: ClickHouseCluster;
  let server: ServeProcess | undefined;
  const database = `strata_serve_${process.pid}`;

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'strata-ch-serve-'));
    cluster = await startClickHouseCluster({ dir: join(dir, 'cluster'), shards: 2 });
  });

  afterAll(async () => {
    if (server !== undefined && server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `strata serve` with the cluster's flags, expecting it to refuse to start. */
  function refusedServe(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
    const result = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--data', join(dir, 'refused'), '--no-agent-endpoint', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 50_000 });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it('refuses bad backend flags at start with exit 2 naming the flag, and an unreachable shard with exit 1, before creating anything', () => {
    const cases: [string[], RegExp][] = [
      [['--backend', 'clickhouse', '--clickhouse-url', cluster.urls.join(',')], /CONFIG_INVALID: --backend clickhouse needs --clickhouse-cluster/],
      [['--backend', 'clickhouse', '--clickhouse-cluster', cluster.cluster], /CONFIG_INVALID: --backend clickhouse needs --clickhouse-url/],
      [['--clickhouse-url', cluster.urls.join(',')], /CONFIG_INVALID: --clickhouse-url is given without --backend clickhouse/],
      [['--backend', 'clickhouse', '--clickhouse-url', 'ftp://127.0.0.1:1', '--clickhouse-cluster', cluster.cluster], /CONFIG_INVALID: --clickhouse-url: /],
      [['--backend', 'clickhouse', '--clickhouse-url', cluster.urls.join(','), '--clickhouse-cluster', cluster.cluster, '--clickhouse-database', 'no-dashes'], /CONFIG_INVALID: --clickhouse-database: /],
      // The URLs must be the cluster's shards, in its order (Strata writes each series to the shard Distributed would pick).
      [['--backend', 'clickhouse', '--clickhouse-url', [...cluster.urls].reverse().join(','), '--clickhouse-cluster', cluster.cluster, '--clickhouse-database', 'strata_reversed'], /CONFIG_INVALID: --clickhouse-url: .*cluster's order/],
      [['--backend', 'clickhouse', '--clickhouse-url', cluster.urls.join(','), '--clickhouse-cluster', 'strata1', '--clickhouse-database', 'strata_one'], /CONFIG_INVALID: --clickhouse-url: cluster strata1 has 1 shards/],
    ];
    for (const [args, message] of cases) {
      const refused = refusedServe(args);
      expect(refused.status, args.join(' ')).toBe(2);
      expect(refused.stderr).toMatch(message);
      expect(refused.stdout).toBe('');
    }
    // A shard that does not answer at start: exit 1, and still no admin whose key nobody would see.
    const unreachable = refusedServe(['--backend', 'clickhouse', '--clickhouse-url', `${cluster.urls[0]},http://127.0.0.1:1`, '--clickhouse-cluster', cluster.cluster]);
    expect(unreachable.status).toBe(1);
    expect(unreachable.stderr).toMatch(/STORE_SHARD_UNAVAILABLE: .*127\.0\.0\.1:1\b/);
    expect(unreachable.stdout).toBe('');
    expect(existsSync(join(dir, 'refused', 'identity.sqlite'))).toBe(false);
  }, REFUSALS_TIMEOUT_MS);

  it('serves ingest, FULL and MIN5 queries and listing from the cluster; a stopped shard answers 503 STORE_SHARD_UNAVAILABLE until it is back', async () => {
    const data = join(dir, 'data');
    const flags = ['--backend', 'clickhouse', '--clickhouse-url', cluster.urls.join(','), '--clickhouse-cluster', cluster.cluster, '--clickhouse-database', database];
    server = await startServe(data, flags);
    const { url } = server;
    expect(server.stdout).toContain(`store: clickhouse cluster ${cluster.cluster}, database ${database}, 2 shards: ${cluster.urls.join(', ')}\n`);
    const apiKey = /apiKey: (\S+)/.exec(server.stdout)?.[1] as string;
    const token = await tokenFor(url, 'admin', apiKey);
    const headers = { 'x-auth-token': token, 'content-type': 'application/json' };

    const now = Date.now();
    const start = now - (now % (5 * MINUTE_MS)) - HOUR_MS;
    const ingest = (body: unknown): Promise<Response> => fetch(`${url}/ingest/v2.0/${TENANT}/ingest`, { method: 'POST', headers, body: JSON.stringify(body) });
    const view = (metric: string, query: string): Promise<Response> =>
      fetch(`${url}/metrics/v2.0/${TENANT}/views/${encodeURIComponent(metric)}?from=${start}&to=${start + HOUR_MS}&${query}`, { headers: { 'x-auth-token': token } });
    const search = (): Promise<Response> => fetch(`${url}/metrics/v2.0/${TENANT}/metrics/search?query=web*`, { headers: { 'x-auth-token': token } });

    // Ingest: every metric's hour in one body; 200 means ClickHouse has every point.
    const body = METRICS.flatMap((metricName, k) =>
      Array.from({ length: POINTS_PER_METRIC }, (_, i) => ({ metricName, metricValue: valueOf(k, i), collectionTime: start + i * 30_000, ttlInSeconds: 172_800, unit: 'percent' })),
    );
    const written = await ingest(body);
    expect(written.status, await written.clone().text()).toBe(200);

    // The points are spread over both shards by series, and the engine wrote nothing of its own into the data directory.
    const perShard = await Promise.all(cluster.urls.map(async (shard) => Number((await clickhouseStatement(shard, `SELECT count() FROM ${database}.points_local`)).trim())));
    expect(perShard.every((count) => count > 0), `points per shard: ${perShard.join(', ')}`).toBe(true);
    expect(perShard.reduce((a, b) => a + b, 0)).toBe(METRICS.length * POINTS_PER_METRIC);
    expect(existsSync(join(data, 'identity.sqlite'))).toBe(true);
    expect(existsSync(join(data, 'partitions'))).toBe(false);
    expect(existsSync(join(data, 'wal'))).toBe(false);

    // FULL: every point as written. MIN5: 12 buckets of 10 points each, computed from the raw points.
    for (const [k, metric] of METRICS.entries()) {
      const full = await view(metric, 'resolution=FULL');
      expect(full.status).toBe(200);
      const fullView = (await full.json()) as View;
      expect(fullView.unit).toBe('percent');
      expect(fullView.values.map((v) => [v.timestamp, v.average])).toEqual(Array.from({ length: POINTS_PER_METRIC }, (_, i) => [start + i * 30_000, valueOf(k, i)]));
      const min5 = await view(metric, 'resolution=MIN5&select=average,variance,min,max');
      expect(min5.status).toBe(200);
      const buckets = ((await min5.json()) as View).values;
      expect(buckets).toEqual(
        Array.from({ length: 12 }, (_, b) => ({ timestamp: start + b * 5 * MINUTE_MS, numPoints: 10, average: 44.5 + k, variance: 8.25, min: 40 + k, max: 49 + k })),
      );
    }

    // Last write wins: a rewritten point reads as its new value, in FULL and in its bucket.
    const rewritten = await ingest([{ metricName: METRICS[0], metricValue: 140, collectionTime: start, unit: 'percent' }]);
    expect(rewritten.status).toBe(200);
    const fullAfter = ((await (await view(METRICS[0] as string, 'resolution=FULL')).json()) as View).values;
    expect(fullAfter).toHaveLength(POINTS_PER_METRIC);
    expect(fullAfter[0]?.average).toBe(140);
    const bucketAfter = ((await (await view(METRICS[0] as string, 'resolution=MIN5&select=average,max')).json()) as View).values[0];
    expect(bucketAfter).toEqual({ timestamp: start, numPoints: 10, average: 54.5, max: 140 });

    // Listing: every metric, sorted, with its unit.
    const listed = await search();
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual(METRICS.map((metric) => ({ metric, unit: 'percent' })));

    // Which metrics live on which shard (each shard's own registry rows): an operation on one of them needs its shard.
    const metricsOn = async (shard: string): Promise<string[]> =>
      (await clickhouseStatement(shard, `SELECT DISTINCT metric FROM ${database}.series_local WHERE tenant = '${TENANT}' ORDER BY metric`))
        .split('\n')
        .filter((line) => line !== '');
    const [onFirst, onSecond] = await Promise.all(cluster.urls.map(metricsOn));
    expect([...(onFirst ?? []), ...(onSecond ?? [])].sort()).toEqual(METRICS);
    const up = onFirst?.[0] as string;
    const down = onSecond?.[0] as string;

    await cluster.stopShard(1);
    const expectShardFault = async (response: Response, what: string): Promise<Fault> => {
      const text = await response.text();
      expect(response.status, `${what}: ${text}`).toBe(503);
      expect(response.headers.get('retry-after')).not.toBeNull();
      const fault = JSON.parse(text) as Fault;
      expect(fault).toMatchObject({ type: 'systemFailureError', code: 503, details: { code: 'STORE_SHARD_UNAVAILABLE' } });
      return fault;
    };
    // Ingest of a batch that needs the stopped shard: 503 in the ingest shape (with Blueflood's errors list), nothing acknowledged.
    const refusedIngest = await ingest(METRICS.map((metricName, k) => ({ metricName, metricValue: k, collectionTime: start + HOUR_MS - 30_000 })));
    const ingestFault = await expectShardFault(refusedIngest, 'ingest');
    expect(Array.isArray(ingestFault.errors)).toBe(true);
    // A query of a series on the stopped shard, and the listing (every shard's names): 503, never a partial answer.
    await expectShardFault(await view(down, 'resolution=FULL'), `FULL view of ${down}`);
    await expectShardFault(await view(down, 'resolution=MIN5'), `MIN5 view of ${down}`);
    await expectShardFault(await search(), 'search');
    // What needs only the shard that is up goes on: a query of its series, a batch of only its series.
    const upView = await view(up, 'resolution=MIN5');
    expect(upView.status).toBe(200);
    expect(((await upView.json()) as View).values).toHaveLength(12);
    const upIngest = await ingest([{ metricName: up, metricValue: 1, collectionTime: start + HOUR_MS - 30_000, unit: 'percent' }]);
    expect(upIngest.status, await upIngest.clone().text()).toBe(200);
    // /healthz: unavailable, naming the stopped shard. A failed cross-shard statement may first name
    // the shard it was sent to as well; the next ping of every shard settles on the one that is down.
    let lastHealth = '';
    const health = await until(
      () => `healthz to report exactly the stopped shard; last answer: ${lastHealth}`,
      async () => {
        const response = await fetch(`${url}/healthz`);
        lastHealth = `${response.status} ${await response.clone().text()}`;
        const answer = (await response.json()) as { status: string; reasons?: { code: string; details: { shard?: string } }[] };
        const shards = answer.reasons?.filter((r) => r.code === 'STORE_SHARD_UNAVAILABLE').map((r) => r.details.shard);
        return response.status === 503 && shards?.length === 1 && shards[0] === cluster.urls[1] ? answer : undefined;
      },
      SHOWS_WITHIN_MS,
      250,
    );
    expect(health.status).toBe('unavailable');

    // Back: the same server answers again without a restart, and /healthz clears.
    await cluster.startShard(1);
    await until(
      'ingest to succeed once the shard is back',
      async () => (await ingest([{ metricName: down, metricValue: 7, collectionTime: start + HOUR_MS - 30_000, unit: 'percent' }])).status === 200,
      SHOWS_WITHIN_MS,
      250,
    );
    const fullBack = await view(down, 'resolution=FULL');
    expect(fullBack.status).toBe(200);
    const backValues = ((await fullBack.json()) as View).values;
    expect(backValues.at(-1)).toEqual({ timestamp: start + HOUR_MS - 30_000, numPoints: 1, average: 7 });
    expect((await search()).status).toBe(200);
    await until('healthz to be ok again', async () => (await fetch(`${url}/healthz`)).status === 200, SHOWS_WITHIN_MS, 250);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, SERVE_TEST_TIMEOUT_MS);
});
