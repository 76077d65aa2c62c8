// Owns the create/read/update/delete/list steps every document kind shares: ids, times, limits, missing objects.
import type { Clock } from '../core/clock.js';
import type { AlarmRefs, DocScope, DocTable, StoredDoc } from './doc-store.js';
import { newId, type IdKind } from './ids.js';
import { limitReached, notFound } from './monitoring-errors.js';
import type { MonitoringStore } from './monitoring-store.js';
import { pageOf, type Page, type PageRequest } from './paging.js';

/** What a collection needs: the store and the clock. */
export interface CollectionDeps {
  readonly store: MonitoringStore;
  readonly clock: Clock;
}

/** The description of one document kind. */
export interface KindSpec {
  readonly table: DocTable;
  /** Name in error details, as the reference names kinds ("Entity", "Check"). */
  readonly name: string;
  readonly idKind: IdKind;
  /** Most objects one scope (tenant, or entity for checks and alarms) may hold. */
  readonly scopeMax: number;
}

/** Shared document steps of one kind; the kind's service adds its rules around them. */
export class DocCollection<D> {
  constructor(
    private readonly deps: CollectionDeps,
    private readonly kind: KindSpec,
  ) {}

  /** Inserts a new object with a fresh id; refuses when the scope is full. Returns the id. */
  create(scope: DocScope, doc: D, refs?: AlarmRefs): string {
    const { docs } = this.deps.store;
    if (docs.count(this.kind.table, scope) >= this.kind.scopeMax) throw limitReached(this.kind.name, this.kind.scopeMax);
    const id = newId(this.kind.idKind);
    docs.insert(this.kind.table, scope, id, doc, this.deps.clock.now(), refs);
    return id;
  }

  /** The object, or undefined. */
  find(scope: DocScope, id: string): StoredDoc<D> | undefined {
    return this.deps.store.docs.get<D>(this.kind.table, scope, id);
  }

  /** The object, or MONITORING_OBJECT_NOT_FOUND naming it. */
  get(scope: DocScope, id: string): StoredDoc<D> {
    const found = this.find(scope, id);
    if (found === undefined) throw notFound(this.kind.name, id);
    return found;
  }

  /** Replaces the object's fields (it must exist). */
  replace(scope: DocScope, id: string, doc: D, refs?: AlarmRefs): void {
    if (!this.deps.store.docs.update(this.kind.table, scope, id, doc, this.deps.clock.now(), refs)) throw notFound(this.kind.name, id);
  }

  /** Deletes the object (it must exist). */
  remove(scope: DocScope, id: string): void {
    if (!this.deps.store.docs.delete(this.kind.table, scope, id)) throw notFound(this.kind.name, id);
  }

  /** One page of the scope's objects, by id. */
  list(scope: DocScope, page: PageRequest): Page<StoredDoc<D>> {
    const rows = this.deps.store.docs.list<D>(this.kind.table, scope, page.marker ?? '', page.limit + 1);
    return pageOf(rows, page.limit, (row) => row.id);
  }
}
