// Tests the ClickHouse backend's series id: fixed vectors, its byte form, and that ClickHouse 18.16 computes the same id and places the series on shard id % shards.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RowBinaryReader, RowBinaryWriter } from '../../src/clickhouse/row-binary.js';
import { seriesIdBytes, seriesIdOf } from '../../src/clickhouse/series-id.js';
import { ShardClient } from '../../src/clickhouse/shard-client.js';
import { sqlIdentifier, sqlString } from '../../src/clickhouse/sql-text.js';
import { AssertionFailure } from '../../src/core/assert.js';

const tenant = fc.string({ unit: fc.constantFrom(...'abcxyzABC019-._'), minLength: 1, maxLength: 20 });
const metric = fc.string({ unit: 'binary', minLength: 1, maxLength: 60 });

describe('seriesIdOf', () => {
  it('is the first 8 bytes of SHA-256 of tenant NUL metric, little-endian (vectors from Python hashlib)', () => {
    // int.from_bytes(hashlib.sha256(b'acme\x00cpu.user').digest()[:8], 'little')
    expect(seriesIdOf('acme', 'cpu.user')).toBe(9029906214491352848n);
    expect(seriesIdOf('t1', 'é😀 x')).toBe(2973222209720302629n);
  });

  it('keeps the tenant boundary: moving a character across it changes the id', () => {
    expect(seriesIdOf('ab', 'c')).not.toBe(seriesIdOf('a', 'bc'));
    expect(seriesIdOf('acme', 'cpu')).not.toBe(seriesIdOf('acme2', 'cpu'));
  });

  it('hashes a lone surrogate as U+FFFD, like every UTF-8 encoder (the stored name is the same too)', () => {
    expect(seriesIdOf('acme', 'a\ud800')).toBe(seriesIdOf('acme', 'a\ufffd'));
  });

  it('is a UInt64 that seriesIdBytes writes little-endian and reads back', () => {
    fc.assert(
      fc.property(tenant, metric, (t, m) => {
        const id = seriesIdOf(t, m);
        expect(id >= 0n && id < 2n ** 64n).toBe(true);
        const bytes = seriesIdBytes(id);
        expect(bytes.length).toBe(8);
        expect(bytes.readBigUInt64LE(0)).toBe(id);
      }),
      { numRuns: 500 },
    );
    expect(seriesIdBytes(1n).toString('hex')).toBe('0100000000000000');
    expect(seriesIdBytes(2n ** 64n - 1n).toString('hex')).toBe('ffffffffffffffff');
    expect(() => seriesIdBytes(2n ** 64n)).toThrow(AssertionFailure);
    expect(() => seriesIdBytes(-1n)).toThrow(AssertionFailure);
  });
});

describe('series ids in ClickHouse 18.16', () => {
  const { urls, cluster } = inject('clickhouse');
  const database = `strata_h5_${randomBytes(6).toString('hex')}`;
  const shards = urls.map((url) => new ShardClient({ url, database, requestTimeoutMs: 30_000 }));
  const entry = shards[0] as ShardClient;

  beforeAll(async () => {
    for (const shard of shards) {
      await shard.command(`CREATE DATABASE ${sqlIdentifier(database)}`, { noDatabase: true });
      await shard.command('CREATE TABLE ids_local (series UInt64, tenant String, metric String) ENGINE = MergeTree ORDER BY series');
      await shard.command(`CREATE TABLE ids AS ids_local ENGINE = Distributed(${cluster}, ${sqlIdentifier(database)}, ids_local, series)`);
    }
  });
  afterAll(async () => {
    for (const shard of shards) await shard.command(`DROP DATABASE IF EXISTS ${sqlIdentifier(database)}`, { noDatabase: true });
    await Promise.all(shards.map((shard) => shard.close()));
  });

  it('computes the same id with reinterpretAsUInt64(SHA256(concat(tenant, NUL, metric)))', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(tenant, metric), { minLength: 1, maxLength: 20 }), async (pairs) => {
        const columns = pairs.map(([t, m], i) => `reinterpretAsUInt64(SHA256(concat(${sqlString(t)}, '\\0', ${sqlString(m)}))) AS c${i}`);
        const r = new RowBinaryReader(await entry.binary(`SELECT ${columns.join(', ')}`));
        for (const [t, m] of pairs) expect(r.u64Bytes().readBigUInt64LE(0)).toBe(seriesIdOf(t, m));
      }),
      { numRuns: 50 },
    );
  });

  it('places each series through the Distributed table on shard id % shards', async () => {
    const pairs = Array.from({ length: 64 }, (_, i) => ['acme', `placed.${i}`] as const);
    const w = new RowBinaryWriter();
    for (const [t, m] of pairs) {
      w.u64Bytes(seriesIdBytes(seriesIdOf(t, m)));
      w.string(t);
      w.string(m);
    }
    await entry.insertRowBinary('ids', w.finish());
    for (const [index, shard] of shards.entries()) {
      const here = await shard.rows<{ series: string; metric: string }>('SELECT toString(series) AS series, metric FROM ids_local ORDER BY metric');
      const expected = pairs
        .filter(([t, m]) => seriesIdOf(t, m) % BigInt(shards.length) === BigInt(index))
        .map(([t, m]) => ({ series: String(seriesIdOf(t, m)), metric: m }))
        .sort((a, b) => (a.metric < b.metric ? -1 : 1));
      expect(here).toEqual(expected);
      expect(expected.length).toBeGreaterThan(0);
    }
  });
});
