// Owns maintenance suppressions: their CRUD, which of them cover an object at a time (recurrences included), and their logs.
import type { Clock } from '../../core/clock.js';
import type { AccountLimits } from '../account/account-limits.js';
import type { StoredDoc } from '../doc-store.js';
import { newId, newUuid } from '../ids.js';
import { limitReached, notFound } from '../monitoring-errors.js';
import {
  SUPPRESSION_CACHE_KEYS_MAX,
  SUPPRESSION_CACHE_TENANTS_MAX,
  SUPPRESSION_LOG_WINDOW_MS_DEFAULT,
  SUPPRESSION_TARGET_ENTRIES_MAX,
} from '../monitoring-limits.js';
import type { MonitoringStore } from '../monitoring-store.js';
import { pageOf, type Page, type PageRequest } from '../paging.js';
import type { SuppressionCreate, SuppressionUpdate } from '../schemas/suppression-schema.js';
import { resolveWindow, seriesPage, type TimeSeriesRequest, type TimeWindow } from '../time-series.js';
import { SuppressionCache, type SuppressionTarget, type TenantSuppressions } from './suppression-cache.js';
import { createSuppressionDoc, targetEntriesOf, updateSuppressionDoc, type SuppressionDoc } from './suppression-rules.js';
import { SuppressionStore, type SuppressionLogRow } from './suppression-store.js';

export type { SuppressionTarget } from './suppression-cache.js';
export type { SuppressionDoc } from './suppression-rules.js';
export type { SuppressionLogRow } from './suppression-store.js';

/** The suppression ids a record carries (spec 2.7): active now, and scheduled to cover a later time. */
export interface SuppressionIds {
  readonly active: readonly string[];
  readonly scheduled: readonly string[];
}

/** The ids each record of an alarm notification carries: its entity's, its check's and its alarm's. */
export interface EventSuppressionIds {
  readonly entity: SuppressionIds;
  readonly check: SuppressionIds;
  readonly alarm: SuppressionIds;
}

/** What the service is built from. */
export interface SuppressionServiceDeps {
  readonly store: MonitoringStore;
  readonly clock: Clock;
  readonly limits: AccountLimits;
}

/** The name of the kind in errors (Object "Suppression" with key ... does not exist). */
const KIND = 'Suppression';
/** The name of the per-tenant bound on target items in MONITORING_LIMIT_REACHED (details.type). */
const TARGET_KIND = 'SuppressionTarget';

/**
 * Suppressions of every tenant. Reads of who is covered go through an in-memory index of each
 * recently used tenant's suppressions (SuppressionCache), updated in place by every committed
 * change, so an alarm change or a page of records costs no query once the tenant is loaded. The
 * index's size is bounded per tenant (SUPPRESSION_TARGET_ENTRIES_MAX target items, checked in the
 * create and update transactions) and over the cache (SUPPRESSION_CACHE_KEYS_MAX).
 */
export class SuppressionService {
  private readonly rows: SuppressionStore;
  private readonly cache: SuppressionCache;

  constructor(private readonly deps: SuppressionServiceDeps) {
    this.rows = new SuppressionStore(deps.store.db);
    this.cache = new SuppressionCache((tenant) => this.rows.all(tenant), SUPPRESSION_CACHE_TENANTS_MAX, SUPPRESSION_CACHE_KEYS_MAX);
  }

  /**
   * Runs `work` in one transaction, then applies what it committed to the tenant's index (a
   * transaction that threw changed nothing, so the index stays right).
   */
  private change<T>(tenant: string, work: () => T, apply: (index: TenantSuppressions, result: T) => void): T {
    const result = this.deps.store.transaction(work);
    this.cache.update(tenant, (index) => apply(index, result));
    return result;
  }

  /**
   * MONITORING_LIMIT_REACHED (type SuppressionTarget) when `added` more target items would take the
   * tenant's stored suppressions past SUPPRESSION_TARGET_ENTRIES_MAX. The running total is the
   * tenant's index (loaded from the table if absent, then kept in step with every change); a change
   * that adds none is never refused. Call it before the transaction writes to mon_suppression, so a
   * load it causes reads only committed rows.
   */
  private ensureTargetRoom(tenant: string, added: number): void {
    if (added <= 0) return;
    if (this.cache.of(tenant).entries + added > SUPPRESSION_TARGET_ENTRIES_MAX) throw limitReached(TARGET_KIND, SUPPRESSION_TARGET_ENTRIES_MAX);
  }

  /**
   * Creates a suppression from a body its schema admitted; returns its id. MONITORING_LIMIT_REACHED
   * past the account limit (suppressions not ended) or past the tenant's target items.
   */
  create(tenant: string, body: SuppressionCreate): string {
    const nowMs = this.deps.clock.now();
    const doc = createSuppressionDoc(body, nowMs);
    return this.change(
      tenant,
      () => {
        this.deps.limits.ensureRoom(tenant, 'suppressions');
        this.ensureTargetRoom(tenant, targetEntriesOf(doc));
        const id = newId('suppression');
        this.rows.insert(tenant, id, doc, nowMs);
        return id;
      },
      (index, id) => index.put(id, doc),
    );
  }

  /** One suppression, or MONITORING_OBJECT_NOT_FOUND. */
  suppression(tenant: string, id: string): StoredDoc<SuppressionDoc> {
    const found = this.rows.get(tenant, id);
    if (found === undefined) throw notFound(KIND, id);
    return found;
  }

