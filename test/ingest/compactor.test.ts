// Owns the tests of FULL-partition compaction: answers unchanged bit for bit, late data folded in, restarts, leftovers, runs abandoned mid-way.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/core/time.js';
import { COMPACT_STEP_SERIES, CompactRun, removeCompactionLeftovers, type CompactorDeps } from '../../src/ingest/compactor.js';
import { compactStore } from '../../src/index.js';
import type { SampleColumns } from '../../src/model/bucket.js';
import { LAYOUT } from '../../src/model/resolution.js';
import type { Point } from '../../src/model/sample.js';
import { encodeChunk } from '../../src/storage/chunk-codec.js';
import { readFullWindow } from '../../src/storage/full-window.js';
import {
  COMPACTED_APPLICATION_ID,
  COMPACTED_SLOT,
  PartitionSet,
  partitionFilesOf,
  partitionPath,
  SLOTS_PER_PARTITION,
  type ChunkWrite,
} from '../../src/storage/partition-set.js';
import type { QueryValue, Store } from '../../src/store-types.js';
import { auditPartitions } from '../../src/storage/partition-audit.js';
import { repairPartitions } from '../../src/storage/partition-repair.js';
import { mulberry32 } from '../../src/workload/prng.js';
import { damagePartition } from '../store-damage-fixtures.js';
import { openTestStore, T_NOON, type TestStore } from '../store-harness.js';

const WINDOW_MS = LAYOUT.FULL.chunkWidthMs;
const PART_MS = LAYOUT.FULL.partitionWidthMs;
/** First written time: a FULL partition start a day before the clock (well inside FULL retention). */
const D0 = T_NOON - DAY_MS;
/** The written span: several partitions, several windows each (the last partition partly). */
const SPAN_MS = 20 * HOUR_MS;
const WINDOWS = SPAN_MS / WINDOW_MS;
/** More walk series than a compaction step takes, so a run takes several steps. */
const WALK_SERIES = COMPACT_STEP_SERIES + 8;
const WALK_STEP_MS = MINUTE_MS;
const TENANT = 'acme';
const ALL_STATS = ['average', 'variance', 'min', 'max'];
const ROLLUPS = ['MIN5', 'MIN20'] as const;
/** Bound on event-loop turns a test waits for a compaction to show its file. */
const TURNS_MAX = 10_000;

/** Values that a codec could get wrong: signed zero, binary artefacts, integers past 2^53, extremes. */
const EDGE_VALUES = [-0, 0, 0.1 + 0.2, 2 ** 53 + 2, 2 ** 60, -(2 ** 63), Number.MAX_SAFE_INTEGER * 4, 5e-324, -5e-324, 1e-300, 123_456_789.123_456_79, -1.5];
const WORDS = ['up', 'down', '', 'héllo ✓ 🚀', 'x'.repeat(300)];

/** Last write wins per metric and timestamp: what every FULL query must answer. */
type Model = Map<string, Map<number, number | string>>;

function record(model: Model, points: readonly Point[]): void {
  for (const p of points) {
    let series = model.get(p.metric);
    if (series === undefined) model.set(p.metric, (series = new Map()));
    series.set(p.timestamp, p.value);
  }
}

