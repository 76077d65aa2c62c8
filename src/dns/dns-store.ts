// Owns dns.sqlite: the only SQL of the domain-listing service (accounts, domains, records).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { StrataError } from '../core/errors.js';
import { openDatabase, PRIVATE_DIR_MODE } from '../storage/open-database.js';
import type { DnsRecord, Domain, ImportDomain, Page, PageWindow } from './dns-types.js';

/** Name of the DNS file inside the data directory. */
export const DNS_FILE_NAME = 'dns.sqlite';

interface DomainRow {
  id: number;
  account_id: number;
  parent_id: number | null;
  name: string;
  email: string;
  ttl: number;
  comment: string | null;
  created_ms: number;
  updated_ms: number;
}

interface RecordRow {
  id: number;
  domain_id: number;
  type: string;
  name: string;
  data: string;
  ttl: number;
  priority: number | null;
  comment: string | null;
  created_ms: number;
  updated_ms: number;
}

function toDomain(row: DomainRow): Domain {
  return {
    id: row.id,
    accountId: row.account_id,
    parentId: row.parent_id ?? undefined,
    name: row.name,
    emailAddress: row.email,
    ttl: row.ttl,
    comment: row.comment ?? undefined,
    createdMs: row.created_ms,
    updatedMs: row.updated_ms,
  };
}

function toRecord(row: RecordRow): DnsRecord {
  return {
    id: row.id,
    domainId: row.domain_id,
    type: row.type,
    name: row.name,
    data: row.data,
    ttl: row.ttl,
    priority: row.priority ?? undefined,
    comment: row.comment ?? undefined,
    createdMs: row.created_ms,
    updatedMs: row.updated_ms,
  };
}

const DOMAIN_COLUMNS = 'd.id, a.account_id, d.parent_id, d.name, d.email, d.ttl, d.comment, d.created_ms, d.updated_ms';
const DOMAIN_FROM = 'FROM dns_domain d JOIN dns_account a ON a.tenant = d.tenant';

/** What an import created. */
export interface ImportCounts {
  readonly domains: number;
  readonly records: number;
}

/** The DNS file: every tenant's domains and records, behind prepared statements. */
export class DnsStore {
  private readonly db: Database.Database;
  private readonly statements;