  /** A page of the tenant's suppressions, by id. */
  list(tenant: string, page: PageRequest): Page<StoredDoc<SuppressionDoc>> {
    return pageOf(this.rows.page(tenant, page.marker ?? '', page.limit + 1), page.limit, (row) => row.id);
  }

  /**
   * Updates a suppression (suppression-rules.ts: once started only end_time may change). An
   * update that makes an ended suppression end in the future again takes a place of the account
   * limit, and one that adds target items must fit the tenant's bound (MONITORING_LIMIT_REACHED).
   */
  update(tenant: string, id: string, body: SuppressionUpdate): void {
    const nowMs = this.deps.clock.now();
    this.change(
      tenant,
      () => {
        const stored = this.suppression(tenant, id).doc;
        const doc = updateSuppressionDoc(stored, body, nowMs);
        if (stored.end_time <= nowMs && doc.end_time > nowMs) this.deps.limits.ensureRoom(tenant, 'suppressions');
        this.ensureTargetRoom(tenant, targetEntriesOf(doc) - targetEntriesOf(stored));
        if (!this.rows.update(tenant, id, doc, nowMs)) throw notFound(KIND, id);
        return doc;
      },
      (index, doc) => index.put(id, doc),
    );
  }

  /** Deletes a suppression at any time; an active one ends at once. */
  remove(tenant: string, id: string): void {
    this.change(
      tenant,
      () => {
        if (!this.rows.remove(tenant, id)) throw notFound(KIND, id);
      },
      (index) => index.drop(id),
    );
  }

  /**
   * Deletes up to `max` suppressions of every tenant whose end_time is before `beforeMs`, the
   * earliest ended first (the upkeep's bounded step, with the history retention's cut); returns how
   * many. Log entries and history records keep the ids of the suppressions deleted.
   */
  pruneEnded(beforeMs: number, max: number): number {
    if (!(max > 0)) return 0;
    const pruned = this.rows.pruneEnded(beforeMs, Math.floor(max));
    for (const { tenant, id } of pruned) this.cache.update(tenant, (index) => index.drop(id));
    return pruned.length;
  }

  /** How many target items the tenant's stored suppressions name together (its usage of SUPPRESSION_TARGET_ENTRIES_MAX). */
  targetEntries(tenant: string): number {
    return this.cache.of(tenant).entries;
  }

  /** How many suppressions the tenant stores, ended ones included (the account limit counts only those not ended: AccountLimits). */
  count(tenant: string): number {
    return this.rows.count(tenant);
  }

  /** Ids (sorted) of the suppressions covering `target` at `atMs` (an alarm change: entity, check, alarm and plan). Cheap: called on every alarm change. */
  activeAt(tenant: string, target: SuppressionTarget, atMs: number): readonly string[] {
    return this.cache
      .of(tenant)
      .naming(target)
      .filter((one) => one.window.activeAt(atMs))
      .map((one) => one.id)
      .sort();
  }

  /** The ids a record of `target` carries at `nowMs`: active (covering now) and scheduled (covering a later time), each sorted. */
  idsOf(tenant: string, target: SuppressionTarget, nowMs: number): SuppressionIds {
    const naming = this.cache.of(tenant).naming(target);
    const active = naming.filter((one) => one.window.activeAt(nowMs)).map((one) => one.id);
    const scheduled = naming.filter((one) => one.window.scheduledAfter(nowMs)).map((one) => one.id);
    return { active: active.sort(), scheduled: scheduled.sort() };
  }

  /** The ids of the entity, check and alarm records of an alarm notification (target: the change's entity, check, alarm and plan) at `atMs`. */
  eventIds(tenant: string, target: Required<SuppressionTarget>, atMs: number): EventSuppressionIds {
    return {
      entity: this.idsOf(tenant, { entityId: target.entityId }, atMs),
      check: this.idsOf(tenant, { entityId: target.entityId, checkId: target.checkId }, atMs),
      alarm: this.idsOf(tenant, target, atMs),
    };
  }

  /** Appends a suppression log entry; runs inside the caller's transaction (the alarm change's). Returns its id (a UUID). */
  appendLog(tenant: string, row: Omit<SuppressionLogRow, 'id'>): string {
    const id = newUuid();
    this.rows.appendLog(tenant, { ...row, id });
    return id;
  }

  /** The window a log request covers: `to` defaults to now, `from` to 7 days before `to`. */
  logWindow(request: Pick<TimeSeriesRequest, 'fromMs' | 'toMs'>): TimeWindow {
    return resolveWindow(request, this.deps.clock.now(), SUPPRESSION_LOG_WINDOW_MS_DEFAULT);
  }

  /** A page of log entries, oldest first (by timestamp, then id); a marker naming no entry of the tenant yields an empty page. */
  listLogs(tenant: string, request: TimeSeriesRequest): Page<SuppressionLogRow> {
    return seriesPage(request, this.logWindow(request), (id) => this.rows.logEntry(tenant, id), (query) => this.rows.logPage(tenant, query));
  }

  /** Deletes up to `max` log entries of every tenant older than `beforeMs` (the upkeep's bounded step); returns how many. */
  pruneLogs(beforeMs: number, max: number): number {
    return this.rows.pruneLogs(beforeMs, max);
  }
}