/** The base data: walks (two-decimal steps, so 0.1 + 0.2 style artefacts), strings, edge values, window boundaries. */
function baseData(): Point[][] {
  const batches: Point[][] = [];
  const next = mulberry32(14);
  for (let k = 0; k < WALK_SERIES; k++) {
    const points: Point[] = [];
    let v = 100 * k;
    for (let t = D0 + k * 1000; t < D0 + SPAN_MS; t += WALK_STEP_MS) {
      v += Math.round((next() / 2 ** 32 - 0.5) * 100) / 100;
      points.push({ tenant: TENANT, metric: `walk.${k}`, timestamp: t, value: v });
    }
    batches.push(points);
  }
  const mixed: Point[] = [];
  for (let i = 0, t = D0 + 17; t < D0 + SPAN_MS; i++, t += 5 * MINUTE_MS) {
    mixed.push({ tenant: TENANT, metric: 'mixed', timestamp: t, value: i % 3 === 0 ? (WORDS[i % WORDS.length] as string) : i * 0.25 });
  }
  batches.push(mixed);
  const edge: Point[] = [];
  for (let i = 0, t = D0 + 3; t < D0 + SPAN_MS; i++, t += 7 * MINUTE_MS) edge.push({ tenant: TENANT, metric: 'edge', timestamp: t, value: EDGE_VALUES[i % EDGE_VALUES.length] as number });
  batches.push(edge);
  const bounds: Point[] = [];
  for (let w = 0; w < WINDOWS; w++) {
    bounds.push({ tenant: TENANT, metric: 'bounds', timestamp: D0 + w * WINDOW_MS, value: w });
    bounds.push({ tenant: TENANT, metric: 'bounds', timestamp: D0 + (w + 1) * WINDOW_MS - 1, value: -w - 0.5 });
  }
  batches.push(bounds);
  return batches;
}

async function writeAll(stores: readonly Store[], model: Model, batches: readonly (readonly Point[])[]): Promise<void> {
  for (const batch of batches) {
    for (const store of stores) expect(await store.write(batch)).toEqual({ accepted: batch.length, rejected: [] });
    record(model, batch);
  }
}

/** Every answer worth comparing: FULL per window (240 expected points each), MIN5 and MIN20 over the span. */
async function snapshot(store: Store, metrics: Iterable<string>): Promise<Map<string, readonly QueryValue[]>> {
  const out = new Map<string, readonly QueryValue[]>();
  for (const metric of metrics) {
    for (let w = 0; w < WINDOWS; w++) {
      const from = D0 + w * WINDOW_MS;
      const result = await store.query({ tenant: TENANT, metric, from, to: from + WINDOW_MS, resolution: 'FULL', select: ALL_STATS });
      out.set(`${metric} FULL ${w}`, result.values);
    }
    for (const res of ROLLUPS) {
      const result = await store.query({ tenant: TENANT, metric, from: D0, to: D0 + SPAN_MS, resolution: res, select: ALL_STATS });
      expect(result.resolution).toBe(res);
      out.set(`${metric} ${res}`, result.values);
    }
  }
  return out;
}

/** What FULL must answer for a metric's window, from the model. */
function expectedWindow(model: Model, metric: string, w: number): QueryValue[] {
  const from = D0 + w * WINDOW_MS;
  const entries = [...(model.get(metric) ?? new Map<number, number | string>())].filter(([t]) => t >= from && t < from + WINDOW_MS).sort((a, b) => a[0] - b[0]);
  return entries.map(([timestamp, v]) =>
    typeof v === 'string'
      ? { timestamp, numPoints: 1, average: null, variance: null, min: null, max: null, value: v }
      : { timestamp, numPoints: 1, average: v, variance: 0, min: v, max: v },
  );
}

/** The first place two values differ, with numbers compared by Object.is (-0 is not 0); null when identical. */
function difference(actual: unknown, expected: unknown, path = ''): string | null {
  if (typeof expected === 'number' || typeof actual === 'number') {
    return Object.is(actual, expected) ? null : `${path}: ${String(actual)} (${Object.is(actual, -0) ? '-0' : typeof actual}), expected ${String(expected)}${Object.is(expected, -0) ? ' (-0)' : ''}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: not an array`;
    if (actual.length !== expected.length) return `${path}: length ${actual.length}, expected ${expected.length}`;
    for (let i = 0; i < expected.length; i++) {
      const d = difference(actual[i], expected[i], `${path}[${i}]`);
      if (d !== null) return d;
    }
    return null;
  }
  if (expected instanceof Map) {
    if (!(actual instanceof Map)) return `${path}: not a map`;
    const keys = [...expected.keys()];
    if (actual.size !== expected.size || keys.some((k) => !actual.has(k))) return `${path}: keys differ`;
    for (const k of keys) {
      const d = difference(actual.get(k), expected.get(k), `${path} ${String(k)}`);
      if (d !== null) return d;
    }
    return null;
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null) return `${path}: ${String(actual)}, expected an object`;
    const a = Object.keys(actual).sort();
    const e = Object.keys(expected).sort();
    if (a.join() !== e.join()) return `${path}: keys ${a.join()}, expected ${e.join()}`;
    for (const k of e) {
      const d = difference((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], `${path}.${k}`);
      if (d !== null) return d;
    }
    return null;
  }
  return Object.is(actual, expected) ? null : `${path}: ${String(actual)}, expected ${String(expected)}`;
}

