// Owns the tests of `strata check`: a clean directory exits 0; damaged, missing and unlisted partition files, an outdated catalog and wide modes are listed (text and --json) with exit 1; --repair puts damaged files aside, restores FULL from the WAL, rebuilds rollups, records losses until --accept-loss, adopts files and tightens modes; read-only beside a live server, repair refused; usage errors exit 2.
import { chmodSync, copyFileSync, cpSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alignDown, HOUR_MS, MINUTE_MS } from '../../src/core/time.js';
import { openStore } from '../../src/store.js';
import { damagePartition, seedPoints } from '../store-damage-fixtures.js';
import { requireBuiltCli, runCli, type CliRun } from './cli-run.js';

/**
 * The seed fills [02:00, 11:00) of DAY0, a UTC day that starts 12 to 36 hours ago: all of it is in
 * the past, and within every default retention (the CLI runs on the real clock).
 */
const DAY0 = alignDown(Date.now() - 12 * HOUR_MS, 24 * HOUR_MS);
const LATE = DAY0 + 6 * HOUR_MS;

let scratch: string;
let template: string;
let run = 0;

beforeAll(async () => {
  requireBuiltCli();
  scratch = mkdtempSync(join(tmpdir(), 'strata-cli-check-'));
  template = join(scratch, 'template');
  const store = await openStore({ dir: template, background: false, workers: 0 });
  await store.write(seedPoints(DAY0));
  await store.flush();
  // A point of the current window keeps the log segment (and the seed's record in it) on disk.
  await store.write([{ tenant: 't1', metric: 'other', timestamp: Date.now() - MINUTE_MS, value: 1 }]);
  await store.close();
}, 60_000);
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** A fresh copy of the seeded directory. */
function copy(): string {
  const dir = join(scratch, `data-${run++}`);
  cpSync(template, dir, { recursive: true });
  return dir;
}

async function check(dir: string, ...args: string[]): Promise<CliRun & { report: any }> {
  const result = await runCli(['check', '--data', dir, '--json', ...args]);
  let report: any;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    report = undefined;
  }
  return { ...result, report };
}

async function query(dir: string, from: number, to: number, resolution: string): Promise<CliRun> {
  return runCli(['query', '--data', dir, '--tenant', 't1', '--metric', 'cpu', '--from', String(from), '--to', String(to), '--resolution', resolution, '--select', 'average,variance,min,max']);
}

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);

describe('strata check on a sound directory', () => {
  it('exits 0 and says so, in text and in JSON', async () => {
    const dir = copy();
    const text = await runCli(['check', '--data', dir]);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain('no problems found');
    const json = await check(dir);
    expect(json.status).toBe(0);
    expect(json.report).toEqual({ dataDir: dir, serverRunning: false, repair: false, findings: [], problems: 0 });
  });
});

