// Owns the SQL of mon_account: one row of settings per tenant, the webhook token stored encrypted.
import type Database from 'better-sqlite3';
import type { Metadata } from '../schemas/field-schemas.js';
import type { AccountFields } from './account-rules.js';

/** An account row as stored: the webhook token still encrypted (an `enc:v1:` value). */
export interface StoredAccount extends AccountFields {
  readonly sealedWebhookToken: string;
  readonly createdMs: number;
  readonly updatedMs: number;
}

interface AccountRow {
  technical_contacts: string;
  webhook_token: string;
  metadata: string | null;
  created_ms: number;
  updated_ms: number;
}

/** Prepared statements over mon_account; every one is keyed by the tenant. */
export class AccountStore {
  private readonly select: Database.Statement;
  private readonly insert: Database.Statement;
  private readonly updateFields: Database.Statement;
  private readonly updateToken: Database.Statement;

  constructor(db: Database.Database) {
    this.select = db.prepare('SELECT technical_contacts, webhook_token, metadata, created_ms, updated_ms FROM mon_account WHERE tenant = ?');
    this.insert = db.prepare(
      'INSERT OR IGNORE INTO mon_account (tenant, technical_contacts, webhook_token, metadata, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.updateFields = db.prepare('UPDATE mon_account SET technical_contacts = ?, metadata = ?, updated_ms = ? WHERE tenant = ?');
    this.updateToken = db.prepare('UPDATE mon_account SET webhook_token = ?, updated_ms = ? WHERE tenant = ?');
  }

  /** The tenant's account, if it has one yet. */
  get(tenant: string): StoredAccount | undefined {
    const row = this.select.get(tenant) as AccountRow | undefined;
    if (row === undefined) return undefined;
    return {
      technicalContacts: JSON.parse(row.technical_contacts) as string[],
      metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Metadata),
      sealedWebhookToken: row.webhook_token,
      createdMs: row.created_ms,
      updatedMs: row.updated_ms,
    };
  }

  /** Creates the tenant's account unless it has one; false when it had. */
  create(tenant: string, fields: AccountFields, sealedWebhookToken: string, nowMs: number): boolean {
    const metadata = fields.metadata === null ? null : JSON.stringify(fields.metadata);
    return this.insert.run(tenant, JSON.stringify(fields.technicalContacts), sealedWebhookToken, metadata, nowMs, nowMs).changes === 1;
  }

  /** Replaces the contacts and metadata of an existing account. */
  setFields(tenant: string, fields: AccountFields, nowMs: number): void {
    this.updateFields.run(JSON.stringify(fields.technicalContacts), fields.metadata === null ? null : JSON.stringify(fields.metadata), nowMs, tenant);
  }

  /** Replaces the (encrypted) webhook token of an existing account. */
  setWebhookToken(tenant: string, sealedWebhookToken: string, nowMs: number): void {
    this.updateToken.run(sealedWebhookToken, nowMs, tenant);
  }
}