/** Checks the FULL answers of a snapshot against the model, bit for bit. */
function expectMatchesModel(snap: Map<string, readonly QueryValue[]>, model: Model): void {
  for (const metric of model.keys()) {
    for (let w = 0; w < WINDOWS; w++) {
      expect(difference(snap.get(`${metric} FULL ${w}`), expectedWindow(model, metric, w), `${metric} FULL ${w}`)).toBeNull();
    }
  }
}

function expectSameSnapshot(actual: Map<string, readonly QueryValue[]>, expected: Map<string, readonly QueryValue[]>): void {
  expect(difference(actual, expected)).toBeNull();
  expect(actual).toEqual(expected);
}

/** Metrics with a point in the FULL partition starting at `start`. */
function metricsIn(model: Model, start: number): number {
  let n = 0;
  for (const series of model.values()) if ([...series.keys()].some((t) => t >= start && t < start + PART_MS)) n++;
  return n;
}

/** Window chunks the FULL partition starting at `start` holds before compaction: one per metric and window with a point. */
function windowRowsIn(model: Model, start: number): number {
  let n = 0;
  for (const series of model.values()) n += new Set([...series.keys()].filter((t) => t >= start && t < start + PART_MS).map((t) => Math.floor(t / WINDOW_MS))).size;
  return n;
}

interface FileFacts {
  readonly keys: number[];
  readonly applicationId: number;
}

function factsOf(path: string): FileFacts {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return {
      keys: db.prepare('SELECT key FROM chunk ORDER BY key').pluck().all() as number[],
      applicationId: db.pragma('application_id', { simple: true }) as number,
    };
  } finally {
    db.close();
  }
}

function fullPath(dir: string, start: number): string {
  return join(dir, 'partitions', 'FULL', `${start}.sqlite`);
}

/** Every FULL file under `dir` holds exactly one compacted chunk per series with data in it. */
function expectCompactedFiles(dir: string, model: Model, starts: readonly number[] = partitionFilesOf(dir, 'FULL')): void {
  expect(starts.length).toBeGreaterThan(0);
  for (const start of starts) {
    const facts = factsOf(fullPath(dir, start));
    expect(facts.applicationId, `application_id of ${start}`).toBe(COMPACTED_APPLICATION_ID);
    expect(facts.keys.length, `rows of ${start}`).toBe(metricsIn(model, start));
    expect(facts.keys.filter((k) => k % SLOTS_PER_PARTITION !== COMPACTED_SLOT), `window rows left in ${start}`).toEqual([]);
  }
}

function leftovers(dir: string): string[] {
  return readdirSync(join(dir, 'partitions', 'FULL')).filter((name) => name.includes('.compacting'));
}

function partitionStarts(): number[] {
  const out: number[] = [];
  for (let s = D0; s < D0 + SPAN_MS; s += PART_MS) out.push(s);
  return out;
}

const opened: TestStore[] = [];
afterEach(async () => {
  for (const t of opened.splice(0)) await t.cleanup();
});

