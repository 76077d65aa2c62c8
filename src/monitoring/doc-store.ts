// Owns the SQL of the document tables (entities, checks, alarms, notifications, plans): one row per object.
import type Database from 'better-sqlite3';

/** A document table; checks and alarms are scoped by entity as well as tenant. */
export type DocTable = 'mon_entity' | 'mon_check' | 'mon_alarm' | 'mon_notification' | 'mon_plan';

/** Where an object lives: its tenant, and its entity for checks and alarms. */
export interface DocScope {
  readonly tenant: string;
  readonly entityId?: string;
}

/** Columns of alarms besides the document, kept apart so references are index lookups. */
export interface AlarmRefs {
  readonly checkId: string;
  readonly planId: string;
}

/** A stored object: id, its fields, and when it was created and last changed (ms). */
export interface StoredDoc<D> {
  readonly id: string;
  readonly entityId: string | null;
  readonly doc: D;
  readonly createdMs: number;
  readonly updatedMs: number;
}

interface DocRow {
  tenant?: string;
  id: string;
  entity_id: string | null;
  doc: string;
  created_ms: number;
  updated_ms: number;
}

const SCOPED: ReadonlySet<DocTable> = new Set(['mon_check', 'mon_alarm']);

/**
 * The entities of a tenant bound to an agent, by id. The expression is spelled as the
 * mon_entity_agent index spells it (schema.sql), so SQLite answers from one range of that index
 * without a sort; exported so a test can ask SQLite for the plan of exactly this text.
 */
export const ENTITIES_OF_AGENT_SQL = "SELECT id FROM mon_entity WHERE tenant = ? AND json_extract(doc, '$.agent_id') = ? ORDER BY id LIMIT ?";
/** The agent checks (type agent.*) of one entity, by id: a range of mon_check's key. GLOB is case-sensitive, as types are. */
export const AGENT_CHECKS_OF_SQL =
  "SELECT id, entity_id, doc, created_ms, updated_ms FROM mon_check WHERE tenant = ? AND entity_id = ? AND json_extract(doc, '$.type') GLOB 'agent.*' ORDER BY id LIMIT ?";

function toStored<D>(row: DocRow): StoredDoc<D> {
  return { id: row.id, entityId: row.entity_id, doc: JSON.parse(row.doc) as D, createdMs: row.created_ms, updatedMs: row.updated_ms };
}

/** Prepared statements over the document tables; every statement but the migration scan filters by tenant first. */
export class DocStore {
  private readonly cache = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  private statement(sql: string): Database.Statement {
    let prepared = this.cache.get(sql);
    if (prepared === undefined) {
      prepared = this.db.prepare(sql);
      this.cache.set(sql, prepared);
    }
    return prepared;
  }

  /** `WHERE` clause and parameters of a scope; table names come from the DocTable union only. */
  private where(table: DocTable, scope: DocScope): { clause: string; params: string[] } {
    if (SCOPED.has(table)) return { clause: 'tenant = ? AND entity_id = ?', params: [scope.tenant, scope.entityId ?? ''] };
    return { clause: 'tenant = ?', params: [scope.tenant] };
  }

  private columns(table: DocTable): string {
    return SCOPED.has(table) ? 'id, entity_id, doc, created_ms, updated_ms' : 'id, NULL AS entity_id, doc, created_ms, updated_ms';
  }

  /** Inserts a new object. */
  insert(table: DocTable, scope: DocScope, id: string, doc: unknown, nowMs: number, refs?: AlarmRefs): void {
    const json = JSON.stringify(doc);
    if (table === 'mon_alarm') {
      const r = refs as AlarmRefs;
      this.statement('INSERT INTO mon_alarm (tenant, entity_id, id, check_id, plan_id, doc, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
        scope.tenant, scope.entityId ?? '', id, r.checkId, r.planId, json, nowMs, nowMs,
      );
    } else if (SCOPED.has(table)) {
      this.statement(`INSERT INTO ${table} (tenant, entity_id, id, doc, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?)`).run(scope.tenant, scope.entityId ?? '', id, json, nowMs, nowMs);
    } else {
      this.statement(`INSERT INTO ${table} (tenant, id, doc, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?)`).run(scope.tenant, id, json, nowMs, nowMs);
    }
  }

  /** The object with this id in the scope, if any. */
  get<D>(table: DocTable, scope: DocScope, id: string): StoredDoc<D> | undefined {
    const { clause, params } = this.where(table, scope);
    const row = this.statement(`SELECT ${this.columns(table)} FROM ${table} WHERE ${clause} AND id = ?`).get(...params, id) as DocRow | undefined;
    return row === undefined ? undefined : toStored<D>(row);
  }

