// Property: for any set of partition files damaged in any of the ways a disk or an operator damages them, the audit finds exactly those (with the right reasons), a repair rebuilds every rollup whose sources survive and records the rest lost, and accepting the loss leaves a clean directory the store opens and serves.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import { HOUR_MS } from '../src/core/time.js';
import { finerOf, LAYOUT, RESOLUTIONS, type Resolution, type RollupResolution } from '../src/model/resolution.js';
import { auditPartitions } from '../src/storage/partition-audit.js';
import { repairPartitions } from '../src/storage/partition-repair.js';
import { partitionStartOf } from '../src/storage/partition-set.js';
import { openStore } from '../src/store.js';
import { T_NOON } from './store-harness.js';
import { damagePartition, dayQuery, seedPoints, type Damage } from './store-damage-fixtures.js';

const DAY0 = T_NOON - 12 * HOUR_MS;
const REASON: Readonly<Record<Damage, string>> = { delete: 'missing', empty: 'empty', half: 'truncated', garbage: 'header', 'corrupt-page': 'corrupt', 'drop-chunk': 'chunks' };
const DAMAGES = Object.keys(REASON) as Damage[];

/** Every partition the seed writes: two FULL files, one of each rollup. */
const PARTITIONS: readonly { res: Resolution; startMs: number }[] = [
  { res: 'FULL', startMs: DAY0 },
  { res: 'FULL', startMs: DAY0 + LAYOUT.FULL.partitionWidthMs },
  ...RESOLUTIONS.filter((r) => r !== 'FULL').map((res) => ({ res, startMs: partitionStartOf(res, DAY0) })),
];
const key = (res: Resolution, startMs: number): string => `${res}:${startMs}`;

let template: string;
let scratch: string;
beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'strata-damage-prop-'));
  template = join(scratch, 'template');
  const store = await openStore({ dir: template, clock: new ManualClock(T_NOON), background: false, workers: 0 });
  await store.write(seedPoints(DAY0));
  await store.flush();
  // Closed with every record sealed: the log keeps none, so no FULL partition can come back from it.
  await store.close();
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** Which damaged partitions a repair cannot rebuild: FULL ones (the log is empty), and rollups whose finer partition in their window is lost. */
function expectedLost(damaged: ReadonlyMap<string, Damage>): Set<string> {
  const lost = new Set<string>();
  for (const { res, startMs } of PARTITIONS) {
    if (!damaged.has(key(res, startMs))) continue;
    if (res === 'FULL') {
      lost.add(key(res, startMs));
      continue;
    }
    const source = finerOf(res as RollupResolution);
    const sourceLost = PARTITIONS.some((p) => p.res === source && p.startMs >= startMs && p.startMs < startMs + LAYOUT[res].partitionWidthMs && lost.has(key(p.res, p.startMs)));
    if (sourceLost) lost.add(key(res, startMs));
  }
  return lost;
}

describe('damaged partitions, any set of them', () => {
  it('are found exactly, repaired or recorded lost as their sources allow, and a store serves the directory after the loss is accepted', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(fc.constantFrom(...DAMAGES), { nil: undefined }), { minLength: PARTITIONS.length, maxLength: PARTITIONS.length }), async (choices) => {
        const dir = join(scratch, `run-${run++}`);
        cpSync(template, dir, { recursive: true });
        const damaged = new Map<string, Damage>();
        choices.forEach((how, i) => {
          const p = PARTITIONS[i] as { res: Resolution; startMs: number };
          if (how === undefined) return;
          damagePartition(dir, p.res, p.startMs, how);
          damaged.set(key(p.res, p.startMs), how);
        });
        const found = auditPartitions(dir);
        expect(new Map(found.map((f) => [key(f.resolution as Resolution, f.partitionStartMs as number), f.reason]))).toEqual(
          new Map([...damaged].map(([k, how]) => [k, REASON[how]])),
        );
        expect(found.every((f) => f.kind === 'partition-damaged')).toBe(true);
        const nowMs = T_NOON;
        const actions = repairPartitions(dir, found, { acceptLoss: false, nowMs, durability: 'normal' });
        const lost = expectedLost(damaged);
        expect(new Set(actions.filter((a) => a.kind === 'lost').map((a) => key(a.resolution, a.partitionStartMs)))).toEqual(lost);
        expect(actions.filter((a) => a.kind !== 'lost').every((a) => a.kind === 'rebuilding')).toBe(true);
        const after = auditPartitions(dir);
        expect(new Set(after.map((f) => `${key(f.resolution as Resolution, f.partitionStartMs as number)}:${f.reason}`))).toEqual(new Set([...lost].map((k) => `${k}:lost`)));
        repairPartitions(dir, after, { acceptLoss: true, nowMs, durability: 'normal' });
        expect(auditPartitions(dir)).toEqual([]);
        const store = await openStore({ dir, clock: new ManualClock(T_NOON), background: false, workers: 0 });
        try {
          await store.flush();
          expect(store.health?.()).toEqual({ status: 'ok', reasons: [] });
          for (const res of ['MIN5', 'MIN60', 'MIN1440'] as const) await store.query(dayQuery(DAY0, 'cpu', res));
        } finally {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
