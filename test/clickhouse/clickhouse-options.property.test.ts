// Property: resolveClickHouseOptions refuses every bad shard list, cluster, database and timeout with STORE_OPTIONS_INVALID, and accepts good ones normalised; openStore refuses a backend of the wrong shape.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CLICKHOUSE_DATABASE, resolveClickHouseOptions, type EngineOptions } from '../../src/clickhouse/clickhouse-options.js';
import { ManualClock } from '../../src/core/clock.js';
import { StrataError } from '../../src/core/errors.js';
import { CLICKHOUSE_REQUEST_TIMEOUT_MS, CLICKHOUSE_SHARDS_MAX } from '../../src/core/limits.js';
import { openStore } from '../../src/store.js';
import { resolveCommonOptions } from '../../src/store-options.js';
import type { ClickHouseBackendOptions, StoreOptions } from '../../src/store-types.js';
import { thrownStrataError } from './clickhouse-fixture.js';

/** The longest request timeout the resolver accepts (an hour). */
const TIMEOUT_MAX = 3_600_000;
const engine: EngineOptions = resolveCommonOptions({ clock: new ManualClock(0), background: false });

function resolveWith(backend: Record<string, unknown>) {
  return resolveClickHouseOptions({ kind: 'clickhouse', urls: ['http://127.0.0.1:8123'], cluster: 'strata2', ...backend } as unknown as ClickHouseBackendOptions, engine);
}

function expectInvalid(backend: Record<string, unknown>, option: string): void {
  const error = thrownStrataError(() => resolveWith(backend));
  expect(error.code).toBe('STORE_OPTIONS_INVALID');
  expect(error.details.option).toBe(option);
}

const hostArb = fc.oneof(fc.constant('127.0.0.1'), fc.constant('localhost'), fc.domain(), fc.ipV4());
const portArb = fc.option(fc.integer({ min: 1, max: 65_535 }), { nil: undefined });
const schemeArb = fc.constantFrom('http', 'https');

/** A plain shard URL: scheme, host, optional port, optional trailing slash; and what it normalises to. */
const goodUrlArb = fc.record({ scheme: schemeArb, host: hostArb, port: portArb, slash: fc.boolean() }).map(({ scheme, host, port, slash }) => {
  const text = `${scheme}://${host}${port === undefined ? '' : `:${port}`}${slash ? '/' : ''}`;
  const defaultPort = scheme === 'http' ? 80 : 443;
  return { text, normalised: `${scheme}://${host.toLowerCase()}${port === undefined || port === defaultPort ? '' : `:${port}`}` };
});

/** A URL the resolver must refuse: a path, a query, credentials, a fragment, another scheme, or no URL at all. */
const badUrlArb = fc.oneof(
  fc.tuple(schemeArb, hostArb, fc.webSegment().filter((s) => s.length > 0 && !/^(\.|%2e){1,2}$/i.test(s))).map(([s, h, p]) => `${s}://${h}/${p}`),
  fc.tuple(schemeArb, hostArb, fc.webQueryParameters().filter((q) => q.length > 0)).map(([s, h, q]) => `${s}://${h}/?${q}`),
  fc.tuple(schemeArb, hostArb, fc.webFragments().filter((f) => f.length > 0)).map(([s, h, f]) => `${s}://${h}/#${f}`),
  fc.tuple(schemeArb, hostArb, fc.stringMatching(/^[a-z]{1,8}$/)).map(([s, h, u]) => `${s}://${u}@${h}`),
  fc.tuple(schemeArb, hostArb, fc.stringMatching(/^[a-z]{1,8}$/)).map(([s, h, u]) => `${s}://${u}:pw@${h}`),
  fc.tuple(fc.constantFrom('ftp', 'tcp', 'file', 'ws', 'clickhouse'), hostArb).map(([s, h]) => `${s}://${h}`),
  fc.constantFrom('', '127.0.0.1:8123', 'localhost', 'http//x', '://x', 'not a url'),
);
const notStringArb = fc.oneof(fc.integer(), fc.constant(null), fc.constant(undefined), fc.boolean(), fc.object(), fc.array(fc.string(), { maxLength: 2 }));

const identStart = 'abcxyzABCXYZ_';
const identRest = 'abcxyzABCXYZ_0189';
const goodDatabaseArb = fc
  .tuple(fc.constantFrom(...identStart), fc.array(fc.constantFrom(...identRest), { maxLength: 63 }))
  .map(([head, rest]) => head + rest.join(''));
