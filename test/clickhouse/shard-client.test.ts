// Tests ShardClient against real ClickHouse 18.16 shards: statements, typed reads, RowBinary inserts, sync Distributed inserts, limits, and how every failure is classified.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RowBinaryReader, RowBinaryWriter } from '../../src/clickhouse/row-binary.js';
import { seriesIdBytes, seriesIdOf } from '../../src/clickhouse/series-id.js';
import { ShardClient } from '../../src/clickhouse/shard-client.js';
import { sqlIdentifier, sqlString } from '../../src/clickhouse/sql-text.js';
import { StrataError } from '../../src/core/errors.js';
import { startClickHouseCluster, type ClickHouseCluster } from '../support/clickhouse-cluster.js';
import { closedPort } from './clickhouse-fixture.js';

const REQUEST_TIMEOUT_MS = 30_000;
const POINTS_COLUMNS = '(series UInt64, ts UInt64, kind UInt8, value Float64, text String, ver UInt64)';

/** The rejection of `promise` as a StrataError (fails the test when it resolves or throws anything else). */
async function failure(promise: Promise<unknown>): Promise<StrataError> {
  const error = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StrataError);
  return error as StrataError;
}

/** One client per shard on a fresh database `strata_h5_<hex>` created on every shard; `drop()` removes it and closes them. */
async function freshDatabase(urls: readonly string[], options: { responseBytesMax?: number } = {}) {
  const database = `strata_h5_${randomBytes(6).toString('hex')}`;
  const shards = urls.map((url) => new ShardClient({ url, database, requestTimeoutMs: REQUEST_TIMEOUT_MS, ...options }));
  for (const shard of shards) await shard.command(`CREATE DATABASE ${sqlIdentifier(database)}`, { noDatabase: true });
  const drop = async (): Promise<void> => {
    for (const shard of shards) await shard.command(`DROP DATABASE IF EXISTS ${sqlIdentifier(database)}`, { noDatabase: true });
    await Promise.all(shards.map((shard) => shard.close()));
  };
  return { database, shards, drop };
}

/** Creates `points_local` on every shard and `points` over them, Distributed by series on `cluster`. */
async function createPoints(shards: readonly ShardClient[], database: string, cluster: string): Promise<void> {
  for (const shard of shards) {
    await shard.command(`CREATE TABLE points_local ${POINTS_COLUMNS} ENGINE = ReplacingMergeTree(ver) ORDER BY (series, ts)`);
    await shard.command(`CREATE TABLE points AS points_local ENGINE = Distributed(${cluster}, ${sqlIdentifier(database)}, points_local, series)`);
  }
}

