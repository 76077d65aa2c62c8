// Owns this process's view of the ClickHouse backend's series: local ids for validation, each series' 64-bit id and shard, and which series rows ClickHouse has acknowledged.
import { StrataError } from '../core/errors.js';
import type { SeriesRow } from '../storage/catalog.js';
import { SeriesRegistry, type SeriesRowStore } from '../storage/series-registry.js';
import { seriesIdBytes, seriesIdOf } from './series-id.js';

/** What the shards need of one series. */
export interface SeriesPlacement {
  readonly seriesId: bigint;
  /** The id as ClickHouse's UInt64 in RowBinary (8 bytes, little-endian). */
  readonly idBytes: Buffer;
  readonly shard: number;
}

/**
 * The engine's SeriesRegistry (so validation is the engine's own, rule for rule) over a row store
 * that keeps nothing: persist() hands the new rows and unit changes to the write that caused them,
 * which sends them to the series' shard before the points. Series ids are hashes of tenant and
 * metric, so every process agrees on them without asking ClickHouse; a row is re-sent until one
 * write that carried it was acknowledged.
 */
export class SeriesCache {
  readonly registry: SeriesRegistry;
  private readonly placements: (SeriesPlacement | undefined)[] = [];
  /** 1 once a series row of this local id is acknowledged by its shard. */
  private confirmed = new Uint8Array(1024);
  private readonly byId = new Map<bigint, number>();
  /** Local ids below this are placed (their series id, shard and collision check done). */
  private placed = 0;
  private saved: SeriesRow[] = [];
  private readonly shardOf: (seriesId: bigint) => number;

  private readonly idOf: (tenant: string, metric: string) => bigint;

  /** `idOf` is seriesIdOf; tests give one that collides. */
  constructor(shardOf: (seriesId: bigint) => number, idOf: (tenant: string, metric: string) => bigint = seriesIdOf) {
    this.shardOf = shardOf;
    this.idOf = idOf;
    const rows: SeriesRowStore = {
      loadSeries: () => [],
      saveSeries: (added, unitChanges) => {
        this.saved.push(...added, ...unitChanges);
      },
    };
    this.registry = new SeriesRegistry(rows);
  }

  /**
   * Persists what validation registered and returns the rows the write must send first: its new
   * series, its unit changes, and every series of the batch whose row no write has had
   * acknowledged yet. Throws STORE_SERIES_ID_COLLISION (forgetting the batch's registrations) when
   * a new name hashes to the id of another series this process knows.
   */
  rowsFor(seriesIds: Uint32Array, length: number): SeriesRow[] {
    this.placeNew();
    this.registry.persist();
    const send = new Map<number, SeriesRow>();
    for (const row of this.saved) {
      send.set(row.id, row);
      // A unit change is unconfirmed until a write carrying it is acknowledged: if this one fails,
      // the next write of the series sends the row again.
      if (row.id < this.confirmed.length) this.confirmed[row.id] = 0;
    }
    this.saved = [];
    for (let i = 0; i < length; i++) {
      const id = seriesIds[i] as number;
      if (this.isConfirmed(id) || send.has(id)) continue;
      const row = this.registry.row(id);
      if (row !== undefined) send.set(id, row);
    }
    return [...send.values()];
  }

  /**
   * Marks these series rows as acknowledged: later writes of the same series send no row. A row
   * the registry has replaced meanwhile (a unit changed by a write still in flight) confirms
   * nothing: that newer row is confirmed only by a write that carried it.
   */
  confirm(rows: readonly SeriesRow[]): void {
    for (const row of rows) {
      if (this.registry.row(row.id) !== row) continue;
      if (row.id >= this.confirmed.length) {
        const grown = new Uint8Array(Math.max(row.id + 1, this.confirmed.length * 2));
        grown.set(this.confirmed);
        this.confirmed = grown;
      }
      this.confirmed[row.id] = 1;
    }
  }

  /** Where a series of a local id lives (every id a write carries was placed by its rowsFor). */
  placement(localId: number): SeriesPlacement {
    const p = this.placements[localId];
    if (p === undefined) throw new StrataError('STORE_BACKEND_FAILED', `series ${localId} was not placed before its points were encoded`, { localId });
    return p;
  }


  private isConfirmed(id: number): boolean {
    return id < this.confirmed.length && this.confirmed[id] === 1;
  }

  /**
   * Places the series registered since the last write (ids from `placed` on), after checking
   * that none collides with a known series; on a collision nothing of the batch stays.
   */
  private placeNew(): void {
    const fresh: [SeriesRow, bigint][] = [];
    const freshIds = new Map<bigint, number>();
    for (let id = this.placed; ; id++) {
      const row = this.registry.row(id);
      if (row === undefined) break;
      const seriesId = this.idOf(row.tenant, row.metric);
      const other = this.byId.get(seriesId) ?? freshIds.get(seriesId);
      if (other !== undefined) {
        const known = this.registry.row(other);
        this.registry.discardPending();
        throw new StrataError('STORE_SERIES_ID_COLLISION', `series ${row.tenant}/${row.metric} hashes to the id of ${known?.tenant}/${known?.metric}; it is refused rather than merged`, {
          tenant: row.tenant,
          metric: row.metric,
          seriesId: seriesId.toString(),
        });
      }
      fresh.push([row, seriesId]);
      freshIds.set(seriesId, row.id);
    }
    for (const [row, seriesId] of fresh) {
      this.byId.set(seriesId, row.id);
      this.placements[row.id] = { seriesId, idBytes: seriesIdBytes(seriesId), shard: this.shardOf(seriesId) };
    }
    this.placed += fresh.length;
  }
}
