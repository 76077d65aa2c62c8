// Property: retention on ClickHouse drops a partition iff it ends at or before its table's cutoff, and never a raw day the finalized watermark has not passed.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sweepRules, sweepShard } from '../../src/clickhouse/partition-sweeper.js';
import { MIGRATIONS, POINTS_LOCAL, RAW_PARTITION_WIDTH_MS, rollupLocalTable, SCHEMA_VERSION_DDL } from '../../src/clickhouse/schema.js';
import { ShardClient } from '../../src/clickhouse/shard-client.js';
import { DAY_MS } from '../../src/core/time.js';
import { LAYOUT, ROLLUP_RESOLUTIONS, type RetentionTable } from '../../src/model/resolution.js';
import { resolveRetention } from '../../src/retention/policy.js';
import type { StoreLogger } from '../../src/store-types.js';
import { clickhouseStatement } from '../support/clickhouse-cluster.js';

const T_2026 = Date.UTC(2026, 10, 22, 12);
/** How long past its cutoff a raw day may stay (a grace for other processes plus a day's alignment): two days at most. */
const RAW_LATE_MAX_MS = 2 * DAY_MS;

/** Retention tables resolveRetention accepts: positive, never shorter for a coarser resolution. */
const retentionArb: fc.Arbitrary<RetentionTable> = fc
  .array(fc.integer({ min: 1, max: 400 * DAY_MS }), { minLength: 6, maxLength: 6 })
  .map((ms) => ms.sort((a, b) => a - b))
  .map(([FULL, MIN5, MIN20, MIN60, MIN240, MIN1440]) => resolveRetention({ FULL, MIN5, MIN20, MIN60, MIN240, MIN1440 }));

/** What sweepShard decides for one partition under a rule: drop it iff it ends at or before the cutoff. */
function dropped(index: number, rule: { partitionWidthMs: number; dropBeforeMs: number }): boolean {
  return (index + 1) * rule.partitionWidthMs <= rule.dropBeforeMs;
}

describe('sweepRules', () => {
  it('cuts every table at its retention, and raw days also at the finalized watermark', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 * T_2026 }), retentionArb, fc.integer({ min: 0, max: 2 * T_2026 }), (nowMs, retention, finalizedMs) => {
        const rules = sweepRules(nowMs, retention, finalizedMs);
        expect(rules.map((r) => r.table)).toEqual([POINTS_LOCAL, ...ROLLUP_RESOLUTIONS.map(rollupLocalTable)]);
        const [raw, ...rollups] = rules;
        expect(raw).toMatchObject({ table: POINTS_LOCAL, partitionWidthMs: RAW_PARTITION_WIDTH_MS });
        // Raw goes no sooner than the watermark and the FULL retention allow, and (after a grace and a
        // day's alignment at most) not much later either.
        const rawCut = Math.min(finalizedMs, nowMs - retention.FULL);
        expect(raw?.dropBeforeMs).toBeLessThanOrEqual(rawCut);
        expect(raw?.dropBeforeMs).toBeGreaterThanOrEqual(rawCut - RAW_LATE_MAX_MS);
        rollups.forEach((rule, i) => {
          const res = ROLLUP_RESOLUTIONS[i] as (typeof ROLLUP_RESOLUTIONS)[number];
          expect(rule).toEqual({ table: rollupLocalTable(res), partitionWidthMs: LAYOUT[res].partitionWidthMs, dropBeforeMs: nowMs - retention[res] });
        });
      }),
      { numRuns: 500 },
    );
  });

  it('never lets a raw day go that is not finalized or still within the FULL retention, nor a rollup partition still served', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 * T_2026 }), retentionArb, fc.integer({ min: 0, max: 2 * T_2026 }), fc.integer({ min: 0, max: 50_000 }), (nowMs, retention, finalizedMs, index) => {
        const [raw, ...rollups] = sweepRules(nowMs, retention, finalizedMs);
        const rawRule = raw as (typeof rollups)[number];
        const dayEnd = (index + 1) * RAW_PARTITION_WIDTH_MS;
        if (dropped(index, rawRule)) expect(dayEnd <= finalizedMs && dayEnd <= nowMs - retention.FULL).toBe(true);
        if (dayEnd <= Math.min(finalizedMs, nowMs - retention.FULL) - RAW_LATE_MAX_MS) expect(dropped(index, rawRule)).toBe(true);
        rollups.forEach((rule, i) => {
          const res = ROLLUP_RESOLUTIONS[i] as (typeof ROLLUP_RESOLUTIONS)[number];
          const width = LAYOUT[res].partitionWidthMs;
          // A partition still holding a bucket that starts within the retention stays.
          const lastBucketStart = (index + 1) * width - LAYOUT[res].bucketWidthMs;
          if (lastBucketStart >= nowMs - retention[res]) expect(dropped(index, rule)).toBe(false);
        });
      }),
      { numRuns: 500 },
    );
  });
});