const goodClusterArb = fc
  .tuple(fc.constantFrom(...identStart), fc.array(fc.constantFrom(...identRest, '.', '-'), { maxLength: 63 }))
  .map(([head, rest]) => head + rest.join(''));
/** A name no identifier pattern takes: empty, too long, a bad first character or a bad character inside. */
function badNameArb(rest: readonly string[], bad: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(''),
    fc.array(fc.constantFrom(...rest), { minLength: 65, maxLength: 80 }).map((a) => `a${a.join('')}`),
    fc.tuple(fc.constantFrom('0', '9', '.', '-', ' ', '`'), fc.array(fc.constantFrom(...rest), { maxLength: 5 })).map(([h, r]) => h + r.join('')),
    fc.tuple(fc.array(fc.constantFrom(...rest), { maxLength: 5 }), fc.constantFrom(...bad), fc.array(fc.constantFrom(...rest), { maxLength: 5 })).map(([a, c, b]) => `a${a.join('')}${c}${b.join('')}`),
  );
}
const badDatabaseArb = badNameArb([...identRest], [' ', '.', '-', '`', "'", ';', 'é', '\u0000', '/']);
const badClusterArb = badNameArb([...identRest, '.', '-'], [' ', '`', "'", ';', 'é', '\u0000', '/', ',', '(']);

const badTimeoutArb = fc.oneof(
  fc.integer({ max: 0 }),
  fc.integer({ min: TIMEOUT_MAX + 1 }),
  fc.double({ min: 1, max: TIMEOUT_MAX, noInteger: true }),
  fc.constantFrom(Number.NaN, Infinity, -Infinity, 2 ** 53),
  fc.constantFrom('1000', true, {}),
);