async function storeWithData(model: Model, extra: TestStore[] = []): Promise<TestStore> {
  const t = await openTestStore();
  opened.push(t);
  await writeAll([t.store, ...extra.map((e) => e.store)], model, baseData());
  await t.store.flush();
  for (const e of extra) await e.store.flush();
  return t;
}

describe('compactStore on a real store', () => {
  it('leaves every FULL and rollup answer bit-identical and keeps one compacted row per series', async () => {
    const model: Model = new Map();
    const t = await storeWithData(model);
    const before = await snapshot(t.store, model.keys());
    expectMatchesModel(before, model);

    const results = await compactStore(t.store);
    expect(results.map((r) => r.partitionStartMs)).toEqual(partitionStarts());
    for (const r of results) {
      expect(r.rowsAfter).toBe(metricsIn(model, r.partitionStartMs));
      expect(r.rowsBefore).toBe(windowRowsIn(model, r.partitionStartMs));
    }
    const sum = (f: (r: (typeof results)[number]) => number) => results.reduce((s, r) => s + f(r), 0);
    expect(sum((r) => r.bytesAfter)).toBeLessThan(sum((r) => r.bytesBefore));
    expect(leftovers(t.dir)).toEqual([]);

    const after = await snapshot(t.store, model.keys());
    expectSameSnapshot(after, before);
    expectCompactedFiles(t.dir, model);
  });

  it('finds nothing to do right after a compaction', async () => {
    const model: Model = new Map();
    const t = await storeWithData(model);
    expect((await compactStore(t.store)).length).toBe(partitionStarts().length);
    expect(await compactStore(t.store)).toEqual([]);
  });

  it('serves late data sealed into a compacted partition (newer wins) and folds it in on the next compaction', async () => {
    const model: Model = new Map();
    const reference = await openTestStore();
    opened.push(reference);
    const t = await storeWithData(model, [reference]);
    await compactStore(t.store);
    const compactedAnswers = await snapshot(t.store, model.keys());

    // Late points in two old windows of two partitions: overwrites (number to number, number to
    // string, string to number, -0 to 0 and back), new timestamps, and a series new to the partition.
    const lateWindowA = D0 + WINDOW_MS;
    const lateWindowB = D0 + 2 * PART_MS + WINDOW_MS;
    const walkTs = (k: number, i: number) => lateWindowA + k * 1000 + i * WALK_STEP_MS;
    const mixedInB = [...(model.get('mixed') as Map<number, number | string>)].filter(([ts]) => ts >= lateWindowB && ts < lateWindowB + WINDOW_MS);
    const edgeInA = [...(model.get('edge') as Map<number, number | string>)].filter(([ts]) => ts >= lateWindowA && ts < lateWindowA + WINDOW_MS);
    const late: Point[] = [
      ...Array.from({ length: 10 }, (_, i) => ({ tenant: TENANT, metric: 'walk.3', timestamp: walkTs(3, i), value: 1000 + i })),
      ...Array.from({ length: 10 }, (_, i) => ({ tenant: TENANT, metric: 'walk.3', timestamp: walkTs(3, i) + 30_000, value: -i })),
      ...mixedInB.slice(0, 6).map(([ts, v]) => ({ tenant: TENANT, metric: 'mixed', timestamp: ts, value: typeof v === 'string' ? 7.25 : `was ${v}` })),
      ...edgeInA.map(([ts, v]) => ({ tenant: TENANT, metric: 'edge', timestamp: ts, value: Object.is(v, -0) ? 0 : Object.is(v, 0) ? -0 : v })),
      ...Array.from({ length: 5 }, (_, i) => ({ tenant: TENANT, metric: 'late.only', timestamp: lateWindowB + i * MINUTE_MS, value: i === 2 ? 'late' : i + 0.1 })),
    ];
    expect(mixedInB.some(([, v]) => typeof v === 'string') && mixedInB.slice(0, 6).some(([, v]) => typeof v === 'number')).toBe(true);
    expect(edgeInA.some(([, v]) => Object.is(v, -0)) && edgeInA.some(([, v]) => Object.is(v, 0))).toBe(true);
    // The same timestamp twice in two batches: the second write wins.
    const again: Point[] = [{ tenant: TENANT, metric: 'walk.5', timestamp: lateWindowB + 5 * 1000, value: 1 }];
    const againWins: Point[] = [{ tenant: TENANT, metric: 'walk.5', timestamp: lateWindowB + 5 * 1000, value: 2 }];
    await writeAll([t.store, reference.store], model, [late, again, againWins]);
    await t.store.flush();
    await reference.store.flush();

    const withLate = await snapshot(t.store, model.keys());
    expectMatchesModel(withLate, model);
    // Rollups re-read the compacted partitions: they must agree with a store that never compacted.
    expectSameSnapshot(withLate, await snapshot(reference.store, model.keys()));
    // Everything the late data did not touch answers as before.
    for (const [key, values] of compactedAnswers) {
      const touched = key.startsWith('late.only') || / MIN\d+$/.test(key) || key === 'walk.3 FULL 1' || key === 'mixed FULL 7' || key === 'edge FULL 1' || key === 'walk.5 FULL 7';
      if (!touched) expect(difference(withLate.get(key), values, key)).toBeNull();
    }

    const results = await compactStore(t.store);
    expect(results.map((r) => r.partitionStartMs)).toEqual([D0, D0 + 2 * PART_MS]);
    expectSameSnapshot(await snapshot(t.store, model.keys()), withLate);
    expectCompactedFiles(t.dir, model);
    expect(await compactStore(t.store)).toEqual([]);
  });
});