describe('sweepShard on a real shard', () => {
  const database = `strata_h7_${randomBytes(6).toString('hex')}`;
  let url: string;
  let shard: ShardClient;
  const logged: Record<string, unknown>[] = [];
  const logger: StoreLogger = { info: (fields: Record<string, unknown>) => void logged.push(fields), warn: () => {}, error: () => {} } as unknown as StoreLogger;
  /** Each table, its partition width and the four partitions the test fills (around late 2026). */
  const tables = [
    { table: POINTS_LOCAL, width: RAW_PARTITION_WIDTH_MS, column: 'ts' },
    ...ROLLUP_RESOLUTIONS.map((res) => ({ table: rollupLocalTable(res), width: LAYOUT[res].partitionWidthMs, column: 'bucket' })),
  ].map((t) => ({ ...t, base: Math.floor(T_2026 / t.width) }));

  beforeAll(async () => {
    url = inject('clickhouse').urls[0] as string;
    shard = new ShardClient({ url, database, requestTimeoutMs: 30_000 });
    await shard.command(`CREATE DATABASE ${database}`, { noDatabase: true });
    await shard.command(SCHEMA_VERSION_DDL);
    for (const [, statements] of MIGRATIONS) for (const sql of statements) await shard.command(sql);
  });

  afterAll(async () => {
    await shard?.close();
    await clickhouseStatement(url, `DROP DATABASE IF EXISTS ${database}`);
  });

  /** Partitions (indices) of each table, active parts only. */
  async function partitions(): Promise<Map<string, number[]>> {
    const rows = await shard.rows<{ table: string; partition: string }>(
      `SELECT DISTINCT table, partition FROM system.parts WHERE active AND database = '${database}' ORDER BY table, partition`,
    );
    const out = new Map<string, number[]>();
    for (const r of rows) out.set(r.table, [...(out.get(r.table) ?? []), Number(r.partition)]);
    return out;
  }

  /** Puts one row at the first and one at the last ms of each of the four partitions base..base+3 of every table. */
  async function fill(): Promise<void> {
    for (const t of tables) {
      const stamps = [0, 1, 2, 3].flatMap((k) => [(t.base + k) * t.width, (t.base + k + 1) * t.width - 1]);
      const values =
        t.table === POINTS_LOCAL ? stamps.map((ms) => `(1, ${ms}, 0, 1.5, '')`) : stamps.map((ms) => `(1, ${ms}, 1, 1, 1.5, 0, 1.5, 1.5)`);
      await shard.command(`INSERT INTO ${t.table} VALUES ${values.join(', ')}`);
    }
  }

  it('drops exactly the partitions that end at or before the cutoff, the exact boundary included', async () => {
    // Per table: which partition boundary the cutoff sits at (0..4 after base) and how far off it (-1, 0, +1 ms).
    const cutArb = fc.tuple(...tables.map(() => fc.tuple(fc.integer({ min: 0, max: 4 }), fc.constantFrom(-1, 0, 1))));
    const examples: [number, number][][] = [tables.map(() => [2, 0]), tables.map(() => [2, -1]), tables.map(() => [4, 1]), tables.map(() => [0, -1])];
    await fc.assert(
      fc.asyncProperty(cutArb, async (cuts) => {
        await fill();
        logged.length = 0;
        const rules = tables.map((t, i) => {
          const [k, off] = cuts[i] as [number, number];
          return { table: t.table, partitionWidthMs: t.width, dropBeforeMs: (t.base + k) * t.width + off };
        });
        const count = await sweepShard(shard, database, rules, logger);
        const left = await partitions();
        let expectedDrops = 0;
        tables.forEach((t, i) => {
          const rule = rules[i] as (typeof rules)[number];
          const all = [0, 1, 2, 3].map((k) => t.base + k);
          expect(left.get(t.table) ?? [], `${t.table} cut ${rule.dropBeforeMs}`).toEqual(all.filter((index) => !dropped(index, rule)));
          expectedDrops += all.filter((index) => dropped(index, rule)).length;
        });
        // Every partition the run let go is counted and logged once.
        expect(count).toBe(expectedDrops);
        expect(logged).toHaveLength(expectedDrops);
        for (const entry of logged) expect(entry).toMatchObject({ shard: url, table: expect.any(String), partitionStartMs: expect.any(Number) });
      }),
      { numRuns: 8, examples: examples.map((e) => [e]) },
    );
  });

  it('leaves tables that have no rule alone, and drops nothing when every cutoff is before every partition', async () => {
    await fill();
    const before = await partitions();
    expect(await sweepShard(shard, database, [{ table: POINTS_LOCAL, partitionWidthMs: RAW_PARTITION_WIDTH_MS, dropBeforeMs: 0 }], logger)).toBe(0);
    expect(await partitions()).toEqual(before);
    const onlyRaw = [{ table: POINTS_LOCAL, partitionWidthMs: RAW_PARTITION_WIDTH_MS, dropBeforeMs: Number.MAX_SAFE_INTEGER }];
    expect(await sweepShard(shard, database, onlyRaw, logger)).toBe(4);
    const after = await partitions();
    expect(after.get(POINTS_LOCAL)).toBeUndefined();
    for (const res of ROLLUP_RESOLUTIONS) expect(after.get(rollupLocalTable(res))).toEqual(before.get(rollupLocalTable(res)));
  });
});
