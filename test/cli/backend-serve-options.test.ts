// Tests the storage backend flags of strata serve: parsing, the checks made together, the password from the environment only, the store's refusals named by flag, and the start line.
import { Command } from 'commander';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CLICKHOUSE_PASSWORD_ENV,
  backendProblemAsFlag,
  backendServeOptions,
  describeBackend,
  storeBackendOf,
  type BackendServeFlags,
} from '../../src/cli/backend-serve-options.js';
import { serveOptions } from '../../src/cli/serve-options.js';
import { configError } from '../../src/core/config-error.js';
import { StrataError, isStrataError } from '../../src/core/errors.js';

const SHARDS = ['http://127.0.0.1:18123', 'http://127.0.0.1:18124'];

/** Parses the backend flags alone, with `env` as the environment commander reads. */
function parse(args: readonly string[], env: Record<string, string> = {}): BackendServeFlags {
  const saved = { ...process.env };
  for (const name of Object.keys(process.env)) if (name.startsWith('STRATA_')) delete process.env[name];
  Object.assign(process.env, env);
  try {
    const command = new Command('serve').exitOverride().configureOutput({ writeErr: () => undefined });
    for (const option of backendServeOptions()) command.addOption(option);
    command.parse(['node', 'serve', ...args]);
    return command.opts<BackendServeFlags>();
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
}

/** The CONFIG_INVALID error `run` throws (fails when it throws nothing or something else). */
function refusal(run: () => unknown): StrataError {
  try {
    run();
  } catch (error) {
    if (isStrataError(error) && error.code === 'CONFIG_INVALID') return error;
    throw error;
  }
  return expect.unreachable('expected CONFIG_INVALID');
}

describe('backend serve options', () => {
  it('defaults to sqlite, with no ClickHouse flags set', () => {
    const flags = parse([]);
    expect(flags.backend).toBe('sqlite');
    expect(storeBackendOf(flags, {})).toBe('sqlite');
    expect(describeBackend('sqlite')).toMatchObject({ backend: 'sqlite' });
  });

  it('takes the shard URLs as a comma list, a repeated flag appending in order, and passes the rest as given', () => {
    const flags = parse(['--backend', 'clickhouse', '--clickhouse-url', `${SHARDS[0]}, ${SHARDS[1]}`, '--clickhouse-cluster', 'strata2', '--clickhouse-user', 'writer']);
    expect(storeBackendOf(flags, {})).toEqual({ kind: 'clickhouse', urls: SHARDS, cluster: 'strata2', username: 'writer' });
    const repeated = parse(['--backend', 'clickhouse', '--clickhouse-url', SHARDS[0] as string, '--clickhouse-url', SHARDS[1] as string, '--clickhouse-cluster', 'c', '--clickhouse-database', 'metrics']);
    expect(storeBackendOf(repeated, {})).toEqual({ kind: 'clickhouse', urls: SHARDS, cluster: 'c', database: 'metrics' });
  });

  it('reads every flag from its STRATA_ environment variable too', () => {
    const flags = parse([], {
      STRATA_BACKEND: 'clickhouse',
      STRATA_CLICKHOUSE_URL: SHARDS.join(','),
      STRATA_CLICKHOUSE_CLUSTER: 'strata2',
      STRATA_CLICKHOUSE_DATABASE: 'db2',
      STRATA_CLICKHOUSE_USER: 'u',
    });
    expect(storeBackendOf(flags, {})).toEqual({ kind: 'clickhouse', urls: SHARDS, cluster: 'strata2', database: 'db2', username: 'u' });
  });

  it('takes the password only from STRATA_CLICKHOUSE_PASSWORD, never from a flag', () => {
    const flags = parse(['--backend', 'clickhouse', '--clickhouse-url', SHARDS[0] as string, '--clickhouse-cluster', 'strata1']);
    expect(storeBackendOf(flags, { [CLICKHOUSE_PASSWORD_ENV]: 's3cret' })).toMatchObject({ password: 's3cret' });
    expect(storeBackendOf(flags, { [CLICKHOUSE_PASSWORD_ENV]: '' })).not.toHaveProperty('password');
    expect(() => parse(['--clickhouse-password', 'x'])).toThrow(/unknown option/);
    const names = serveOptions().map((option) => option.long);
    expect(names.filter((name) => name?.includes('password'))).toEqual([]);
    // A SQLite server has nothing to do with it.
    expect(storeBackendOf(parse([]), { [CLICKHOUSE_PASSWORD_ENV]: 's3cret' })).toBe('sqlite');
  });

  it('refuses a backend it does not know', () => {
    expect(() => parse(['--backend', 'postgres'])).toThrow(/Allowed choices are sqlite, clickhouse/);
  });

  it('refuses --backend clickhouse without shard URLs or a cluster, naming the missing flag', () => {
    const noUrl = refusal(() => storeBackendOf(parse(['--backend', 'clickhouse', '--clickhouse-cluster', 'c']), {}));
    expect(noUrl.message).toMatch(/^--backend clickhouse needs --clickhouse-url/);
    expect(noUrl.details).toMatchObject({ option: 'clickhouseUrl' });
    const empty = refusal(() => storeBackendOf(parse(['--backend', 'clickhouse', '--clickhouse-url', ' , ', '--clickhouse-cluster', 'c']), {}));
    expect(empty.message).toMatch(/needs --clickhouse-url/);
    const noCluster = refusal(() => storeBackendOf(parse(['--backend', 'clickhouse', '--clickhouse-url', SHARDS[0] as string]), {}));
    expect(noCluster.message).toMatch(/^--backend clickhouse needs --clickhouse-cluster/);
  });

  it('refuses any ClickHouse flag without --backend clickhouse rather than ignoring it', () => {
    const cases: [string[], RegExp][] = [
      [['--clickhouse-url', SHARDS[0] as string], /^--clickhouse-url is given without --backend clickhouse/],
      [['--clickhouse-cluster', 'c'], /^--clickhouse-cluster is given without/],
      [['--clickhouse-database', 'd'], /^--clickhouse-database is given without/],
      [['--clickhouse-user', 'u'], /^--clickhouse-user is given without/],
    ];
    for (const [args, message] of cases) expect(refusal(() => storeBackendOf(parse(args), {})).message).toMatch(message);
  });

  it("names the flag when the store refuses a ClickHouse option, and leaves every other error alone", () => {
    const named = backendProblemAsFlag(configError('backend.urls[1]', 'an http:// URL', 'ftp://x', 'STORE_OPTIONS_INVALID'));
    expect(isStrataError(named) && named.code).toBe('CONFIG_INVALID');
    expect((named as StrataError).message).toMatch(/^--clickhouse-url: backend\.urls\[1\] must be an http:\/\/ URL/);
    expect((backendProblemAsFlag(configError('backend.urls', 'distinct URLs', [], 'STORE_OPTIONS_INVALID')) as StrataError).message).toMatch(/^--clickhouse-url: /);
    const nested = backendProblemAsFlag(configError('backend.cluster', 'a name', '', 'STORE_OPTIONS_INVALID')) as StrataError;
    expect(nested.message).toMatch(/^--clickhouse-cluster: /);
    const database = backendProblemAsFlag(configError('database', 'an identifier', 'a-b', 'STORE_OPTIONS_INVALID')) as StrataError;
    expect(database.details).toMatchObject({ option: 'clickhouse-database' });
    const other = configError('graceMs', 'a duration', -1, 'STORE_OPTIONS_INVALID');
    expect(backendProblemAsFlag(other)).toBe(other);
    const shard = new StrataError('STORE_SHARD_UNAVAILABLE', 'down', { shard: SHARDS[0] });
    expect(backendProblemAsFlag(shard)).toBe(shard);
  });

  it('describes the store for the start line with every shard and never a credential', () => {
    const text = describeBackend({ kind: 'clickhouse', urls: ['http://u:pw@10.0.0.1:8123/?user=x&password=pw', 'https://ch2.example.com:8443'], cluster: 'prod', password: 'pw' }).text;
    expect(text).toBe('clickhouse cluster prod, database strata, 2 shards: http://10.0.0.1:8123, https://ch2.example.com:8443');
    fc.assert(
      fc.property(fc.array(fc.webUrl({ withQueryParameters: true, withFragments: true }), { minLength: 1, maxLength: 5 }), fc.string({ minLength: 3 }), (urls, secret) => {
        const withCredentials = urls.map((url) => url.replace('://', `://user:${encodeURIComponent(secret)}@`));
        const described = describeBackend({ kind: 'clickhouse', urls: withCredentials, cluster: 'c', database: 'd', password: secret });
        expect(described.shards).toHaveLength(urls.length);
        expect(described.text).not.toContain(`user:${encodeURIComponent(secret)}@`);
      }),
    );
  });
});
