// Owns the in-memory index of series (tenant + metric -> id, unit) mirrored from catalog.sqlite.
import type { Catalog, SeriesRow } from './catalog.js';
import { SortedNames, type SortedNameView } from './sorted-names.js';

const EMPTY_METRICS: ReadonlyMap<string, number> = new Map();
/** Handed out for a tenant without series; only ever read. */
const EMPTY_NAMES: SortedNameView = new SortedNames();

/** Where a registry loads its series from and saves new ones and unit changes to (the catalog, or the ClickHouse backend's batch). */
export type SeriesRowStore = Pick<Catalog, 'loadSeries' | 'saveSeries'>;

/** Series lookups by tenant and metric, and by id; new series are persisted before use. */
export class SeriesRegistry {
  private readonly byTenant = new Map<string, Map<string, number>>();
  /** Each tenant's metric names in order, so listing them never sorts per call. */
  private readonly sortedByTenant = new Map<string, SortedNames>();
  private readonly rows: (SeriesRow | undefined)[] = [];
  private readonly catalog: SeriesRowStore;
  private pendingAdded: SeriesRow[] = [];
  private pendingUnits: SeriesRow[] = [];
  /** The rows pendingUnits replaced, in the same order (discardPending puts them back). */
  private replacedRows: SeriesRow[] = [];

  constructor(catalog: SeriesRowStore) {
    this.catalog = catalog;
    for (const row of catalog.loadSeries()) this.index(row);
    // One sort per tenant: inserting a loaded million names one at a time would only shuffle blocks.
    for (const [tenant, metrics] of this.byTenant) this.sortedByTenant.set(tenant, SortedNames.of(metrics.keys()));
  }

  private index(row: SeriesRow): void {
    let metrics = this.byTenant.get(row.tenant);
    if (metrics === undefined) {
      metrics = new Map();
      this.byTenant.set(row.tenant, metrics);
    }
    metrics.set(row.metric, row.id);
    this.rows[row.id] = row;
  }

  /** Id of a series, or undefined when it was never written. */
  lookup(tenant: string, metric: string): number | undefined {
    return this.byTenant.get(tenant)?.get(metric);
  }

  /** The metrics of a tenant (name -> id); empty when none. */
  metricsOf(tenant: string): ReadonlyMap<string, number> {
    return this.byTenant.get(tenant) ?? EMPTY_METRICS;
  }

  /** The metric names of a tenant in UTF-16 code unit order; empty when none. */
  namesOf(tenant: string): SortedNameView {
    return this.sortedByTenant.get(tenant) ?? EMPTY_NAMES;
  }

  /** The unit of a tenant's metric: null when it has none or the metric is unknown. */
  unitOf(tenant: string, metric: string): string | null {
    const id = this.lookup(tenant, metric);
    return id === undefined ? null : (this.rows[id]?.unit ?? null);
  }

  /**
   * The live map of a tenant's metrics, created when missing, so a caller that validates many
   * points of one tenant resolves each with a single lookup; it stays current as series register.
   */
  liveMetricsOf(tenant: string): ReadonlyMap<string, number> {
    let metrics = this.byTenant.get(tenant);
    if (metrics === undefined) {
      metrics = new Map();
      this.byTenant.set(tenant, metrics);
    }
    return metrics;
  }

  /** The series row of an id. */
  row(id: number): SeriesRow | undefined {
    return this.rows[id];
  }

  /** Id of a series, registering it (pending until persist()) when new. */
  resolve(tenant: string, metric: string, unit: string | undefined): number {
    const id = this.lookup(tenant, metric);
    if (id !== undefined) {
      if (unit !== undefined && this.rows[id]?.unit !== unit) this.setUnit(id, unit);
      return id;
    }
    const row: SeriesRow = { id: this.rows.length, tenant, metric, unit: unit ?? null };
    this.index(row);
    this.sortedNamesFor(tenant).add(metric);
    this.pendingAdded.push(row);
    return row.id;
  }

  private sortedNamesFor(tenant: string): SortedNames {
    let names = this.sortedByTenant.get(tenant);
    if (names === undefined) {
      names = new SortedNames();
      this.sortedByTenant.set(tenant, names);
    }
    return names;
  }

  private setUnit(id: number, unit: string): void {
    const old = this.rows[id] as SeriesRow;
    const row: SeriesRow = { ...old, unit };
    this.rows[id] = row;
    this.pendingUnits.push(row);
    this.replacedRows.push(old);
  }

  /** Forgets registrations not yet persisted (their batch was rejected). */
  discardPending(): void {
    for (const row of this.pendingAdded) {
      this.byTenant.get(row.tenant)?.delete(row.metric);
      this.sortedByTenant.get(row.tenant)?.delete(row.metric);
      this.rows[row.id] = undefined;
    }
    this.rows.length = this.rows.length - this.pendingAdded.length;
    // Newest change first, so a unit changed twice in one batch ends as it was before the batch.
    for (let k = this.replacedRows.length - 1; k >= 0; k--) {
      const old = this.replacedRows[k] as SeriesRow;
      if (this.rows[old.id] !== undefined) this.rows[old.id] = old;
    }
    this.pendingAdded = [];
    this.pendingUnits = [];
    this.replacedRows = [];
  }

  /** Writes pending registrations to the catalog; must run before a WAL record refers to them. */
  persist(): void {
    if (this.pendingAdded.length === 0 && this.pendingUnits.length === 0) return;
    this.catalog.saveSeries(this.pendingAdded, this.pendingUnits);
    this.replacedRows = [];
    this.pendingAdded = [];
    this.pendingUnits = [];
  }
}