describe('compaction across a restart', () => {
  it('answers the same after a reopen, and a leftover .compacting file is deleted at open without touching data', async () => {
    const model: Model = new Map();
    const t = await storeWithData(model);
    await compactStore(t.store);
    const before = await snapshot(t.store, model.keys());
    await t.store.close();

    // A leftover as a crash mid-compaction leaves it: a real SQLite file (here another
    // partition's, so using it would visibly change answers) and a -wal beside it.
    const leftover = `${fullPath(t.dir, D0)}.compacting`;
    copyFileSync(fullPath(t.dir, D0 + PART_MS), leftover);
    writeFileSync(`${leftover}-wal`, Buffer.alloc(4096, 7));
    await t.reopen();
    expect(existsSync(leftover)).toBe(false);
    expect(existsSync(`${leftover}-wal`)).toBe(false);
    expect(leftovers(t.dir)).toEqual([]);

    expectSameSnapshot(await snapshot(t.store, model.keys()), before);
    expect(await compactStore(t.store)).toEqual([]);
    expectCompactedFiles(t.dir, model);
  });

  it('reads window rows over compacted rows after a reopen (late data sealed, not yet compacted)', async () => {
    const model: Model = new Map();
    const t = await storeWithData(model);
    await compactStore(t.store);
    const late: Point[] = Array.from({ length: 20 }, (_, i) => ({ tenant: TENANT, metric: `walk.${i}`, timestamp: D0 + PART_MS + i * 1000, value: i === 4 ? 'late' : -i }));
    await writeAll([t.store], model, [late]);
    await t.store.flush();
    const before = await snapshot(t.store, model.keys());
    expectMatchesModel(before, model);
    await t.reopen();
    const after = await snapshot(t.store, model.keys());
    expectSameSnapshot(after, before);
    expect((await compactStore(t.store)).map((r) => r.partitionStartMs)).toEqual([D0 + PART_MS]);
    expectSameSnapshot(await snapshot(t.store, model.keys()), before);
  });
});

/** The raw chunk rows of a partition file, by key. */
function rowsOf(path: string): Map<number, Buffer> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return new Map((db.prepare('SELECT key, data FROM chunk').all() as { key: number; data: Buffer }[]).map((r) => [r.key, r.data]));
  } finally {
    db.close();
  }
}

