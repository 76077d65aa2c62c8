// Owns feeds.sqlite: the only SQL of the event-feed service (appending entries, reading them in seq order).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase, PRIVATE_DIR_MODE } from '../storage/open-database.js';
import type { EntryContent, FeedEntry } from './feed-entry.js';

/** Name of the feeds file inside the data directory. */
export const FEEDS_FILE_NAME = 'feeds.sqlite';

/** An entry about to be stored: everything but its seq. */
export type EntryRow = Omit<FeedEntry, 'seq'>;

interface Row {
  seq: number;
  id: string;
  tenant: string;
  feed: string;
  title: string;
  categories: string;
  content_type: string | null;
  content: string | null;
  updated_ms: number;
}

function toEntry(row: Row): FeedEntry {
  const content: EntryContent | undefined =
    row.content_type !== null && row.content !== null ? { type: row.content_type, text: row.content } : undefined;
  return {
    seq: row.seq,
    id: row.id,
    tenant: row.tenant,
    feed: row.feed,
    title: row.title,
    categories: JSON.parse(row.categories) as string[],
    content,
    updatedMs: row.updated_ms,
  };
}

const COLUMNS = 'seq, id, tenant, feed, title, categories, content_type, content, updated_ms';

/** The feeds file: entries per tenant and feed, behind prepared statements. */
export class FeedsStore {
  private readonly db: Database.Database;
  private readonly statements;

  /** Opens `dir/feeds.sqlite` (created when missing), or a private in-memory database when `dir` is undefined. */
  constructor(dir: string | undefined) {
    if (dir !== undefined) mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    // NORMAL sync matches identity.sqlite: an entry lost in a power cut is a notification lost, not metric data.
    this.db = openDatabase(dir === undefined ? ':memory:' : join(dir, FEEDS_FILE_NAME), { file: 'feeds', durability: 'normal' });
    const where = 'WHERE tenant = ? AND feed = ?';
    this.statements = {
      insert: this.db.prepare(
        'INSERT INTO feed_entry (id, tenant, feed, title, categories, content_type, content, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      byId: this.db.prepare<[string, string, string], Row>(`SELECT ${COLUMNS} FROM feed_entry ${where} AND id = ?`),
      newest: this.db.prepare<[string, string, number], Row>(`SELECT ${COLUMNS} FROM feed_entry ${where} ORDER BY seq DESC LIMIT ?`),
      oldest: this.db.prepare<[string, string, number], Row>(`SELECT ${COLUMNS} FROM feed_entry ${where} ORDER BY seq ASC LIMIT ?`),
      olderThan: this.db.prepare<[string, string, number, number], Row>(
        `SELECT ${COLUMNS} FROM feed_entry ${where} AND seq < ? ORDER BY seq DESC LIMIT ?`,
      ),
      newerThan: this.db.prepare<[string, string, number, number], Row>(
        `SELECT ${COLUMNS} FROM feed_entry ${where} AND seq > ? ORDER BY seq ASC LIMIT ?`,
      ),
      hasOlder: this.db.prepare<[string, string, number], { n: number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM feed_entry ${where} AND seq < ? LIMIT 1)`),
    };
  }

  /** Appends an entry; returns it with its seq. */
  append(entry: EntryRow): FeedEntry {
    const result = this.statements.insert.run(
      entry.id,
      entry.tenant,
      entry.feed,
      entry.title,
      JSON.stringify(entry.categories),
      entry.content?.type ?? null,
      entry.content?.text ?? null,
      entry.updatedMs,
    );
    return { ...entry, seq: Number(result.lastInsertRowid) };
  }

  /** The entry with this id in this tenant's feed (another tenant's id is simply not found). */
  entry(tenant: string, feed: string, id: string): FeedEntry | undefined {
    const row = this.statements.byId.get(tenant, feed, id);
    return row ? toEntry(row) : undefined;
  }

  /** Up to `limit` newest entries, newest first. */
  newest(tenant: string, feed: string, limit: number): FeedEntry[] {
    return this.statements.newest.all(tenant, feed, limit).map(toEntry);
  }

  /** Up to `limit` oldest entries, newest first. */
  oldest(tenant: string, feed: string, limit: number): FeedEntry[] {
    return this.statements.oldest.all(tenant, feed, limit).map(toEntry).reverse();
  }

  /** Up to `limit` entries older than `seq`, the nearest first (so newest first). */
  olderThan(tenant: string, feed: string, seq: number, limit: number): FeedEntry[] {
    return this.statements.olderThan.all(tenant, feed, seq, limit).map(toEntry);
  }

  /** Up to `limit` entries newer than `seq` and nearest to it, newest first. */
  newerThan(tenant: string, feed: string, seq: number, limit: number): FeedEntry[] {
    return this.statements.newerThan.all(tenant, feed, seq, limit).map(toEntry).reverse();
  }

  /**
   * True when the feed has an entry older than `seq`. Page reads do not need it (the service reads
   * one row past the page instead); it answers the question on its own, for callers and tests.
   */
  hasOlder(tenant: string, feed: string, seq: number): boolean {
    return (this.statements.hasOlder.get(tenant, feed, seq)?.n ?? 0) > 0;
  }

  /** Closes the file. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}
