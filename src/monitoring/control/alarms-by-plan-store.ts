// Owns the SQL of the alarmsByNp view: a page of a tenant's alarms that use one notification plan, by alarm id.
import type Database from 'better-sqlite3';
import type { AlarmDoc } from '../alarm-rules.js';
import type { StoredDoc } from '../doc-store.js';

/**
 * The ids of one page, by alarm id, from the mon_alarm_plan_id index (tenant, plan_id, id) alone:
 * SQLite reads the plan's range from the marker on in id order, no sort, and stops at the page's
 * end; the entries carry the table's key (entity_id), so the documents are then read by primary key
 * for the page only. Exported so a test can ask SQLite for the plan of exactly this text.
 */
export const ALARMS_OF_PLAN_SQL = 'SELECT entity_id, id FROM mon_alarm WHERE tenant = ? AND plan_id = ? AND id >= ? ORDER BY id LIMIT ?';
/** One alarm by its primary key. */
export const ALARM_BY_KEY_SQL = 'SELECT id, entity_id, doc, created_ms, updated_ms FROM mon_alarm WHERE tenant = ? AND entity_id = ? AND id = ?';

interface KeyRow {
  readonly entity_id: string;
  readonly id: string;
}

interface DocRow extends KeyRow {
  readonly doc: string;
  readonly created_ms: number;
  readonly updated_ms: number;
}

/** Prepared statements of the alarmsByNp view over the monitoring file. */
export class AlarmsByPlanStore {
  readonly #ids: Database.Statement<[string, string, string, number], KeyRow>;
  readonly #one: Database.Statement<[string, string, string], DocRow>;

  constructor(db: Database.Database) {
    this.#ids = db.prepare(ALARMS_OF_PLAN_SQL);
    this.#one = db.prepare(ALARM_BY_KEY_SQL);
  }

  /** Up to `limit` alarms of the tenant whose plan is `planId`, with id >= `marker`, by id. */
  list(tenant: string, planId: string, marker: string, limit: number): StoredDoc<AlarmDoc>[] {
    const page: StoredDoc<AlarmDoc>[] = [];
    for (const key of this.#ids.all(tenant, planId, marker, limit)) {
      const row = this.#one.get(tenant, key.entity_id, key.id);
      // Both reads run on the one connection of the main thread, with no write in between.
      if (row === undefined) continue;
      page.push({ id: row.id, entityId: row.entity_id, doc: JSON.parse(row.doc) as AlarmDoc, createdMs: row.created_ms, updatedMs: row.updated_ms });
    }
    return page;
  }
}