describe('rebuilding a rollup partition from compacted FULL partitions', () => {
  it('rebuilds MIN5 bit for bit from compacted chunks alone (every window of a compacted key is due)', async () => {
    const model: Model = new Map();
    const t = await storeWithData(model);
    await compactStore(t.store);
    const before = await snapshot(t.store, model.keys());
    await t.store.close();
    const min5Start = Math.floor(D0 / DAY_MS) * DAY_MS;
    const min5Path = partitionPath(t.dir, 'MIN5', min5Start);
    const originalRows = rowsOf(min5Path);
    damagePartition(t.dir, 'MIN5', min5Start, 'empty');

    const found = auditPartitions(t.dir);
    expect(found).toEqual([expect.objectContaining({ kind: 'partition-damaged', resolution: 'MIN5', partitionStartMs: min5Start, reason: 'empty' })]);
    const actions = repairPartitions(t.dir, found, { acceptLoss: false, nowMs: t.clock.now(), durability: 'normal' });
    expect(actions).toEqual([expect.objectContaining({ kind: 'rebuilding', resolution: 'MIN5', partitionStartMs: min5Start })]);
    expect(auditPartitions(t.dir)).toEqual([]);

    await t.reopen();
    await t.store.flush();
    expectSameSnapshot(await snapshot(t.store, model.keys()), before);
    await t.store.close();
    expect(rowsOf(min5Path)).toEqual(originalRows);
  });
});

/** Waits, a turn of the event loop at a time, until `path` exists (the compaction wrote its first step). */
async function untilExists(path: string): Promise<void> {
  for (let turn = 0; turn < TURNS_MAX; turn++) {
    if (existsSync(path)) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  throw new Error(`${path} never appeared`);
}

describe('a write into the partition while it is being compacted', () => {
  const P = D0 + PART_MS;
  const latePoints = (): Point[] =>
    Array.from({ length: WALK_SERIES }, (_, k) => ({ tenant: TENANT, metric: `walk.${k}`, timestamp: P + k * 1000 + 7 * WALK_STEP_MS, value: k % 4 === 0 ? `mid ${k}` : 5000 + k }));

  it('abandons the run when a write reaches the head mid-run; nothing is lost once sealed and compacted', async () => {
    const model: Model = new Map();
    const t = await storeWithData(model);
    // Every partition but P compacted first, so the next run is P's.
    await compactStore(t.store);
    const late = latePoints();
    await writeAll([t.store], model, [late]);
    await t.store.flush();
    const running = compactStore(t.store);
    await untilExists(`${fullPath(t.dir, P)}.compacting`);
    const mid = latePoints().map((p) => ({ ...p, timestamp: p.timestamp + 1, value: typeof p.value === 'string' ? 1 : 'x' }));
    await writeAll([t.store], model, [mid]);
    expect(await running).toEqual([]);
    expect(leftovers(t.dir)).toEqual([]);

    await t.store.flush();
    expect((await compactStore(t.store)).map((r) => r.partitionStartMs)).toEqual([P]);
    expectMatchesModel(await snapshot(t.store, model.keys()), model);
    expectCompactedFiles(t.dir, model);
  });

  it('keeps every point when a write is sealed into the partition mid-run, whichever way the run ends', async () => {
    const model: Model = new Map();
    const t = await storeWithData(model);
    await compactStore(t.store);
    await writeAll([t.store], model, [latePoints()]);
    await t.store.flush();
    const running = compactStore(t.store);
    await untilExists(`${fullPath(t.dir, P)}.compacting`);
    const mid = latePoints().map((p) => ({ ...p, value: typeof p.value === 'string' ? -1 : `again ${p.metric}` }));
    await writeAll([t.store], model, [mid]);
    await t.store.flush();
    await running;
    expect(leftovers(t.dir)).toEqual([]);
    expectMatchesModel(await snapshot(t.store, model.keys()), model);

    await compactStore(t.store);
    expectMatchesModel(await snapshot(t.store, model.keys()), model);
    expectCompactedFiles(t.dir, model);
  });

  it('abandons when the store closes mid-run and leaves the partition as it was', async () => {
    const model: Model = new Map();
    const t = await storeWithData(model);
    const before = await snapshot(t.store, model.keys());
    const running = compactStore(t.store);
    await untilExists(`${fullPath(t.dir, D0)}.compacting`);
    await t.store.close();
    await running;
    expect(leftovers(t.dir)).toEqual([]);
    await t.reopen();
    expectSameSnapshot(await snapshot(t.store, model.keys()), before);
  });
});

// ---- CompactRun on its own, over a PartitionSet in a temp dir ----

const P0 = D0;

function samplesAt(timestamps: readonly number[], value: (t: number) => number): SampleColumns {
  return { length: timestamps.length, timestampsMs: Float64Array.from(timestamps), values: Float64Array.from(timestamps.map(value)), strings: null };
}

/** One chunk per series and window of partition P0: a point every 10 minutes. */
function windowChunks(series: number): ChunkWrite[] {
  const writes: ChunkWrite[] = [];
  for (let id = 1; id <= series; id++) {
    for (let start = P0; start < P0 + PART_MS; start += WINDOW_MS) {
      const ts = Array.from({ length: WINDOW_MS / (10 * MINUTE_MS) }, (_, i) => start + i * 10 * MINUTE_MS + id);
      writes.push({ seriesId: id, chunkStartMs: start, data: encodeChunk(samplesAt(ts, (t) => (t % 997) * 0.1 + id)) });
    }
  }
  return writes;
}

interface RunFixture {
  readonly dir: string;
  readonly parts: PartitionSet;
  readonly lowered: [number, number][];
  readonly deps: CompactorDeps;
}

const fixtures: RunFixture[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) {
    f.parts.close();
    rmSync(f.dir, { recursive: true, force: true });
  }
});