/** RowBinary rows of `points` for the given series, one point each at ts = 1000 + i. */
function pointsBody(series: readonly bigint[]): Buffer {
  const w = new RowBinaryWriter();
  series.forEach((id, i) => {
    w.u64Bytes(seriesIdBytes(id));
    w.u64(1000 + i);
    w.u8(0);
    w.f64(i);
    w.string('');
    w.u64(1);
  });
  return w.finish();
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('ShardClient on the shared cluster', () => {
  const { urls, cluster } = inject('clickhouse');
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const shard = (i: number): ShardClient => db.shards[i] as ShardClient;

  beforeAll(async () => {
    db = await freshDatabase(urls);
    await createPoints(db.shards, db.database, cluster);
  });
  afterAll(async () => db?.drop());

  it('runs statements in its database, and CREATE DATABASE without one', async () => {
    await shard(0).command('CREATE TABLE made_here (x UInt8) ENGINE = TinyLog');
    const tables = await shard(0).rows<{ database: string; name: string }>(
      `SELECT database, name FROM system.tables WHERE name = 'made_here'`,
    );
    expect(tables).toEqual([{ database: db.database, name: 'made_here' }]);

    const missing = `strata_h5_missing_${randomBytes(4).toString('hex')}`;
    const client = new ShardClient({ url: urls[0] as string, database: missing, requestTimeoutMs: REQUEST_TIMEOUT_MS });
    try {
      const error = await failure(client.rows('SELECT 1 AS one'));
      expect(error.code).toBe('STORE_BACKEND_FAILED');
      expect(error.details.clickhouseCode).toBe(81); // UNKNOWN_DATABASE
      await client.command(`CREATE DATABASE ${sqlIdentifier(missing)}`, { noDatabase: true });
      expect(await client.rows('SELECT 1 AS one;')).toEqual([{ one: 1 }]);
    } finally {
      await client.command(`DROP DATABASE IF EXISTS ${sqlIdentifier(missing)}`, { noDatabase: true });
      await client.close();
    }
  });

  it('answers rows as parsed JSONEachRow, UInt64 as strings, and passes settings', async () => {
    const rows = await shard(0).rows<Record<string, unknown>>(
      `SELECT toUInt64(18446744073709551615) AS big, toUInt32(7) AS small, 'a\\'b' AS s, nan AS n -- trailing comment`,
    );
    expect(rows).toEqual([{ big: '18446744073709551615', small: 7, s: "a'b", n: null }]);
    expect(await shard(0).rows('SELECT number FROM system.numbers LIMIT 0')).toEqual([]);
    const setting = await shard(0).rows<{ value: string }>(`SELECT value FROM system.settings WHERE name = 'max_threads'`, {
      settings: { max_threads: 3 },
    });
    expect(setting).toEqual([{ value: '3' }]);
  });

  it('inserts RowBinary and reads it back bit for bit', async () => {
    await shard(0).command(`CREATE TABLE rb ${POINTS_COLUMNS} ENGINE = MergeTree ORDER BY (series, ts)`);
    const rows = [
      { series: 2n ** 64n - 1n, ts: Number.MAX_SAFE_INTEGER, kind: 0, value: -0, text: '' },
      { series: seriesIdOf('acme', 'cpu'), ts: 1_700_000_000_000, kind: 0, value: Number.NaN, text: '' },
      { series: 0n, ts: 0, kind: 1, value: 0, text: 'x😀 é\n\\\'' },
      { series: 1n, ts: 5, kind: 0, value: -Infinity, text: 'a'.repeat(300) },
    ];
    const w = new RowBinaryWriter();
    for (const r of rows) {
      w.u64Bytes(seriesIdBytes(r.series));
      w.u64(r.ts);
      w.u8(r.kind);
      w.f64(r.value);
      w.string(r.text);
      w.u64(7);
    }
    const body = w.finish();
    await shard(0).insertRowBinary('rb', body);
    // Same rows in insert order: the answer must be the very bytes sent.
    const answer = await shard(0).binary('SELECT * FROM rb ORDER BY ts DESC, series');
    const sorted = [...rows].sort((a, b) => b.ts - a.ts || (a.series < b.series ? -1 : 1));
    const reader = new RowBinaryReader(answer);
    for (const r of sorted) {
      expect(reader.u64Bytes().readBigUInt64LE(0)).toBe(r.series);
      expect(reader.u64()).toBe(r.ts);
      expect(reader.u8()).toBe(r.kind);
      expect(Object.is(reader.f64(), r.value)).toBe(true);
      expect(reader.string()).toBe(r.text);
      expect(reader.u64()).toBe(7);
    }
    expect(reader.done).toBe(true);
    expect((await shard(0).binary('SELECT * FROM rb WHERE ts = 42')).length).toBe(0);
  });

  it('inserts through a Distributed table synchronously: each row is on its shard when the insert returns', async () => {
    const series = Array.from({ length: 200 }, (_, i) => seriesIdOf('acme', `sync.${i}`));
    await shard(0).insertRowBinary('points', pointsBody(series));
    for (const [index, client] of db.shards.entries()) {
      const local = await client.rows<{ series: string }>('SELECT toString(series) AS series FROM points_local');
      const expected = series.filter((id) => id % BigInt(urls.length) === BigInt(index)).map(String);
      expect(local.map((r) => r.series).sort()).toEqual(expected.sort());
      expect(expected.length).toBeGreaterThan(0);
    }
    expect(await shard(1).rows('SELECT count() AS n FROM points')).toEqual([{ n: '200' }]);
  });

  it('classifies a statement ClickHouse refuses as STORE_BACKEND_FAILED with its code', async () => {
    const syntax = await failure(shard(0).command('SELEC 1'));
    expect(syntax.code).toBe('STORE_BACKEND_FAILED');
    expect(syntax.details).toMatchObject({ shard: urls[0], clickhouseCode: 62 });
    expect(String(syntax.details.message)).toMatch(/Syntax error/);
    expect(syntax.message).toContain(urls[0]);
    const unknownTable = await failure(shard(1).binary('SELECT * FROM no_such_table'));
    expect(unknownTable.details).toMatchObject({ shard: urls[1], clickhouseCode: 60 });
    const badInsert = await failure(shard(0).insertRowBinary('no_such_table', Buffer.alloc(8)));
    expect(badInsert.details.clickhouseCode).toBe(60);
  });

  it('fails a SELECT that breaks after its first blocks instead of answering part of it', async () => {
    // Without wait_end_of_query, 18.16 answers 200 with the data so far and the error text appended.
    const sql = 'SELECT number, throwIf(number = 300000) FROM numbers(500000)';
    const binary = await failure(shard(0).binary(sql, { settings: { max_block_size: 1000 } }));
    expect(binary.details.clickhouseCode).toBe(395); // FUNCTION_THROW_IF_VALUE_IS_NON_ZERO
    const rows = await failure(shard(0).rows(sql, { settings: { max_block_size: 1000 } }));
    expect(rows.details.clickhouseCode).toBe(395);
  });

  it('refuses an answer larger than its byte limit with STORE_BACKEND_FAILED', async () => {
    const limited = new ShardClient({ url: urls[0] as string, database: db.database, requestTimeoutMs: REQUEST_TIMEOUT_MS, responseBytesMax: 1000 });
    try {
      expect((await limited.binary('SELECT number FROM numbers(125)')).length).toBe(1000);
      const binary = await failure(limited.binary('SELECT number FROM numbers(126)'));
      expect(binary.code).toBe('STORE_BACKEND_FAILED');
      expect(binary.details).toMatchObject({ shard: urls[0], limitBytes: 1000 });
      const rows = await failure(limited.rows('SELECT number FROM numbers(1000)'));
      expect(rows.details.limitBytes).toBe(1000);
      // The client stays usable after it dropped an answer half read.
      expect(await limited.rows('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await limited.close();
    }
  });

  it('refuses a table name that is not an identifier before sending anything', async () => {
    const error = await failure(shard(0).insertRowBinary('rb; DROP TABLE rb', Buffer.alloc(0)));
    expect(error.code).toBe('STORE_OPTIONS_INVALID');
  });

  it('answers after an idle gap in which the server closed its keep-alive socket', async () => {
    // The server drops idle connections after 3 s; the client (idle TTL 2 s) must not send on a dropped one.
    expect(await shard(0).rows('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await sleep(3_200);
    await shard(0).insertRowBinary('points', pointsBody([seriesIdOf('acme', 'idle')]));
    expect(await shard(0).rows('SELECT 2 AS two')).toEqual([{ two: 2 }]);
  });

  it('answers ping', async () => {
    expect(await shard(0).ping()).toBe(true);
    expect(await shard(1).ping()).toBe(true);
  });

  it('maps its own request timeout and an exceeded max_execution_time to STORE_SHARD_UNAVAILABLE', async () => {
    const impatient = new ShardClient({ url: urls[0] as string, database: db.database, requestTimeoutMs: 300 });
    try {
      const timeout = await failure(impatient.rows('SELECT sleep(2) AS s'));
      expect(timeout.code).toBe('STORE_SHARD_UNAVAILABLE');
      expect(timeout.details).toMatchObject({ shard: urls[0], clickhouseCode: null });
    } finally {
      await impatient.close();
    }
    const slow = await failure(shard(0).rows('SELECT sleep(2) AS s', { settings: { max_execution_time: 1 } }));
    expect(slow.code).toBe('STORE_SHARD_UNAVAILABLE');
    expect(slow.details.clickhouseCode).toBe(159);
  });

  it('maps an address nobody listens on to STORE_SHARD_UNAVAILABLE naming it, and ping to false', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const url = `http://${host}:${await closedPort()}`;
      const nobody = new ShardClient({ url, database: 'strata', requestTimeoutMs: REQUEST_TIMEOUT_MS });
      try {
        for (const attempt of [
          () => nobody.command('SELECT 1'),
          () => nobody.command('CREATE DATABASE x', { noDatabase: true }),
          () => nobody.rows('SELECT 1'),
          () => nobody.binary('SELECT 1'),
          () => nobody.insertRowBinary('points', Buffer.alloc(0)),
        ]) {
          const error = await failure(attempt());
          expect(error.code).toBe('STORE_SHARD_UNAVAILABLE');
          expect(error.details).toMatchObject({ shard: url, clickhouseCode: null });
          expect(error.message).toContain(url);
          expect(String(error.cause)).toMatch(/ECONNREFUSED/);
          expect(error.details.cause).toBeUndefined();
        }
        expect(await nobody.ping()).toBe(false);
      } finally {
        await nobody.close();
      }
    }
  });

  it('keeps credentials out of messages and details', async () => {
    const url = `http://strata:s3cret@127.0.0.1:${await closedPort()}`;
    const secret = new ShardClient({ url, database: 'strata', requestTimeoutMs: REQUEST_TIMEOUT_MS });
    try {
      expect(secret.url).toBe(url);
      const error = await failure(secret.rows('SELECT 1'));
      expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain('s3cret');
    } finally {
      await secret.close();
    }
  });

  it('keeps sqlString literals intact on the way through the server', async () => {
    const texts = ["it's", 'back\\slash', 'nul\u0000tab\tcr\rlf\n', '\u0001\u001f\u007f', 'é😀', ''];
    const answer = await shard(0).rows<{ t: string }>(`SELECT arrayJoin([${texts.map(sqlString).join(', ')}]) AS t`);
    expect(answer.map((r) => r.t)).toEqual(texts);
  });
});

describe('ShardClient with a shard stopped', () => {
  let dir: string;
  let own: ClickHouseCluster | undefined;
  let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  const the = () => {
    if (own === undefined || db === undefined) throw new Error('the cluster did not start');
    return { cluster: own, shards: db.shards as [ShardClient, ShardClient] };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-h5-shard-down-'));
    own = await startClickHouseCluster({ dir, shards: 2 });
    db = await freshDatabase(own.urls);
    await createPoints(db.shards, db.database, own.cluster);
  }, 120_000);

  afterAll(async () => {
    try {
      await own?.startShard(1);
      await db?.drop();
    } finally {
      await own?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('fails Distributed reads and inserts through the live shard with STORE_SHARD_UNAVAILABLE, and works again once the shard is back', async () => {
    const { cluster, shards } = the();
    const [entry, stopped] = shards;
    const series = Array.from({ length: 20 }, (_, i) => seriesIdOf('acme', `down.${i}`));
    await entry.insertRowBinary('points', pointsBody(series));
    // Warm the entry's pooled connection to the second shard, so its staleness is part of what is tested.
    expect(await entry.rows('SELECT count() AS n FROM points')).toEqual([{ n: '20' }]);

    await cluster.stopShard(1);
    try {
      const read = await failure(entry.rows('SELECT count() AS n FROM points'));
      expect(read.code).toBe('STORE_SHARD_UNAVAILABLE');
      expect(read.details).toMatchObject({ shard: cluster.urls[0], clickhouseCode: 279 });
      expect(read.details.remote).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(read.message).toContain(String(read.details.remote));

      const binary = await failure(entry.binary('SELECT * FROM points'));
      expect(binary.code).toBe('STORE_SHARD_UNAVAILABLE');

      const later = Array.from({ length: 20 }, (_, i) => seriesIdOf('acme', `later.${i}`));
      const insert = await failure(entry.insertRowBinary('points', pointsBody(later)));
      expect(insert.code).toBe('STORE_SHARD_UNAVAILABLE');
      expect(insert.details).toMatchObject({ shard: cluster.urls[0], clickhouseCode: 210 });
      // 18.16 reports "Wrote 1 blocks and N rows on shard 0", yet a one-block insert leaves nothing on the live shard.
      expect(String(insert.cause)).toMatch(/Insertion status/);
      expect(later.some((id) => id % 2n === 0n)).toBe(true);
      expect(await entry.rows('SELECT count() AS n FROM points_local')).toEqual([
        { n: String(series.filter((id) => id % 2n === 0n).length) },
      ]);

      const direct = await failure(stopped.rows('SELECT 1'));
      expect(direct.code).toBe('STORE_SHARD_UNAVAILABLE');
      expect(direct.details.shard).toBe(cluster.urls[1]);
      expect(await stopped.ping()).toBe(false);
      expect(await entry.ping()).toBe(true);
    } finally {
      await cluster.startShard(1);
    }

    expect(await stopped.ping()).toBe(true);
    expect(await entry.rows('SELECT count() AS n FROM points')).toEqual([{ n: String(series.length) }]);
    await entry.insertRowBinary('points', pointsBody([seriesIdOf('acme', 'after')]));
  });
});
