// Owns the in-memory index of each tenant's suppressions by what they name, kept up to date on every change, for a bounded set of recently used tenants.
import type { StoredDoc } from '../doc-store.js';
import { SUPPRESSION_CACHE_KEYS_MAX } from '../monitoring-limits.js';
import { compileRecurrence, type CompiledRecurrence, type RecurrenceDoc } from './suppression-recurrence.js';
import type { SuppressionDoc } from './suppression-rules.js';
import { MemoizedWindow } from './suppression-window.js';

/** What a suppression may cover: an alarm change names all four; records name what they are. */
export interface SuppressionTarget {
  readonly entityId: string;
  readonly checkId?: string;
  readonly alarmId?: string;
  readonly planId?: string;
}

/** One compiled suppression: its id and its time rule (answers remembered). */
export interface CompiledSuppression {
  readonly id: string;
  readonly window: MemoizedWindow;
}

/** Index keys: e: entity, c: entityId:checkId, a: entityId:alarmId, p: plan; each once (the four prefixes keep the lists apart). */
function keysOfDoc(doc: SuppressionDoc): string[] {
  const keys = [
    ...doc.entities.map((id) => `e:${id}`),
    ...doc.checks.map((pair) => `c:${pair}`),
    ...doc.alarms.map((pair) => `a:${pair}`),
    ...doc.notification_plans.map((id) => `p:${id}`),
  ];
  return [...new Set(keys)];
}

/** The index keys a target is covered through: its entity, and its check, alarm and plan when it names them. */
export function keysOfTarget(target: SuppressionTarget): string[] {
  const keys = [`e:${target.entityId}`];
  if (target.checkId !== undefined) keys.push(`c:${target.entityId}:${target.checkId}`);
  if (target.alarmId !== undefined) keys.push(`a:${target.entityId}:${target.alarmId}`);
  if (target.planId !== undefined) keys.push(`p:${target.planId}`);
  return keys;
}

/** A recurrence that never occurs. */
const NEVER: CompiledRecurrence = { durationMs: 0, latestAtOrBefore: () => null, earliestAtOrAfter: () => null };

/**
 * A stored recurrence compiled on its first question, not when the index is built: most stored
 * suppressions are never asked about a time inside their window (ended ones, other targets), and
 * compiling a schedule costs a time zone lookup. Stored recurrences were valid when written; one
 * this process cannot read (a time zone its ICU data lacks) never occurs rather than failing every
 * alarm change of the tenant: a missed maintenance window pages, a broken one would stay silent.
 */
function lazyRecurrence(doc: RecurrenceDoc): CompiledRecurrence {
  let compiled: CompiledRecurrence | undefined;
  const get = (): CompiledRecurrence => {
    if (compiled === undefined) {
      try {
        compiled = compileRecurrence(doc);
      } catch {
        compiled = NEVER;
      }
    }
    return compiled;
  };
  return {
    durationMs: doc.duration,
    latestAtOrBefore: (t) => get().latestAtOrBefore(t),
    earliestAtOrAfter: (t) => get().earliestAtOrAfter(t),
  };
}

/** One stored suppression, compiled (its recurrence on first use). */
function compiledOf(id: string, doc: SuppressionDoc): CompiledSuppression {
  const recurrence = doc.recurrence === null ? null : lazyRecurrence(doc.recurrence);
  return { id, window: new MemoizedWindow({ startMs: doc.start_time, endMs: doc.end_time, recurrence }) };
}

/** One tenant's suppressions, by index key; `entries` counts one per target item (what SUPPRESSION_TARGET_ENTRIES_MAX bounds). */
export class TenantSuppressions {
  private readonly byKey = new Map<string, CompiledSuppression[]>();
  private readonly keysById = new Map<string, readonly string[]>();
  private entryCount = 0;

  constructor(stored: readonly StoredDoc<SuppressionDoc>[]) {
    for (const one of stored) this.put(one.id, one.doc);
  }

  /** Index entries held: the tenant's target items, every suppression together. */
  get entries(): number {
    return this.entryCount;
  }

