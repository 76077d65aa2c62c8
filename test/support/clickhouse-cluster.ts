// Owns the tests' ClickHouse cluster: Debian's clickhouse-server started on loopback ports with its own config, data and PID files.
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { ensureProgram } from './debian-program.js';

/** How long a server may take to answer `GET /ping` with "Ok." after it was spawned. */
export const CLICKHOUSE_READY_TIMEOUT_MS = 30_000;
/** How long a server may take to exit after SIGTERM before it gets SIGKILL. */
export const CLICKHOUSE_STOP_GRACE_MS = 15_000;
/** Pause between two readiness probes, and between two looks at a stopping process. */
const POLL_MS = 25;
/** How long one `/ping` may take before it counts as unanswered (something else may hold the port). */
const PING_TIMEOUT_MS = 1_000;
/** Attempts at a set of free ports: another process may take a port between our probe and the server's bind. */
const PORT_ATTEMPTS_MAX = 3;
/** Bytes of each log file quoted in a start failure. */
const LOG_TAIL_BYTES = 4_000;
/** Each server's mark cache and uncompressed cache, in bytes: small, so that two servers fit a 2-core CI box. */
const CACHE_BYTES = 64 * 1024 * 1024;
/** Threads of each server's background pool (merges): few, as two servers and Node share 2 cores in CI. */
const BACKGROUND_POOL_THREADS = 4;
/** What one query may allocate on a test server, in bytes. */
const QUERY_MEMORY_BYTES = 2 * 1024 * 1024 * 1024;

/** A running test cluster of one or two single-replica shards on 127.0.0.1. */
export interface ClickHouseCluster {
  /** Each shard's HTTP URL (`http://127.0.0.1:PORT`), in shard order; shard 0 is the entry for Distributed statements. */
  readonly urls: readonly string[];
  /** The cluster name over all the shards: `strata1` (one shard) or `strata2` (two). */
  readonly cluster: string;
  /** The directory that holds every server's `s<N>/` (config, data, logs, pid). */
  readonly dir: string;
  /** Stops the server of `urls[index]` (SIGTERM to its own PID, SIGKILL after the grace); a stopped shard stays as is. */
  stopShard(index: number): Promise<void>;
  /** Starts the server of `urls[index]` again on the same config, data and ports; resolves once it answers `/ping`. */
  startShard(index: number): Promise<void>;
  /** Stops every server; leaves `dir` in place (the caller removes it). */
  stop(): Promise<void>;
}

interface ShardPorts {
  readonly http: number;
  readonly tcp: number;
}

/** POSTs one statement to a server's HTTP interface and returns the answer's text; throws on any status but 200. */
export async function clickhouseStatement(url: string, sql: string): Promise<string> {
  const response = await fetch(url, { method: 'POST', body: sql });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`ClickHouse ${url} answered ${response.status}: ${text.trim()}`);
  return text;
}

/** Holds `count` distinct free loopback ports open at once, then releases them all. */
async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      ports.push(
        await new Promise<number>((resolve, reject) => {
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => {
            const address = server.address();
            resolve(typeof address === 'object' && address !== null ? address.port : 0);
          });
        }),
      );
    }
    return ports;
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

function shardDir(dir: string, index: number): string {
  return join(dir, `s${index + 1}`);
}

function clusterXml(name: string, shards: readonly ShardPorts[]): string {
  const shardXml = shards.map(
    (s) => `<shard><internal_replication>false</internal_replication><replica><host>127.0.0.1</host><port>${s.tcp}</port></replica></shard>`,
  );
  return `    <${name}>\n      ${shardXml.join('\n      ')}\n    </${name}>`;
}