  /** Opens `dir/dns.sqlite` (created when missing), or a private in-memory database when `dir` is undefined. */
  constructor(dir: string | undefined) {
    if (dir !== undefined) mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    // WAL (openDatabase) lets the server read while `strata dns import` writes from another process.
    this.db = openDatabase(dir === undefined ? ':memory:' : join(dir, DNS_FILE_NAME), { file: 'dns', durability: 'normal', foreignKeys: true });
    this.statements = {
      account: this.db.prepare<[string], { account_id: number }>('SELECT account_id FROM dns_account WHERE tenant = ?'),
      insertAccount: this.db.prepare('INSERT INTO dns_account (tenant) VALUES (?)'),
      insertDomain: this.db.prepare(
        'INSERT INTO dns_domain (tenant, parent_id, name, email, ttl, comment, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      insertRecord: this.db.prepare(
        'INSERT INTO dns_record (domain_id, type, name, data, ttl, priority, comment, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      nameTaken: this.db.prepare<[string, string], { id: number }>('SELECT id FROM dns_domain WHERE tenant = ? AND name = ?'),
      domain: this.db.prepare<[string, number], DomainRow>(`SELECT ${DOMAIN_COLUMNS} ${DOMAIN_FROM} WHERE d.tenant = ? AND d.id = ?`),
      domains: this.db.prepare<[string, number, number], DomainRow>(`SELECT ${DOMAIN_COLUMNS} ${DOMAIN_FROM} WHERE d.tenant = ? ORDER BY d.id LIMIT ? OFFSET ?`),
      countDomains: this.db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM dns_domain WHERE tenant = ?'),
      domainsNamed: this.db.prepare<[string, string, number, number], DomainRow>(
        `SELECT ${DOMAIN_COLUMNS} ${DOMAIN_FROM} WHERE d.tenant = ? AND d.name = ? ORDER BY d.id LIMIT ? OFFSET ?`,
      ),
      countNamed: this.db.prepare<[string, string], { n: number }>('SELECT count(*) AS n FROM dns_domain WHERE tenant = ? AND name = ?'),
      subdomains: this.db.prepare<[string, number, number, number], DomainRow>(
        `SELECT ${DOMAIN_COLUMNS} ${DOMAIN_FROM} WHERE d.tenant = ? AND d.parent_id = ? ORDER BY d.id LIMIT ? OFFSET ?`,
      ),
      countSubdomains: this.db.prepare<[string, number], { n: number }>('SELECT count(*) AS n FROM dns_domain WHERE tenant = ? AND parent_id = ?'),
      records: this.db.prepare<[number, number, number], RecordRow>('SELECT * FROM dns_record WHERE domain_id = ? ORDER BY id LIMIT ? OFFSET ?'),
      countRecords: this.db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM dns_record WHERE domain_id = ?'),
    };
  }

  /** One domain of a tenant; another tenant's id is simply not found. */
  domain(tenant: string, id: number): Domain | undefined {
    const row = this.statements.domain.get(tenant, id);
    return row ? toDomain(row) : undefined;
  }

  /** A page of a tenant's domains (subdomains included), by id; only those named `name` when given. */
  domains(tenant: string, name: string | undefined, window: PageWindow): Page<Domain> {
    const s = this.statements;
    const rows = name === undefined ? s.domains.all(tenant, window.limit, window.offset) : s.domainsNamed.all(tenant, name, window.limit, window.offset);
    const total = name === undefined ? s.countDomains.get(tenant) : s.countNamed.get(tenant, name);
    return { items: rows.map(toDomain), totalEntries: total?.n ?? 0, window };
  }

  /** A page of a domain's direct subdomains, by id. */
  subdomains(tenant: string, parentId: number, window: PageWindow): Page<Domain> {
    const rows = this.statements.subdomains.all(tenant, parentId, window.limit, window.offset);
    return { items: rows.map(toDomain), totalEntries: this.statements.countSubdomains.get(tenant, parentId)?.n ?? 0, window };
  }

  /** A page of a domain's records, by id (callers check the domain belongs to the tenant). */
  records(domainId: number, window: PageWindow): Page<DnsRecord> {
    const rows = this.statements.records.all(domainId, window.limit, window.offset);
    return { items: rows.map(toRecord), totalEntries: this.statements.countRecords.get(domainId)?.n ?? 0, window };
  }

  /**
   * Imports validated domains for a tenant in one transaction: all or nothing. Throws
   * DNS_IMPORT_INVALID (and writes nothing) when a name is taken in the tenant already.
   */
  importDomains(tenant: string, domains: readonly ImportDomain[], nowMs: number): ImportCounts {
    const run = this.db.transaction((): ImportCounts => {
      const taken = allNames(domains).filter((name) => this.statements.nameTaken.get(tenant, name) !== undefined);
      if (taken.length > 0) {
        throw new StrataError('DNS_IMPORT_INVALID', `Domains already exist in tenant ${tenant}: ${taken.slice(0, 5).join(', ')}.`, { messages: taken.map((n) => `Domain ${n} already exists.`) });
      }
      if (this.statements.account.get(tenant) === undefined) this.statements.insertAccount.run(tenant);
      const counts = { domains: 0, records: 0 };
      for (const domain of domains) this.insertTree(tenant, domain, undefined, nowMs, counts);
      return counts;
    });
    return run.immediate();
  }

  private insertTree(tenant: string, domain: ImportDomain, parentId: number | undefined, nowMs: number, counts: { domains: number; records: number }): void {
    const s = this.statements;
    const result = s.insertDomain.run(tenant, parentId ?? null, domain.name, domain.emailAddress, domain.ttl, domain.comment ?? null, nowMs, nowMs);
    const id = Number(result.lastInsertRowid);
    counts.domains++;
    for (const r of domain.records) {
      s.insertRecord.run(id, r.type, r.name, r.data, r.ttl, r.priority ?? null, r.comment ?? null, nowMs, nowMs);
      counts.records++;
    }
    for (const sub of domain.subdomains) this.insertTree(tenant, sub, id, nowMs, counts);
  }

  /** Closes the file. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}

function allNames(domains: readonly ImportDomain[]): string[] {
  return domains.flatMap((d) => [d.name, ...allNames(d.subdomains)]);
}
