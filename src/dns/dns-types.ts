// Owns the shapes of the domain-listing service: domains, records and pages of them.

/** A domain (or subdomain: a domain with a parent). Times are whole seconds, in ms. */
export interface Domain {
  readonly id: number;
  readonly accountId: number;
  readonly parentId: number | undefined;
  readonly name: string;
  readonly emailAddress: string;
  /** Seconds. */
  readonly ttl: number;
  readonly comment: string | undefined;
  readonly createdMs: number;
  readonly updatedMs: number;
}

/** A record of a domain. */
export interface DnsRecord {
  readonly id: number;
  readonly domainId: number;
  readonly type: string;
  readonly name: string;
  readonly data: string;
  /** Seconds. */
  readonly ttl: number;
  readonly priority: number | undefined;
  readonly comment: string | undefined;
  readonly createdMs: number;
  readonly updatedMs: number;
}

/** Which slice of a collection to read: at most `limit` items from position `offset`. */
export interface PageWindow {
  readonly limit: number;
  readonly offset: number;
}

/** A slice of a collection and the size of the whole collection. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly totalEntries: number;
  readonly window: PageWindow;
}

/** A record to import: fields as validated, before ids and times are assigned. */
export type ImportRecord = Pick<DnsRecord, 'type' | 'name' | 'data' | 'ttl' | 'priority' | 'comment'>;

/** A domain to import with its records and subdomains. */
export interface ImportDomain {
  readonly name: string;
  readonly emailAddress: string;
  readonly ttl: number;
  readonly comment: string | undefined;
  readonly records: readonly ImportRecord[];
  readonly subdomains: readonly ImportDomain[];
}