function runFixture(): RunFixture {
  const dir = mkdtempSync(join(tmpdir(), 'strata-compactor-'));
  const parts = new PartitionSet(dir, 'normal');
  const lowered: [number, number][] = [];
  const f: RunFixture = { dir, parts, lowered, deps: { dataDir: dir, durability: 'normal', partitions: parts, lowerCount: (start, chunks) => lowered.push([start, chunks]) } };
  fixtures.push(f);
  return f;
}

function windowsOf(parts: PartitionSet, series: number): (SampleColumns | undefined)[] {
  const out: (SampleColumns | undefined)[] = [];
  for (let id = 1; id <= series; id++) for (let start = P0; start < P0 + PART_MS; start += WINDOW_MS) out.push(readFullWindow(parts, id, start));
  return out;
}

function plain(samples: readonly (SampleColumns | undefined)[]): unknown[] {
  return samples.map((s) => (s === undefined ? undefined : { ts: [...s.timestampsMs.subarray(0, s.length)], vs: [...s.values.subarray(0, s.length)], strings: s.strings === null ? null : { ts: [...s.strings.timestampsMs], vs: [...s.strings.values] } }));
}

describe('CompactRun', () => {
  it('replaces the file with one compacted row per series, lowers the count first, and reads the same', () => {
    const f = runFixture();
    const series = 3 * COMPACT_STEP_SERIES;
    f.parts.writeChunks('FULL', P0, windowChunks(series));
    const before = plain(windowsOf(f.parts, series));
    const run = new CompactRun(f.deps, P0);
    while (!run.read) run.step();
    const result = run.finish();
    expect(result).toEqual(expect.objectContaining({ partitionStartMs: P0, rowsBefore: series * (PART_MS / WINDOW_MS), rowsAfter: series }));
    expect(f.lowered).toEqual([[P0, series]]);
    expect(existsSync(`${f.parts.pathOf('FULL', P0)}.compacting`)).toBe(false);
    expect(difference(plain(windowsOf(f.parts, series)), before)).toBeNull();
    expect(f.parts.isCompacted('FULL', P0)).toBe(true);
    const facts = factsOf(f.parts.pathOf('FULL', P0));
    expect(facts.applicationId).toBe(COMPACTED_APPLICATION_ID);
    expect(facts.keys).toEqual(Array.from({ length: series }, (_, i) => (i + 1) * SLOTS_PER_PARTITION + COMPACTED_SLOT));
  });

  it('compacts at most COMPACT_STEP_SERIES series per step, as documented', () => {
    const f = runFixture();
    const series = 3 * COMPACT_STEP_SERIES;
    f.parts.writeChunks('FULL', P0, windowChunks(series));
    const run = new CompactRun(f.deps, P0);
    run.step();
    const path = `${f.parts.pathOf('FULL', P0)}.compacting`;
    const db = new Database(path, { readonly: true, fileMustExist: true });
    const rows = db.prepare('SELECT count(*) FROM chunk').pluck().get() as number;
    db.close();
    run.abandon();
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThanOrEqual(COMPACT_STEP_SERIES);
  });

  it('abandons at finish when the partition was written after it began, and the file keeps the write', () => {
    const f = runFixture();
    const series = 3 * COMPACT_STEP_SERIES;
    f.parts.writeChunks('FULL', P0, windowChunks(series));
    const run = new CompactRun(f.deps, P0);
    run.step();
    // A seal of series 1 (already read by the step) lands in the old file mid-run.
    const sealed = samplesAt([P0 + 1, P0 + 2], () => -0);
    f.parts.writeChunks('FULL', P0, [{ seriesId: 1, chunkStartMs: P0, data: encodeChunk(sealed) }]);
    const expected = plain(windowsOf(f.parts, series));
    while (!run.read) run.step();
    expect(run.finish()).toBeUndefined();
    expect(f.lowered).toEqual([]);
    expect(existsSync(`${f.parts.pathOf('FULL', P0)}.compacting`)).toBe(false);
    expect(f.parts.isCompacted('FULL', P0)).toBe(false);
    expect(difference(plain(windowsOf(f.parts, series)), expected)).toBeNull();
    expect(Object.is(readFullWindow(f.parts, 1, P0)?.values[0], -0)).toBe(true);
  });

  it('refuses to finish a run that has not read the whole file', () => {
    const f = runFixture();
    f.parts.writeChunks('FULL', P0, windowChunks(3 * COMPACT_STEP_SERIES));
    const run = new CompactRun(f.deps, P0);
    expect(run.finish()).toBeUndefined();
    expect(f.lowered).toEqual([]);
    expect(f.parts.isCompacted('FULL', P0)).toBe(false);
  });
});

describe('removeCompactionLeftovers', () => {
  it('deletes .compacting files and their sidecars, and nothing else', () => {
    const f = runFixture();
    f.parts.writeChunks('FULL', P0, windowChunks(2));
    const dir = join(f.dir, 'partitions', 'FULL');
    const names = [`${P0}.sqlite.compacting`, `${P0}.sqlite.compacting-wal`, `${P0}.sqlite.compacting-shm`, `${P0 + PART_MS}.sqlite.compacting-journal`];
    for (const name of names) writeFileSync(join(dir, name), 'left');
    writeFileSync(join(dir, 'notes.compacting.txt'), 'keep');
    expect(removeCompactionLeftovers(f.dir)).toBe(names.length);
    expect(readdirSync(dir).filter((n) => n.includes('.sqlite.compacting'))).toEqual([]);
    expect(readdirSync(dir)).toContain('notes.compacting.txt');
    expect(readdirSync(dir)).toContain(`${P0}.sqlite`);
    expect(removeCompactionLeftovers(join(f.dir, 'missing'))).toBe(0);
  });
});