/** The server config: loopback only, HTTP + native TCP, no interserver port, no https, no ZooKeeper, UTC, paths under `home`. */
function configXml(home: string, own: ShardPorts, all: readonly ShardPorts[]): string {
  const clusters = [clusterXml('strata1', all.slice(0, 1))];
  if (all.length === 2) clusters.push(clusterXml('strata2', all));
  return `<?xml version="1.0"?>
<!-- Written by test/support/clickhouse-cluster.ts for one test shard. -->
<yandex>
  <logger>
    <level>information</level>
    <log>${home}/log/clickhouse-server.log</log>
    <errorlog>${home}/log/clickhouse-server.err.log</errorlog>
    <size>10M</size>
    <count>2</count>
  </logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${own.http}</http_port>
  <tcp_port>${own.tcp}</tcp_port>
  <max_connections>256</max_connections>
  <keep_alive_timeout>3</keep_alive_timeout>
  <max_concurrent_queries>64</max_concurrent_queries>
  <mark_cache_size>${CACHE_BYTES}</mark_cache_size>
  <uncompressed_cache_size>${CACHE_BYTES}</uncompressed_cache_size>
  <path>${home}/data/</path>
  <tmp_path>${home}/tmp/</tmp_path>
  <user_files_path>${home}/user_files/</user_files_path>
  <format_schema_path>${home}/format_schemas/</format_schema_path>
  <users_config>${home}/etc/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <umask>077</umask>
  <mlock_executable>false</mlock_executable>
  <remote_servers>
${clusters.join('\n')}
  </remote_servers>
</yandex>
`;
}

/** The users config: a passwordless `default` user that only loopback clients may use. */
function usersXml(): string {
  return `<?xml version="1.0"?>
<!-- Written by test/support/clickhouse-cluster.ts: the test servers' only user. -->
<yandex>
  <profiles>
    <default>
      <max_memory_usage>${QUERY_MEMORY_BYTES}</max_memory_usage>
      <load_balancing>in_order</load_balancing>
      <background_pool_size>${BACKGROUND_POOL_THREADS}</background_pool_size>
    </default>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas>
    <default>
      <interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval>
    </default>
  </quotas>
</yandex>
`;
}

/** Creates the shard's private directories (mode 0700) and writes its config.xml and users.xml. */
function writeShardFiles(home: string, own: ShardPorts, all: readonly ShardPorts[]): void {
  for (const sub of ['', 'etc', 'data', 'tmp', 'user_files', 'format_schemas', 'log']) {
    mkdirSync(join(home, sub), { recursive: true, mode: 0o700 });
    chmodSync(join(home, sub), 0o700);
  }
  writeFileSync(join(home, 'etc', 'config.xml'), configXml(home, own, all), { mode: 0o600 });
  writeFileSync(join(home, 'etc', 'users.xml'), usersXml(), { mode: 0o600 });
}

function tail(path: string): string {
  if (!existsSync(path)) return '';
  const text = readFileSync(path, 'latin1');
  return text.length > LOG_TAIL_BYTES ? text.slice(-LOG_TAIL_BYTES) : text;
}

function logTail(home: string): string {
  const files = ['stdout.log', 'clickhouse-server.err.log'];
  return files.map((f) => `--- ${join(home, 'log', f)} (tail)\n${tail(join(home, 'log', f))}`).join('\n');
}

const configArg = (home: string): string => `--config-file=${join(home, 'etc', 'config.xml')}`;

/** True while `pid` is a live (not zombie) clickhouse-server running on `home`'s config: only such a process is ours to signal. */
function isOurServer(pid: number, home: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return false;
    const args = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
    return (args[0] ?? '').endsWith('clickhouse-server') && args.includes(configArg(home));
  } catch {
    return false;
  }
}