  /** Adds a suppression, or replaces the one with its id. */
  put(id: string, doc: SuppressionDoc): void {
    this.drop(id);
    const compiled = compiledOf(id, doc);
    const keys = keysOfDoc(doc);
    for (const key of keys) {
      const list = this.byKey.get(key);
      if (list === undefined) this.byKey.set(key, [compiled]);
      else list.push(compiled);
    }
    this.keysById.set(id, keys);
    this.entryCount += keys.length;
  }

  /** Removes a suppression (nothing when it is not indexed); costs the entries of its keys. */
  drop(id: string): void {
    const keys = this.keysById.get(id);
    if (keys === undefined) return;
    for (const key of keys) {
      const left = (this.byKey.get(key) ?? []).filter((one) => one.id !== id);
      if (left.length === 0) this.byKey.delete(key);
      else this.byKey.set(key, left);
    }
    this.keysById.delete(id);
    this.entryCount -= keys.length;
  }

  /** The suppressions naming the target through any of its keys, each once. */
  naming(target: SuppressionTarget): CompiledSuppression[] {
    const found = new Map<string, CompiledSuppression>();
    for (const key of keysOfTarget(target)) for (const one of this.byKey.get(key) ?? []) found.set(one.id, one);
    return [...found.values()];
  }
}

/**
 * Compiled suppressions of the most recently used tenants, loaded on first use and then kept in
 * step with every committed change (no rebuild). Bounded twice: at most `tenantsMax` tenants, and
 * at most `entriesMax` index entries over all of them; past either the least recently used
 * tenants are dropped. A tenant alone past `entriesMax` (rows written before the per-tenant bound)
 * is still kept, alone.
 */
export class SuppressionCache {
  private readonly tenants = new Map<string, TenantSuppressions>();
  private entryTotal = 0;

  constructor(
    private readonly load: (tenant: string) => readonly StoredDoc<SuppressionDoc>[],
    private readonly tenantsMax: number,
    private readonly entriesMax: number = SUPPRESSION_CACHE_KEYS_MAX,
  ) {}

  /** The tenant's index, loading it (and dropping least recently used tenants past the bounds) when absent. */
  of(tenant: string): TenantSuppressions {
    let index = this.tenants.get(tenant);
    if (index !== undefined) {
      // Map order is insertion order: re-inserting marks the tenant most recently used.
      this.tenants.delete(tenant);
      this.tenants.set(tenant, index);
      return index;
    }
    index = new TenantSuppressions(this.load(tenant));
    this.tenants.set(tenant, index);
    this.entryTotal += index.entries;
    this.shrink(tenant);
    return index;
  }

  /**
   * Applies a committed change to the tenant's index when it is loaded (an absent tenant loads the
   * change with the rest on first use). A change that throws drops the index instead.
   */
  update(tenant: string, change: (index: TenantSuppressions) => void): void {
    const index = this.tenants.get(tenant);
    if (index === undefined) return;
    const before = index.entries;
    try {
      change(index);
    } catch (error) {
      this.entryTotal += index.entries - before;
      this.invalidate(tenant);
      throw error;
    }
    this.entryTotal += index.entries - before;
    this.shrink(tenant);
  }

  /** Forgets the tenant's index (it is loaded again on next use). */
  invalidate(tenant: string): void {
    const index = this.tenants.get(tenant);
    if (index === undefined) return;
    this.tenants.delete(tenant);
    this.entryTotal -= index.entries;
  }

  /** Drops the least recently used tenants other than `keep` while a bound is exceeded. */
  private shrink(keep: string): void {
    for (const [tenant] of this.tenants) {
      if (this.tenants.size <= this.tenantsMax && this.entryTotal <= this.entriesMax) return;
      if (tenant !== keep) this.invalidate(tenant);
    }
  }

  /** How many tenants are cached (for tests of the bound). */
  get size(): number {
    return this.tenants.size;
  }

  /** Index entries held over every cached tenant (for tests of the bound). */
  get entries(): number {
    return this.entryTotal;
  }
}
