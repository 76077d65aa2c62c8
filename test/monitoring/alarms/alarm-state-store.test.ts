// Checks mon_alarm_state through AlarmStateStore: upsert replaces, per-entity reads in alarm order, removal, tenant isolation, persistence.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AlarmStateStore, type AlarmStateRow } from '../../../src/monitoring/alarms/alarm-state-store.js';
import { MonitoringStore } from '../../../src/monitoring/monitoring-store.js';

const T0_MS = 1_790_000_000_000;

function row(alarmId: string, overrides: Partial<AlarmStateRow> = {}): AlarmStateRow {
  return { entityId: 'enA', alarmId, checkId: 'chA', state: 'CRITICAL', previousState: 'OK', status: 'down', zoneId: 'mzord', timestampMs: T0_MS, ...overrides };
}

describe('AlarmStateStore', () => {
  let dir: string;
  let store: MonitoringStore;
  let states: AlarmStateStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-alarm-state-'));
    store = new MonitoringStore(dir);
    states = new AlarmStateStore(store.db);
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('round-trips a state, nulls included, and a second put replaces the first', () => {
    const first = row('alA', { previousState: null, zoneId: null, state: 'OK', status: '' });
    states.put('t1', first);
    expect(states.get('t1', 'enA', 'alA')).toEqual(first);
    const second = row('alA', { state: 'WARNING', previousState: 'OK', timestampMs: T0_MS + 60_000 });
    states.put('t1', second);
    expect(states.get('t1', 'enA', 'alA')).toEqual(second);
    expect(states.ofEntity('t1', 'enA', 10)).toEqual([second]);
  });

  it('keeps tenants and entities apart', () => {
    states.put('t1', row('alA'));
    states.put('t2', row('alA', { state: 'OK' }));
    states.put('t1', row('alB', { entityId: 'enB' }));
    expect(states.get('t1', 'enA', 'alA')?.state).toBe('CRITICAL');
    expect(states.get('t2', 'enA', 'alA')?.state).toBe('OK');
    expect(states.get('t3', 'enA', 'alA')).toBeUndefined();
    expect(states.get('t1', 'enB', 'alA')).toBeUndefined();
    expect(states.ofEntity('t1', 'enA', 10).map((s) => s.alarmId)).toEqual(['alA']);
    expect(states.ofEntity('t2', 'enB', 10)).toEqual([]);
  });

  it('lists an entity in alarm id order up to the limit', () => {
    for (const id of ['alC', 'alA', 'alB']) states.put('t1', row(id));
    expect(states.ofEntity('t1', 'enA', 10).map((s) => s.alarmId)).toEqual(['alA', 'alB', 'alC']);
    expect(states.ofEntity('t1', 'enA', 2).map((s) => s.alarmId)).toEqual(['alA', 'alB']);
  });

  it('removes one alarm and says whether there was a row', () => {
    states.put('t1', row('alA'));
    states.put('t1', row('alB'));
    expect(states.remove('t1', 'enA', 'alA')).toBe(true);
    expect(states.remove('t1', 'enA', 'alA')).toBe(false);
    expect(states.ofEntity('t1', 'enA', 10).map((s) => s.alarmId)).toEqual(['alB']);
  });

  it('refuses a state outside OK, WARNING, CRITICAL', () => {
    expect(() => states.put('t1', row('alA', { state: 'UNKNOWN' as never }))).toThrowError(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_CHECK' }));
    expect(states.get('t1', 'enA', 'alA')).toBeUndefined();
  });

  it('keeps states across a reopen of the file', () => {
    states.put('t1', row('alA'));
    store.close();
    store = new MonitoringStore(dir);
    states = new AlarmStateStore(store.db);
    expect(states.get('t1', 'enA', 'alA')).toEqual(row('alA'));
  });
});