function savedPid(home: string): number | undefined {
  const path = join(home, 'pid');
  if (!existsSync(path)) return undefined;
  const pid = Number(readFileSync(path, 'utf8').trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * True while `pid` runs (exists and is not a zombie). Read from /proc/<pid>/stat, not cmdline: an
 * exiting process's cmdline reads empty while it still runs, which would end the wait too early.
 */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/** Waits until `pid` is gone (or a zombie) or `ms` have passed; true when it is gone. */
async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (running(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}

/** SIGTERM to the shard's saved PID when that PID is a clickhouse-server on the shard's config, SIGKILL after the grace. */
async function stopServer(home: string): Promise<void> {
  const pid = savedPid(home);
  if (pid === undefined || !isOurServer(pid, home)) return;
  process.kill(pid, 'SIGTERM');
  if (await waitGone(pid, CLICKHOUSE_STOP_GRACE_MS)) return;
  if (isOurServer(pid, home)) process.kill(pid, 'SIGKILL');
  await waitGone(pid, CLICKHOUSE_STOP_GRACE_MS);
}

/** Spawns the server detached (output to log/stdout.log, PID to `pid`) and waits for `/ping`; stops it again on failure. */
async function startServer(home: string, httpPort: number): Promise<void> {
  const out = openSync(join(home, 'log', 'stdout.log'), 'a', 0o600);
  let pid: number | undefined;
  let exit = '';
  try {
    const child = spawn('clickhouse-server', [configArg(home)], { cwd: home, detached: true, stdio: ['ignore', out, out] });
    child.once('exit', (code, signal) => (exit = `exited with ${code ?? signal}`));
    child.once('error', (error) => (exit = `failed to spawn: ${error.message}`));
    child.unref();
    pid = child.pid;
  } finally {
    closeSync(out);
  }
  if (pid !== undefined) writeFileSync(join(home, 'pid'), `${pid}\n`, { mode: 0o600 });
  const url = `http://127.0.0.1:${httpPort}/ping`;
  const deadline = Date.now() + CLICKHOUSE_READY_TIMEOUT_MS;
  for (;;) {
    if (exit === '' && pid !== undefined) {
      const body = await fetch(url, { signal: AbortSignal.timeout(PING_TIMEOUT_MS) }).then((r) => r.text(), () => '');
      if (body === 'Ok.\n') return;
    }
    const reason = exit !== '' ? exit : pid === undefined ? 'got no PID' : Date.now() >= deadline ? `did not answer ${url} within ${CLICKHOUSE_READY_TIMEOUT_MS} ms` : '';
    if (reason !== '') {
      await stopServer(home);
      throw new Error(`clickhouse-server in ${home} ${reason}\n${logTail(home)}`);
    }
    await sleep(POLL_MS);
  }
}

function portTaken(error: unknown): boolean {
  return error instanceof Error && /Address already in use/i.test(error.message);
}

/**
 * Starts `shards` clickhouse-server processes (installing Debian's package when it is missing) with their
 * config, data, logs and PID under `<dir>/s<N>/`, on free loopback ports; resolves once every one answers `/ping`.
 * Both servers carry the clusters `strata1` (shard 1) and, with two shards, `strata2` (both shards).
 */
export async function startClickHouseCluster(options: { dir: string; shards: 1 | 2 }): Promise<ClickHouseCluster> {
  ensureProgram('clickhouse-server', 'clickhouse-server');
  const { dir, shards } = options;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const homes = Array.from({ length: shards }, (_, i) => shardDir(dir, i));
  let ports: ShardPorts[] = [];
  for (let attempt = 1; ; attempt++) {
    const free = await freePorts(shards * 2);
    ports = homes.map((_, i) => ({ http: free[i * 2] ?? 0, tcp: free[i * 2 + 1] ?? 0 }));
    homes.forEach((home, i) => writeShardFiles(home, ports[i] as ShardPorts, ports));
    const started = await Promise.allSettled(homes.map((home, i) => startServer(home, (ports[i] as ShardPorts).http)));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed === undefined) break;
    await Promise.all(homes.map(stopServer));
    if (!started.some((s) => s.status === 'rejected' && portTaken(s.reason)) || attempt >= PORT_ATTEMPTS_MAX) throw failed.reason;
  }
  const homeOf = (index: number): string => {
    const home = homes[index];
    if (home === undefined) throw new RangeError(`no shard ${index} in a ${shards}-shard cluster`);
    return home;
  };
  return {
    urls: ports.map((p) => `http://127.0.0.1:${p.http}`),
    cluster: shards === 2 ? 'strata2' : 'strata1',
    dir,
    stopShard: async (index) => stopServer(homeOf(index)),
    startShard: async (index) => {
      const home = homeOf(index);
      const pid = savedPid(home);
      if (pid !== undefined && isOurServer(pid, home)) return;
      await startServer(home, (ports[index] as ShardPorts).http);
    },
    stop: async () => void (await Promise.all(homes.map(stopServer))),
  };
}