  /** Replaces an object's fields; false when it does not exist. */
  update(table: DocTable, scope: DocScope, id: string, doc: unknown, nowMs: number, refs?: AlarmRefs): boolean {
    const { clause, params } = this.where(table, scope);
    const json = JSON.stringify(doc);
    if (table === 'mon_alarm') {
      const r = refs as AlarmRefs;
      return this.statement(`UPDATE mon_alarm SET doc = ?, check_id = ?, plan_id = ?, updated_ms = ? WHERE ${clause} AND id = ?`).run(json, r.checkId, r.planId, nowMs, ...params, id).changes === 1;
    }
    return this.statement(`UPDATE ${table} SET doc = ?, updated_ms = ? WHERE ${clause} AND id = ?`).run(json, nowMs, ...params, id).changes === 1;
  }

  /** Deletes an object; false when it did not exist. */
  delete(table: DocTable, scope: DocScope, id: string): boolean {
    const { clause, params } = this.where(table, scope);
    return this.statement(`DELETE FROM ${table} WHERE ${clause} AND id = ?`).run(...params, id).changes === 1;
  }

  /** Up to `limit` objects of the scope with id >= `marker`, by id. */
  list<D>(table: DocTable, scope: DocScope, marker: string, limit: number): StoredDoc<D>[] {
    const { clause, params } = this.where(table, scope);
    const rows = this.statement(`SELECT ${this.columns(table)} FROM ${table} WHERE ${clause} AND id >= ? ORDER BY id LIMIT ?`).all(...params, marker, limit) as DocRow[];
    return rows.map((row) => toStored<D>(row));
  }

  /**
   * Calls `visit` with every object of the table, of every tenant, in no set order. The connection
   * is busy until the scan ends, so `visit` must not write (collect, then write).
   */
  scan<D>(table: DocTable, visit: (scope: DocScope, stored: StoredDoc<D>) => void): void {
    for (const row of this.statement(`SELECT tenant, ${this.columns(table)} FROM ${table}`).iterate() as IterableIterator<DocRow>) {
      const tenant = row.tenant ?? '';
      visit(row.entity_id === null ? { tenant } : { tenant, entityId: row.entity_id }, toStored<D>(row));
    }
  }

  /** Rewrites how an object is stored, keeping updated_ms (its fields mean the same: a migration, not a change); false when it does not exist. */
  rewrite(table: DocTable, scope: DocScope, id: string, doc: unknown): boolean {
    const { clause, params } = this.where(table, scope);
    return this.statement(`UPDATE ${table} SET doc = ? WHERE ${clause} AND id = ?`).run(JSON.stringify(doc), ...params, id).changes === 1;
  }

  /** How many objects the scope holds. */
  count(table: DocTable, scope: DocScope): number {
    const { clause, params } = this.where(table, scope);
    return (this.statement(`SELECT count(*) AS n FROM ${table} WHERE ${clause}`).get(...params) as { n: number }).n;
  }

  /** The alarms of an entity that watch one check, by id. */
  alarmsOfCheck<D>(tenant: string, entityId: string, checkId: string): StoredDoc<D>[] {
    const rows = this.statement(`SELECT ${this.columns('mon_alarm')} FROM mon_alarm WHERE tenant = ? AND entity_id = ? AND check_id = ? ORDER BY id`).all(tenant, entityId, checkId) as DocRow[];
    return rows.map((row) => toStored<D>(row));
  }

  /** Up to `limit` ids of the tenant's entities whose agent_id is `agentId`, by id (through the mon_entity_agent index). */
  entitiesOfAgent(tenant: string, agentId: string, limit: number): string[] {
    const rows = this.statement(ENTITIES_OF_AGENT_SQL).all(tenant, agentId, limit) as { id: string }[];
    return rows.map((row) => row.id);
  }

  /** Up to `limit` agent checks (type agent.*) of one entity of the tenant, by id. */
  agentChecksOf<D>(tenant: string, entityId: string, limit: number): StoredDoc<D>[] {
    const rows = this.statement(AGENT_CHECKS_OF_SQL).all(tenant, entityId, limit) as DocRow[];
    return rows.map((row) => toStored<D>(row));
  }

  /** How many alarms of the tenant name this check or plan. */
  alarmsReferring(tenant: string, column: 'check_id' | 'plan_id', id: string): number {
    return (this.statement(`SELECT count(*) AS n FROM mon_alarm WHERE tenant = ? AND ${column} = ?`).get(tenant, id) as { n: number }).n;
  }

  /** Records which notifications a plan names (replacing what it named before). */
  setPlanMembers(tenant: string, planId: string, notificationIds: readonly string[]): void {
    this.statement('DELETE FROM mon_plan_member WHERE tenant = ? AND plan_id = ?').run(tenant, planId);
    const insert = this.statement('INSERT OR IGNORE INTO mon_plan_member (tenant, notification_id, plan_id) VALUES (?, ?, ?)');
    for (const id of notificationIds) insert.run(tenant, id, planId);
  }

  /** How many plans of the tenant name this notification. */
  plansNaming(tenant: string, notificationId: string): number {
    return (this.statement('SELECT count(*) AS n FROM mon_plan_member WHERE tenant = ? AND notification_id = ?').get(tenant, notificationId) as { n: number }).n;
  }
}