describe('strata check finds and repairs', () => {
  it('a deleted FULL partition: listed, exit 1; --repair restores it from the WAL and the query answers the seed again', async () => {
    const dir = copy();
    const before = await query(dir, LATE, LATE + 2 * HOUR_MS, 'FULL');
    expect(before.status, before.stderr).toBe(0);
    const fresh = copy();
    damagePartition(fresh, 'FULL', LATE, 'delete');
    const found = await check(fresh);
    expect(found.status).toBe(1);
    expect(found.report.findings).toEqual([expect.objectContaining({ kind: 'partition-damaged', resolution: 'FULL', partitionStartMs: LATE, reason: 'missing' })]);
    const text = await runCli(['check', '--data', fresh]);
    expect(text.status).toBe(1);
    expect(text.stdout).toMatch(new RegExp(`partition-damaged +partitions/FULL/${LATE}\\.sqlite: FULL \\[${new Date(LATE).toISOString()}`));
    expect(text.stdout).toContain('1 problem(s); strata check --repair fixes what can be fixed');
    const repaired = await check(fresh, '--repair');
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(repaired.report.repairs).toEqual([expect.objectContaining({ kind: 'restoring', resolution: 'FULL', partitionStartMs: LATE })]);
    expect(repaired.report.remaining).toEqual([]);
    expect(JSON.parse((await query(fresh, LATE, LATE + 2 * HOUR_MS, 'FULL')).stdout)).toEqual(JSON.parse(before.stdout));
  });

  it.each([
    ['half', 'truncated'],
    ['corrupt-page', 'corrupt'],
    ['drop-chunk', 'chunks'],
  ] as const)('a FULL partition damaged (%s): listed as %s, exit 1; --repair restores it from the WAL', async (how, reason) => {
    const dir = copy();
    const before = await query(dir, LATE, LATE + 2 * HOUR_MS, 'FULL');
    damagePartition(dir, 'FULL', LATE, how);
    const found = await check(dir);
    expect(found.status).toBe(1);
    expect(found.report.findings).toEqual([expect.objectContaining({ kind: 'partition-damaged', resolution: 'FULL', partitionStartMs: LATE, reason })]);
    const repaired = await check(dir, '--repair');
    expect(repaired.status).toBe(0);
    expect(repaired.report.repairs).toEqual([expect.objectContaining({ kind: 'restoring' })]);
    expect(JSON.parse((await query(dir, LATE, LATE + 2 * HOUR_MS, 'FULL')).stdout)).toEqual(JSON.parse(before.stdout));
  });

  it('a MIN5 partition truncated to 0: --repair puts it aside and its day answers the same at MIN5', async () => {
    const dir = copy();
    const before = await query(dir, DAY0, DAY0 + 24 * HOUR_MS, 'MIN5');
    damagePartition(dir, 'MIN5', DAY0, 'empty');
    const found = await check(dir);
    expect(found.status).toBe(1);
    expect(found.report.findings).toEqual([expect.objectContaining({ kind: 'partition-damaged', resolution: 'MIN5', reason: 'empty' })]);
    const failing = await query(dir, DAY0, DAY0 + 24 * HOUR_MS, 'MIN5');
    expect(failing.status).toBe(1);
    expect(failing.stderr).toMatch(/STORE_PARTITION_DAMAGED: the MIN5 \[.*\) partition is unavailable \(empty/);
    const repaired = await check(dir, '--repair');
    expect(repaired.status).toBe(0);
    expect(repaired.report.repairs).toEqual([expect.objectContaining({ kind: 'rebuilding', quarantinedTo: expect.stringMatching(/^quarantine\//) })]);
    expect(modeOf(join(dir, repaired.report.repairs[0].quarantinedTo))).toBe('600');
    expect(modeOf(join(dir, 'quarantine'))).toBe('700');
    const after = await query(dir, DAY0, DAY0 + 24 * HOUR_MS, 'MIN5');
    expect(after.status, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual(JSON.parse(before.stdout));
  });

  it('a FULL partition the WAL cannot restore: recorded lost (exit 1, queries fail) until --accept-loss', async () => {
    const dir = copy();
    damagePartition(dir, 'FULL', LATE, 'garbage');
    // Without the log segment nothing can be restored.
    rmSync(join(dir, 'wal'), { recursive: true });
    const repaired = await check(dir, '--repair');
    expect(repaired.status).toBe(1);
    expect(repaired.report.repairs).toEqual([expect.objectContaining({ kind: 'lost' })]);
    expect(repaired.report.remaining).toEqual([expect.objectContaining({ kind: 'partition-marked', reason: 'lost' })]);
    const failing = await query(dir, LATE, LATE + 2 * HOUR_MS, 'FULL');
    expect(failing.status).toBe(1);
    expect(failing.stderr).toContain('--accept-loss');
    const accepted = await check(dir, '--repair', '--accept-loss');
    expect(accepted.status).toBe(0);
    expect(accepted.report.repairs).toEqual([expect.objectContaining({ kind: 'loss-accepted' })]);
    expect(JSON.parse((await query(dir, LATE, LATE + 2 * HOUR_MS, 'FULL')).stdout).values).toEqual([]);
  });

  it('files the catalog does not list, an outdated catalog, and modes wider than 0600/0700: listed, then adopted and tightened', async () => {
    const dir = copy();
    copyFileSync(join(dir, 'partitions', 'FULL', `${LATE}.sqlite`), join(dir, 'partitions', 'FULL', `${LATE + 6 * HOUR_MS}.sqlite`));
    chmodSync(join(dir, 'catalog.sqlite'), 0o644);
    chmodSync(join(dir, 'partitions'), 0o755);
    const found = await check(dir);
    expect(found.status).toBe(1);
    expect(found.report.findings.map((f: { kind: string; path: string }) => [f.kind, f.path])).toEqual([
      ['partition-unknown', `partitions/FULL/${LATE + 6 * HOUR_MS}.sqlite`],
      ['mode', 'catalog.sqlite'],
      ['mode', 'partitions'],
    ]);
    const repaired = await check(dir, '--repair');
    expect(repaired.status).toBe(0);
    expect(repaired.report.repairs).toEqual([expect.objectContaining({ kind: 'adopted', partitionStartMs: LATE + 6 * HOUR_MS })]);
    expect([modeOf(join(dir, 'catalog.sqlite')), modeOf(join(dir, 'partitions'))]).toEqual(['600', '700']);
    const older = copy();
    const catalog = new Database(join(older, 'catalog.sqlite'));
    catalog.exec('DROP TABLE partition_file; DROP TABLE damaged_partition; PRAGMA user_version = 1;');
    catalog.close();
    const outdated = await check(older);
    expect(outdated.status).toBe(1);
    expect(outdated.report.findings[0]).toMatchObject({ kind: 'catalog-outdated' });
    expect(outdated.report.findings.filter((f: { kind: string }) => f.kind === 'partition-unknown')).toHaveLength(7);
    const repaired2 = await check(older, '--repair');
    expect(repaired2.stderr).toBe('');
    expect(repaired2.report?.remaining).toEqual([]);
    expect(repaired2.status).toBe(0);
    const clean = await check(older);
    expect(clean.stderr).toBe('');
    expect(clean.report?.findings).toEqual([]);
    expect(clean.status).toBe(0);
  });
});

describe('strata check beside a live server, and bad usage', () => {
  it('checks read-only while a process holds the directory, and refuses to repair it', async () => {
    const dir = copy();
    const store = await openStore({ dir, background: false, workers: 0 });
    try {
      const live = await check(dir);
      expect(live.status, live.stderr).toBe(0);
      expect(live.report.serverRunning).toBe(true);
      const repair = await runCli(['check', '--data', dir, '--repair']);
      expect(repair.status).toBe(1);
      expect(repair.stderr).toMatch(/STORE_LOCKED/);
    } finally {
      await store.close();
    }
  });

  it('exits 2 for a directory that is not a data directory, --accept-loss alone, or an unknown option', async () => {
    const missing = await runCli(['check', '--data', join(scratch, 'nowhere')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('is not a Strata data directory');
    const alone = await runCli(['check', '--data', copy(), '--accept-loss']);
    expect(alone.status).toBe(2);
    expect(alone.stderr).toContain('--accept-loss only goes with --repair');
    const unknown = await runCli(['check', '--data', copy(), '--frobnicate']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--frobnicate'");
  });
});
