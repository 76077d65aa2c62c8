// Owns the domain-listing service: tenant-scoped reads of domains, subdomains and records, and imports.
import type { Clock } from '../core/clock.js';
import { StrataError } from '../core/errors.js';
import { readImport } from './dns-import.js';
import { DnsStore, type ImportCounts } from './dns-store.js';
import type { DnsRecord, Domain, Page, PageWindow } from './dns-types.js';

/** Options of openDns. */
export interface DnsOptions {
  /** Data directory for dns.sqlite; undefined keeps the data in memory (tests, embedded use). */
  readonly dir: string | undefined;
  readonly clock: Clock;
}

/** Whole seconds: both date formats of spec 2.8 show no sub-second digits (JSON's are always .000). */
const SECOND_MS = 1000;

/** The domain-listing service of all tenants; every call names its tenant. */
export class Dns {
  private readonly store: DnsStore;
  private readonly clock: Clock;

  constructor(options: DnsOptions) {
    this.store = new DnsStore(options.dir);
    this.clock = options.clock;
  }

  /** A page of the tenant's domains; `name` filters to that exact name (case-insensitive, as DNS names are). */
  domains(tenant: string, name: string | undefined, window: PageWindow): Page<Domain> {
    return this.store.domains(tenant, name?.toLowerCase(), window);
  }

  /** One domain of the tenant; throws DNS_DOMAIN_NOT_FOUND (also for another tenant's id). */
  domain(tenant: string, id: number): Domain {
    const domain = Number.isSafeInteger(id) ? this.store.domain(tenant, id) : undefined;
    if (domain === undefined) throw new StrataError('DNS_DOMAIN_NOT_FOUND', `No domain ${id} in this account.`, { id });
    return domain;
  }

  /** A page of a domain's direct subdomains; throws DNS_DOMAIN_NOT_FOUND. */
  subdomains(tenant: string, id: number, window: PageWindow): Page<Domain> {
    this.domain(tenant, id);
    return this.store.subdomains(tenant, id, window);
  }

  /** A page of a domain's records; throws DNS_DOMAIN_NOT_FOUND. */
  records(tenant: string, id: number, window: PageWindow): Page<DnsRecord> {
    this.domain(tenant, id);
    return this.store.records(id, window);
  }

  /** Validates an import document and imports it all, or throws DNS_IMPORT_INVALID and imports nothing. */
  importDocument(tenant: string, document: unknown): ImportCounts {
    const domains = readImport(document);
    const nowMs = Math.floor(this.clock.now() / SECOND_MS) * SECOND_MS;
    return this.store.importDomains(tenant, domains, nowMs);
  }

  /** Closes the DNS file. */
  close(): void {
    this.store.close();
  }
}

/** Opens the domain-listing service over `dir/dns.sqlite` (or memory). */
export function openDns(options: DnsOptions): Dns {
  return new Dns(options);
}
