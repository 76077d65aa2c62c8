// Owns monitoring.sqlite: opening it with the engine's pragmas and schema, and its table stores.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase, PRIVATE_DIR_MODE } from '../storage/open-database.js';
import { AgentStore } from './agent-store.js';
import { ChangelogStore } from './changelog-store.js';
import { DocStore } from './doc-store.js';

/** Name of the monitoring file inside the data directory. */
export const MONITORING_FILE_NAME = 'monitoring.sqlite';

/** The monitoring file and the stores over its tables; one connection, used from the main thread. */
export class MonitoringStore {
  /** The connection; the runtime's table stores (alarm-state, outbox, account) prepare their statements on it. */
  readonly db: Database.Database;
  /** Entities, checks, alarms, notifications and plans. */
  readonly docs: DocStore;
  /** Agents, connections and agent tokens. */
  readonly agents: AgentStore;
  /** Alarm changelogs and declared metric types. */
  readonly changelogs: ChangelogStore;

  /** Opens (creating) `<dir>/monitoring.sqlite`, or an in-memory database when `dir` is undefined. */
  constructor(dir: string | undefined) {
    if (dir !== undefined) mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    // 'normal' durability: a crash may lose the last committed change, like the identity file.
    this.db = openDatabase(dir === undefined ? ':memory:' : join(dir, MONITORING_FILE_NAME), { file: 'monitoring', durability: 'normal' });
    // Check and notification secrets are stored encrypted; secure_delete zeroes the bytes a rewrite
    // frees, so that encrypting the plaintext an older version stored (encryptStoredSecrets) leaves
    // no copy of it in free space within or between pages. Monitoring writes are few: no cost shows.
    this.db.pragma('secure_delete = ON');
    this.docs = new DocStore(this.db);
    this.agents = new AgentStore(this.db);
    this.changelogs = new ChangelogStore(this.db);
  }

  /** Runs `work` in one transaction: a check-then-write (limits, references) is atomic. */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  /**
   * Copies the write-ahead log into the main file and empties it, so pages a rewrite replaced are
   * overwritten now rather than at SQLite's next automatic checkpoint.
   */
  checkpoint(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** Closes the file. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}
