// Checks monitoring.sqlite through MonitoringStore: the file and its mode, persistence across reopen, transactions, private in-memory stores, upgrades of older files.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MONITORING_FILE_NAME, MonitoringStore } from '../../src/monitoring/monitoring-store.js';

const NOW_MS = 1_790_000_000_000;
/** The schema version this build writes (schema.sql's "-- @version" line). */
const SCHEMA_VERSION = 5;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The mode of every data file a store creates, -wal and -shm included: read and write by the owner only (it may hold secrets). */
const PRIVATE_FILE_MODE = 0o600;

/** Writes one row through each table store. */
function fill(store: MonitoringStore): void {
  store.docs.insert('mon_entity', { tenant: 't1' }, 'enA', { label: 'web' }, NOW_MS);
  store.docs.insert('mon_alarm', { tenant: 't1', entityId: 'enA' }, 'alA', { criteria: 'x' }, NOW_MS, { checkId: 'chA', planId: 'npA' });
  store.docs.setPlanMembers('t1', 'npA', ['ntA']);
  store.agents.touchAgent('t1', 'ag1', NOW_MS);
  store.agents.insertToken('t1', 'at1', 'label', sha256('v'), NOW_MS);
  store.changelogs.append('t1', { id: 'c1', timestampMs: NOW_MS, entityId: 'enA', alarmId: 'alA', checkId: 'chA', state: 'OK', previousState: null, zoneId: null });
  store.changelogs.putMetricType('t1', 'enA', 'chA', 'load', 'n');
}

/** Expects the rows `fill` wrote, read through each table store. */
function expectFilled(store: MonitoringStore): void {
  expect(store.docs.get('mon_entity', { tenant: 't1' }, 'enA')?.doc).toEqual({ label: 'web' });
  expect(store.docs.alarmsReferring('t1', 'plan_id', 'npA')).toBe(1);
  expect(store.docs.plansNaming('t1', 'ntA')).toBe(1);
  expect(store.agents.agent('t1', 'ag1', 0)?.lastConnectedMs).toBe(NOW_MS);
  expect(store.agents.tokenByHash(sha256('v'))).toEqual({ tenant: 't1', id: 'at1' });
  expect(store.changelogs.entry('t1', 'c1')?.state).toBe('OK');
  expect(store.changelogs.metricTypes('t1', 'enA', 'chA').get('load')).toBe('n');
}

