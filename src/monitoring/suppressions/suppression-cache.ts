// Owns the in-memory index of each tenant's suppressions by what they name, compiled once, for a bounded set of recently used tenants.
import type { StoredDoc } from '../doc-store.js';
import { windowOf, type SuppressionDoc } from './suppression-rules.js';
import { MemoizedWindow, type SuppressionWindow } from './suppression-window.js';

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

/** Index keys: e: entity, c: entityId:checkId, a: entityId:alarmId, p: plan. */
function keysOfDoc(doc: SuppressionDoc): string[] {
  return [
    ...doc.entities.map((id) => `e:${id}`),
    ...doc.checks.map((pair) => `c:${pair}`),
    ...doc.alarms.map((pair) => `a:${pair}`),
    ...doc.notification_plans.map((id) => `p:${id}`),
  ];
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
const NEVER = { durationMs: 0, latestAtOrBefore: () => null, earliestAtOrAfter: () => null };

/**
 * The time rule of a stored suppression. Stored recurrences were valid when written; one this
 * process cannot read (a time zone its ICU data lacks) never occurs rather than failing every
 * alarm change of the tenant: a missed maintenance window pages, a broken one would stay silent.
 */
function storedWindow(doc: SuppressionDoc): SuppressionWindow {
  try {
    return windowOf(doc);
  } catch {
    return { startMs: doc.start_time, endMs: doc.end_time, recurrence: NEVER };
  }
}

/** One tenant's suppressions, by index key. */
export class TenantSuppressions {
  private readonly byKey = new Map<string, CompiledSuppression[]>();

  constructor(stored: readonly StoredDoc<SuppressionDoc>[]) {
    for (const one of stored) {
      const compiled: CompiledSuppression = { id: one.id, window: new MemoizedWindow(storedWindow(one.doc)) };
      for (const key of new Set(keysOfDoc(one.doc))) {
        const list = this.byKey.get(key);
        if (list === undefined) this.byKey.set(key, [compiled]);
        else list.push(compiled);
      }
    }
  }

  /** The suppressions naming the target through any of its keys, each once. */
  naming(target: SuppressionTarget): CompiledSuppression[] {
    const found = new Map<string, CompiledSuppression>();
    for (const key of keysOfTarget(target)) for (const one of this.byKey.get(key) ?? []) found.set(one.id, one);
    return [...found.values()];
  }
}

/** Compiled suppressions of the most recently used tenants, loaded on first use and dropped on any change of the tenant's suppressions. */
export class SuppressionCache {
  private readonly tenants = new Map<string, TenantSuppressions>();

  constructor(
    private readonly load: (tenant: string) => readonly StoredDoc<SuppressionDoc>[],
    private readonly tenantsMax: number,
  ) {}

  /** The tenant's index, loading it (and dropping the least recently used tenant past the bound) when absent. */
  of(tenant: string): TenantSuppressions {
    let index = this.tenants.get(tenant);
    if (index !== undefined) {
      // Map order is insertion order: re-inserting marks the tenant most recently used.
      this.tenants.delete(tenant);
    } else {
      index = new TenantSuppressions(this.load(tenant));
      if (this.tenants.size >= this.tenantsMax) {
        const oldest = this.tenants.keys().next().value;
        if (oldest !== undefined) this.tenants.delete(oldest);
      }
    }
    this.tenants.set(tenant, index);
    return index;
  }

  /** Forgets the tenant's index (its suppressions changed). */
  invalidate(tenant: string): void {
    this.tenants.delete(tenant);
  }

  /** How many tenants are cached (for tests of the bound). */
  get size(): number {
    return this.tenants.size;
  }
}