describe('resolveClickHouseOptions', () => {
  it('accepts good options and normalises each URL to its origin (no trailing slash)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(goodUrlArb, { minLength: 1, maxLength: CLICKHOUSE_SHARDS_MAX, selector: (u) => u.normalised }),
        goodClusterArb,
        fc.option(goodDatabaseArb, { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: TIMEOUT_MAX }), { nil: undefined }),
        (urls, cluster, database, requestTimeoutMs) => {
          const cfg = resolveWith({ urls: urls.map((u) => u.text), cluster, database, requestTimeoutMs, username: 'u', password: 'p' });
          expect(cfg.urls).toEqual(urls.map((u) => u.normalised));
          for (const url of cfg.urls) expect(url.endsWith('/')).toBe(false);
          expect(cfg.cluster).toBe(cluster);
          expect(cfg.database).toBe(database ?? DEFAULT_CLICKHOUSE_DATABASE);
          expect(cfg.requestTimeoutMs).toBe(requestTimeoutMs ?? CLICKHOUSE_REQUEST_TIMEOUT_MS);
          expect(cfg.username).toBe('u');
          expect(cfg.password).toBe('p');
          expect(cfg.clock).toBe(engine.clock);
          expect(cfg.retention).toEqual(engine.retention);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses an empty list, more than CLICKHOUSE_SHARDS_MAX URLs, and anything not a list', () => {
    expectInvalid({ urls: [] }, 'backend.urls');
    const many = Array.from({ length: CLICKHOUSE_SHARDS_MAX + 1 }, (_, i) => `http://10.0.${Math.floor(i / 200)}.${i % 200}:8123`);
    expectInvalid({ urls: many }, 'backend.urls');
    expect(resolveWith({ urls: many.slice(0, CLICKHOUSE_SHARDS_MAX) }).urls).toHaveLength(CLICKHOUSE_SHARDS_MAX);
    fc.assert(fc.property(fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant(undefined), fc.object()), (urls) => expectInvalid({ urls }, 'backend.urls')));
  });

  it('refuses a list with any bad URL, naming its position', () => {
    fc.assert(
      fc.property(fc.array(goodUrlArb, { maxLength: 5 }), fc.oneof(badUrlArb, notStringArb), fc.nat(), (good, bad, at) => {
        const urls: unknown[] = [...new Map(good.map((u) => [u.normalised, u.text])).values()];
        const index = at % (urls.length + 1);
        urls.splice(index, 0, bad);
        expectInvalid({ urls }, `backend.urls[${index}]`);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses duplicates, also those that differ only by a trailing slash, case or a default port', () => {
    fc.assert(
      fc.property(fc.array(goodUrlArb, { minLength: 1, maxLength: 5 }), fc.nat(), fc.nat(), (urls, from, to) => {
        const texts = urls.map((u) => u.text);
        const copy = urls[from % urls.length] as { text: string };
        texts.splice(to % (texts.length + 1), 0, copy.text);
        expectInvalid({ urls: texts }, 'backend.urls');
      }),
    );
    expectInvalid({ urls: ['http://127.0.0.1:8123', 'http://127.0.0.1:8123/'] }, 'backend.urls');
    expectInvalid({ urls: ['http://LOCALHOST:8123', 'http://localhost:8123'] }, 'backend.urls');
    expectInvalid({ urls: ['http://localhost:80', 'http://localhost'] }, 'backend.urls');
  });

  it('refuses bad cluster and database names', () => {
    fc.assert(fc.property(fc.oneof(badClusterArb, notStringArb), (cluster) => expectInvalid({ cluster }, 'backend.cluster')));
    fc.assert(fc.property(fc.oneof(badDatabaseArb, notStringArb.filter((v) => v != null)), (database) => expectInvalid({ database }, 'backend.database')));
    // null takes the default, as `??` does for every optional option of openStore.
    expect(resolveWith({ database: null }).database).toBe(DEFAULT_CLICKHOUSE_DATABASE);
    // '.' and '-' are cluster characters only: a database name with them would need quoting.
    expectInvalid({ database: 'a.b' }, 'backend.database');
    expectInvalid({ database: 'a-b' }, 'backend.database');
    expect(resolveWith({ cluster: 'a.b-c' }).cluster).toBe('a.b-c');
  });

  it('refuses bad timeouts and credentials that are not strings', () => {
    fc.assert(fc.property(badTimeoutArb, (requestTimeoutMs) => expectInvalid({ requestTimeoutMs }, 'backend.requestTimeoutMs')));
    expect(resolveWith({ requestTimeoutMs: 1 }).requestTimeoutMs).toBe(1);
    expect(resolveWith({ requestTimeoutMs: TIMEOUT_MAX }).requestTimeoutMs).toBe(TIMEOUT_MAX);
    for (const key of ['username', 'password']) {
      fc.assert(fc.property(notStringArb.filter((v) => v !== undefined), (value) => expectInvalid({ [key]: value }, `backend.${key}`)));
    }
  });
});

describe('openStore with a ClickHouse backend', () => {
  const clock = new ManualClock(0);
  async function rejection(options: unknown): Promise<StrataError> {
    const error = await openStore({ clock, background: false, ...(options as StoreOptions) }).then(
      async (store) => {
        await store.close();
        return new Error('expected a rejection');
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StrataError);
    return error as StrataError;
  }

  it('refuses a backend of the wrong shape before connecting to anything', async () => {
    for (const backend of ['mysql', 'clickhouse', 42, true, [], {}, { kind: 'sqlite' }, { kind: 'ClickHouse', urls: ['http://127.0.0.1:1'], cluster: 'c' }]) {
      const error = await rejection({ backend });
      expect(error.code, JSON.stringify(backend)).toBe('STORE_OPTIONS_INVALID');
      expect(error.details.option).toBe('backend');
    }
  });

  it('refuses bad ClickHouse options before connecting (an unreachable URL would fail otherwise)', async () => {
    const base = { kind: 'clickhouse', urls: ['http://127.0.0.1:1'], cluster: 'strata2' };
    const cases: [Record<string, unknown>, string][] = [
      [{ urls: [] }, 'backend.urls'],
      [{ urls: ['http://127.0.0.1:1/db'] }, 'backend.urls[0]'],
      [{ cluster: '' }, 'backend.cluster'],
      [{ database: 'no-dash' }, 'backend.database'],
      [{ requestTimeoutMs: 0 }, 'backend.requestTimeoutMs'],
    ];
    for (const [change, option] of cases) {
      const error = await rejection({ backend: { ...base, ...change } });
      expect(error.code).toBe('STORE_OPTIONS_INVALID');
      expect(error.details.option).toBe(option);
    }
    const retention = await rejection({ backend: base, retention: { FULL: -1 } });
    expect(retention.code).toBe('STORE_OPTIONS_INVALID');
  });
});