describe('MonitoringStore', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-monitoring-store-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the data directory and the file, readable and writable by its owner only (0600)', () => {
    const nested = join(dir, 'data', 'x');
    const store = new MonitoringStore(nested);
    try {
      fill(store);
      const file = join(nested, MONITORING_FILE_NAME);
      expect(existsSync(file)).toBe(true);
      for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(statSync(path).mode & 0o777).toBe(PRIVATE_FILE_MODE);
    } finally {
      store.close();
    }
  });

  it('keeps every table store\'s rows across close and reopen', () => {
    const first = new MonitoringStore(dir);
    fill(first);
    first.close();
    first.close(); // closing twice is harmless
    const second = new MonitoringStore(dir);
    try {
      expectFilled(second);
    } finally {
      second.close();
    }
  });

  it('commits a transaction and returns its value', () => {
    const store = new MonitoringStore(dir);
    try {
      const value = store.transaction(() => {
        fill(store);
        return 42;
      });
      expect(value).toBe(42);
      expectFilled(store);
    } finally {
      store.close();
    }
  });

  it('rolls a throwing transaction back entirely, across table stores', () => {
    const store = new MonitoringStore(dir);
    try {
      store.docs.insert('mon_entity', { tenant: 't1' }, 'enKeep', {}, NOW_MS);
      const failure = new Error('limit reached');
      expect(() =>
        store.transaction(() => {
          fill(store);
          store.docs.delete('mon_entity', { tenant: 't1' }, 'enKeep');
          throw failure;
        }),
      ).toThrow(failure);
      expect(store.docs.get('mon_entity', { tenant: 't1' }, 'enA')).toBeUndefined();
      expect(store.docs.get('mon_entity', { tenant: 't1' }, 'enKeep')).toBeDefined();
      expect(store.agents.tokenCount('t1')).toBe(0);
      expect(store.changelogs.entry('t1', 'c1')).toBeUndefined();
      expect(store.docs.plansNaming('t1', 'ntA')).toBe(0);
      // A constraint error inside the transaction rolls back the writes before it too.
      expect(() =>
        store.transaction(() => {
          store.docs.insert('mon_entity', { tenant: 't1' }, 'enB', {}, NOW_MS);
          store.docs.insert('mon_entity', { tenant: 't1' }, 'enKeep', {}, NOW_MS);
        }),
      ).toThrowError(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }));
      expect(store.docs.count('mon_entity', { tenant: 't1' })).toBe(1);
    } finally {
      store.close();
    }
  });

  it('gives each in-memory store its own private database, and writes no file', () => {
    const a = new MonitoringStore(undefined);
    const b = new MonitoringStore(undefined);
    try {
      fill(a);
      expectFilled(a);
      expect(b.docs.count('mon_entity', { tenant: 't1' })).toBe(0);
      expect(b.agents.tokenByHash(sha256('v'))).toBeUndefined();
      expect(existsSync(join(process.cwd(), MONITORING_FILE_NAME))).toBe(false);
      expect(existsSync(join(process.cwd(), ':memory:'))).toBe(false);
    } finally {
      a.close();
      b.close();
    }
  });

  it('refuses calls after close', () => {
    const store = new MonitoringStore(undefined);
    store.close();
    expect(() => store.docs.count('mon_entity', { tenant: 't1' })).toThrowError(/not open/);
    expect(() => store.agents.tokenCount('t1')).toThrowError(/not open/);
  });

  it('refuses a file written by a newer schema with STORE_SCHEMA_UNSUPPORTED', () => {
    new MonitoringStore(dir).close();
    const raw = new Database(join(dir, MONITORING_FILE_NAME));
    const version = raw.pragma('user_version', { simple: true }) as number;
    expect(version).toBeGreaterThan(0);
    raw.pragma(`user_version = ${version + 1}`);
    raw.close();
    expect(() => new MonitoringStore(dir)).toThrowError(expect.objectContaining({ code: 'STORE_SCHEMA_UNSUPPORTED' }));
  });

  it('upgrades a version 2 file: the runtime tables (account, alarm state, outbox, attempts) are added and the rows kept', () => {
    const runtimeTables = ['mon_account', 'mon_alarm_state', 'mon_delivery_attempt', 'mon_outbox'];
    new MonitoringStore(dir).close();
    // Make the file what version 2 wrote: no runtime tables, user_version 2, one entity row.
    const raw = new Database(join(dir, MONITORING_FILE_NAME));
    for (const table of runtimeTables) raw.exec(`DROP TABLE ${table}`);
    raw.prepare("INSERT INTO mon_entity (tenant, id, doc, created_ms, updated_ms) VALUES ('t', 'enOld', '{}', 1, 1)").run();
    raw.pragma('user_version = 2');
    raw.close();
    new MonitoringStore(dir).close();
    const after = new Database(join(dir, MONITORING_FILE_NAME), { readonly: true });
    const tables = (after.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name);
    expect(tables).toEqual(expect.arrayContaining(runtimeTables));
    expect(after.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(after.prepare('SELECT id FROM mon_entity').all()).toEqual([{ id: 'enOld' }]);
    after.close();
  });

  it('upgrades a version 3 file: mon_agent_connection is dropped, mon_entity_agent built, the entities kept', () => {
    new MonitoringStore(dir).close();
    // Make the file what version 3 wrote: the connection table with a row, no agent index, two entities.
    const raw = new Database(join(dir, MONITORING_FILE_NAME));
    raw.exec('DROP INDEX mon_entity_agent');
    raw.exec(`CREATE TABLE mon_agent_connection (
      tenant TEXT NOT NULL, agent_id TEXT NOT NULL, id TEXT NOT NULL, guid TEXT NOT NULL, process_version TEXT NOT NULL,
      bundle_version TEXT NOT NULL, agent_ip TEXT NOT NULL, connected_ms INTEGER NOT NULL, PRIMARY KEY (tenant, agent_id, id)
    ) STRICT, WITHOUT ROWID`);
    raw.prepare("INSERT INTO mon_agent_connection VALUES ('t', 'ag1', 'cnOld', 'g', '1', '1', '10.0.0.1', 1)").run();
    raw.prepare('INSERT INTO mon_entity (tenant, id, doc, created_ms, updated_ms) VALUES (?, ?, ?, 1, 2)').run('t', 'enBound', JSON.stringify({ label: 'a', agent_id: 'ag1' }));
    raw.prepare('INSERT INTO mon_entity (tenant, id, doc, created_ms, updated_ms) VALUES (?, ?, ?, 1, 2)').run('t', 'enFree', JSON.stringify({ label: 'b', agent_id: null }));
    raw.pragma('user_version = 3');
    raw.close();
    const store = new MonitoringStore(dir);
    try {
      expect(store.docs.entitiesOfAgent('t', 'ag1', 10)).toEqual(['enBound']);
      expect(store.docs.get('mon_entity', { tenant: 't' }, 'enFree')).toEqual({ id: 'enFree', entityId: null, doc: { label: 'b', agent_id: null }, createdMs: 1, updatedMs: 2 });
    } finally {
      store.close();
    }
    const after = new Database(join(dir, MONITORING_FILE_NAME), { readonly: true });
    const names = (type: string): string[] => (after.prepare('SELECT name FROM sqlite_master WHERE type = ?').all(type) as { name: string }[]).map((row) => row.name);
    expect(names('table')).not.toContain('mon_agent_connection');
    expect(names('index')).toContain('mon_entity_agent');
    expect(after.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(after.prepare('SELECT id FROM mon_entity ORDER BY id').all()).toEqual([{ id: 'enBound' }, { id: 'enFree' }]);
    after.close();
  });
});
