// Owns the storage backend flags of `strata serve`: --backend, the --clickhouse-* flags, the password from STRATA_CLICKHOUSE_PASSWORD, and how the chosen store is named in logs.
import { Option } from 'commander';
import { DEFAULT_CLICKHOUSE_DATABASE } from '../clickhouse/clickhouse-options.js';
import { StrataError, isStrataError } from '../core/errors.js';
import type { StoreBackend } from '../store-types.js';
import { collectList } from './cli-parsers.js';

/** The environment variable the ClickHouse password is read from; there is no flag, which `ps` would show. */
export const CLICKHOUSE_PASSWORD_ENV = 'STRATA_CLICKHOUSE_PASSWORD';

/** The backends `--backend` accepts. */
export const SERVE_BACKENDS = ['sqlite', 'clickhouse'] as const;

/** The flags as commander names them. */
export interface BackendServeFlags {
  readonly backend: (typeof SERVE_BACKENDS)[number];
  /** Every shard's HTTP URL in the cluster's shard order (comma-separated; a repeated flag appends). */
  readonly clickhouseUrl?: readonly string[];
  readonly clickhouseCluster?: string;
  readonly clickhouseDatabase?: string;
  readonly clickhouseUser?: string;
}

/** The flags; the environment variable of each is STRATA_ plus its name. */
export function backendServeOptions(): Option[] {
  return [
    new Option('--backend <name>', "where the metrics engine keeps its data: 'sqlite' (partition files in --data) or 'clickhouse' (a ClickHouse cluster; see docs/clickhouse.md)")
      .env('STRATA_BACKEND')
      .choices([...SERVE_BACKENDS])
      .default('sqlite'),
    new Option('--clickhouse-url <urls>', "HTTP URL of every ClickHouse shard, comma-separated, in the cluster's shard order (a repeated flag appends); the first also takes the Distributed statements")
      .env('STRATA_CLICKHOUSE_URL')
      .argParser(collectList),
    new Option('--clickhouse-cluster <name>', "cluster name in the servers' remote_servers config; its shards must be --clickhouse-url, in order").env('STRATA_CLICKHOUSE_CLUSTER'),
    new Option('--clickhouse-database <name>', `database Strata creates and owns on every shard (default: ${DEFAULT_CLICKHOUSE_DATABASE})`).env('STRATA_CLICKHOUSE_DATABASE'),
    new Option('--clickhouse-user <name>', `ClickHouse user (default: the server's default user); the password is read from ${CLICKHOUSE_PASSWORD_ENV} only`).env('STRATA_CLICKHOUSE_USER'),
  ];
}

/** The ClickHouse flags a SQLite server must not be given, with the names the refusal uses. */
const CLICKHOUSE_FLAGS = [
  ['clickhouseUrl', '--clickhouse-url'],
  ['clickhouseCluster', '--clickhouse-cluster'],
  ['clickhouseDatabase', '--clickhouse-database'],
  ['clickhouseUser', '--clickhouse-user'],
] as const satisfies readonly (readonly [keyof BackendServeFlags, string])[];

/** A flag that `--backend clickhouse` cannot do without. */
function required(option: 'clickhouseUrl' | 'clickhouseCluster', flag: string, accepted: string): StrataError {
  return new StrataError('CONFIG_INVALID', `--backend clickhouse needs ${flag}: ${accepted}`, { option, accepted });
}

/**
 * The store backend the flags choose, with the password from `env` (only with --backend
 * clickhouse; unset or empty is none). The flags are checked together here; URL syntax, cluster
 * and database names are the store's to check (see backendProblemAsFlag). CONFIG_INVALID (exit 2):
 * a ClickHouse flag without --backend clickhouse (it would be silently ignored), or --backend
 * clickhouse without --clickhouse-url or --clickhouse-cluster.
 */
export function storeBackendOf(flags: BackendServeFlags, env: Readonly<Record<string, string | undefined>>): StoreBackend {
  if (flags.backend === 'sqlite') {
    for (const [option, flag] of CLICKHOUSE_FLAGS) {
      if (flags[option] === undefined) continue;
      throw new StrataError('CONFIG_INVALID', `${flag} is given without --backend clickhouse: add --backend clickhouse to use a ClickHouse cluster, or leave ${flag} out`, {
        option,
        accepted: 'only with --backend clickhouse',
      });
    }
    return 'sqlite';
  }
  const urls = flags.clickhouseUrl ?? [];
  if (urls.length === 0) throw required('clickhouseUrl', '--clickhouse-url', "the HTTP URL of every shard, comma-separated, in the cluster's shard order");
  if (flags.clickhouseCluster === undefined || flags.clickhouseCluster.trim() === '') {
    throw required('clickhouseCluster', '--clickhouse-cluster', "the cluster name in the servers' remote_servers config");
  }
  const password = env[CLICKHOUSE_PASSWORD_ENV];
  return {
    kind: 'clickhouse',
    urls: [...urls],
    cluster: flags.clickhouseCluster,
    ...(flags.clickhouseDatabase !== undefined ? { database: flags.clickhouseDatabase } : {}),
    ...(flags.clickhouseUser !== undefined ? { username: flags.clickhouseUser } : {}),
    ...(password !== undefined && password !== '' ? { password } : {}),
  };
}

/** The flag behind each ClickHouse option the store may refuse, by the option name its error carries. */
const FLAG_OF_STORE_OPTION: Readonly<Record<string, string>> = {
  urls: '--clickhouse-url',
  cluster: '--clickhouse-cluster',
  database: '--clickhouse-database',
  username: '--clickhouse-user',
};

/**
 * The store's refusal of a ClickHouse option (STORE_OPTIONS_INVALID naming `backend.urls`,
 * `backend.urls[i]`, `backend.cluster`, `backend.database` or `backend.username`) as
 * CONFIG_INVALID naming the flag, so a person sees which flag to fix; any other error is returned
 * as it is.
 */
export function backendProblemAsFlag(error: unknown): unknown {
  if (!isStrataError(error) || error.code !== 'STORE_OPTIONS_INVALID') return error;
  const option = typeof error.details.option === 'string' ? error.details.option.replace(/^backend\./, '').replace(/\[\d+\]$/, '') : '';
  const flag = FLAG_OF_STORE_OPTION[option];
  if (flag === undefined) return error;
  return new StrataError('CONFIG_INVALID', `${flag}: ${error.message}`, { ...error.details, option: flag.slice(2) });
}

/** A shard URL as shown in logs: its origin and path, never a user, password or query. */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}

/** What the server logs and prints about its store: the backend, and for ClickHouse the cluster, database and shards (never credentials). */
export interface StoreDescription {
  readonly backend: 'sqlite' | 'clickhouse';
  readonly cluster?: string;
  readonly database?: string;
  readonly shards?: readonly string[];
  /** One line for people: `sqlite (partition files in the data directory)` or `clickhouse cluster c, database d, 2 shards: …`. */
  readonly text: string;
}

/** Describes the store a backend opens, for the start line and the "listening" log entry. */
export function describeBackend(backend: StoreBackend): StoreDescription {
  if (backend === 'sqlite') return { backend: 'sqlite', text: 'sqlite (partition files in the data directory)' };
  const shards = backend.urls.map(shownUrl);
  const database = backend.database ?? DEFAULT_CLICKHOUSE_DATABASE;
  const count = `${shards.length} shard${shards.length === 1 ? '' : 's'}`;
  return { backend: 'clickhouse', cluster: backend.cluster, database, shards, text: `clickhouse cluster ${backend.cluster}, database ${database}, ${count}: ${shards.join(', ')}` };
}
