// Owns the SQL of mon_alarm_state: the committed state of each alarm, which survives a restart.
import type Database from 'better-sqlite3';
import type { AlarmState } from '../alarm-language/ast.js';

/** The committed state of one alarm: the last change the runtime recorded. */
export interface AlarmStateRow {
  readonly entityId: string;
  readonly alarmId: string;
  readonly checkId: string;
  readonly state: AlarmState;
  readonly previousState: AlarmState | null;
  /** The criteria's message of the change. */
  readonly status: string;
  /** The zone whose observation completed the change (null for an agent check). */
  readonly zoneId: string | null;
  /** When the change happened (the observation's time), integer ms. */
  readonly timestampMs: number;
}

interface RawState {
  entity_id: string;
  alarm_id: string;
  check_id: string;
  state: AlarmState;
  previous_state: AlarmState | null;
  status: string;
  zone_id: string | null;
  timestamp_ms: number;
}

function toRow(raw: RawState): AlarmStateRow {
  return {
    entityId: raw.entity_id,
    alarmId: raw.alarm_id,
    checkId: raw.check_id,
    state: raw.state,
    previousState: raw.previous_state,
    status: raw.status,
    zoneId: raw.zone_id,
    timestampMs: raw.timestamp_ms,
  };
}

const COLUMNS = 'entity_id, alarm_id, check_id, state, previous_state, status, zone_id, timestamp_ms';

/** Prepared statements over mon_alarm_state; every statement filters by tenant first. */
export class AlarmStateStore {
  private readonly s;

  /** Prepares the statements on the monitoring file's connection (MonitoringStore.db). */
  constructor(db: Database.Database) {
    this.s = {
      upsert: db.prepare(`INSERT OR REPLACE INTO mon_alarm_state (tenant, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      one: db.prepare<[string, string, string], RawState>(`SELECT ${COLUMNS} FROM mon_alarm_state WHERE tenant = ? AND entity_id = ? AND alarm_id = ?`),
      ofEntity: db.prepare<[string, string, number], RawState>(`SELECT ${COLUMNS} FROM mon_alarm_state WHERE tenant = ? AND entity_id = ? ORDER BY alarm_id LIMIT ?`),
      remove: db.prepare('DELETE FROM mon_alarm_state WHERE tenant = ? AND entity_id = ? AND alarm_id = ?'),
    };
  }

  /** Records an alarm's committed state (call inside the transaction that appends its changelog entry). */
  put(tenant: string, row: AlarmStateRow): void {
    this.s.upsert.run(tenant, row.entityId, row.alarmId, row.checkId, row.state, row.previousState, row.status, row.zoneId, row.timestampMs);
  }

  /** An alarm's committed state, or undefined when it has none yet. */
  get(tenant: string, entityId: string, alarmId: string): AlarmStateRow | undefined {
    const raw = this.s.one.get(tenant, entityId, alarmId);
    return raw === undefined ? undefined : toRow(raw);
  }

  /** The committed states of an entity's alarms, by alarm id, at most `limit`. */
  ofEntity(tenant: string, entityId: string, limit: number): AlarmStateRow[] {
    return this.s.ofEntity.all(tenant, entityId, limit).map(toRow);
  }

  /** Forgets a deleted alarm's state; true when there was one. */
  remove(tenant: string, entityId: string, alarmId: string): boolean {
    return this.s.remove.run(tenant, entityId, alarmId).changes > 0;
  }
}
