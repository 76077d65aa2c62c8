// Owns which (check, zone) slots this process runs: every enabled remote check of every tenant, loaded at start and reloaded on changes.
import { StrataError } from '../../core/errors.js';
import type { CheckDoc } from '../check-rules.js';
import { redactDetails } from '../check-secrets.js';
import { isRemoteType } from '../check-types.js';
import type { StoredDoc } from '../doc-store.js';
import type { EntityDoc } from '../entity-rules.js';
import { CHECK_SLOTS_MAX } from '../monitoring-limits.js';
import type { MonitoringService } from '../monitoring-service.js';
import type { RuntimeLogger } from './check-runner.js';
import type { Due } from './schedule-heap.js';
import { slotKey, slotPhaseMs } from './slot-phase.js';

/** One scheduled check: its entity, the check with secrets (for the probe) and redacted (for alarms and payloads). */
export interface ScheduledCheck {
  readonly tenant: string;
  readonly entity: StoredDoc<EntityDoc>;
  /** Secrets in plaintext: only the probe sees this one. */
  readonly check: StoredDoc<CheckDoc>;
  /** Secrets redacted: what alarms, changelogs and notifications are given. */
  readonly shown: StoredDoc<CheckDoc>;
}

/** One (check, zone) pair: runs every period at its phase. Its dueMs changes only while it is out of the heap. */
export class Slot implements Due {
  dueMs = 0;
  /** False once the check is deleted, disabled or changed so that this slot is gone; the heap drops it lazily. */
  active = true;
  /** True from dispatch until its run settled: a slot never runs twice at once. */
  running = false;

  constructor(
    readonly key: string,
    /** The check as now stored (replaced when the check or its entity changes and the slot stays). */
    public owner: ScheduledCheck,
    readonly zoneId: string,
    readonly periodMs: number,
    readonly phaseMs: number,
  ) {}
}

/** Where a check is: tenant, entity and id. */
export interface CheckRef {
  readonly tenant: string;
  readonly entityId: string;
  readonly id: string;
}

/** What adding or reloading did to the slots. */
export interface SlotChange {
  readonly added: readonly Slot[];
  readonly removed: readonly Slot[];
}

/** What the catalog needs. */
export interface ScheduledChecksDeps {
  readonly monitoring: MonitoringService;
  /** Ids of the zones this process runs. */
  readonly zones: readonly string[];
  /** True when this build has a probe for the type. */
  readonly runs: (type: string) => boolean;
  readonly logger: RuntimeLogger;
  /** Most slots (CHECK_SLOTS_MAX unless given). */
  readonly slotsMax?: number;
}

function checkKey(tenant: string, entityId: string, checkId: string): string {
  return `${tenant}/${entityId}/${checkId}`;
}

/** The checks and slots this process schedules, keyed by tenant/entity/check, with an index by entity. */
export class ScheduledChecks {
  private readonly checks = new Map<string, { scheduled: ScheduledCheck; slots: Slot[] }>();
  private readonly byEntity = new Map<string, Set<string>>();
  private slots = 0;
  private readonly slotsMax: number;

  constructor(private readonly deps: ScheduledChecksDeps) {
    this.slotsMax = deps.slotsMax ?? CHECK_SLOTS_MAX;
  }

  /** How many checks and slots are scheduled. */
  counts(): { checks: number; slots: number } {
    return { checks: this.checks.size, slots: this.slots };
  }

  /** The slots of one scheduled check (empty when it is not scheduled). */
  slotsOf(tenant: string, entityId: string, checkId: string): readonly Slot[] {
    return this.checks.get(checkKey(tenant, entityId, checkId))?.slots ?? [];
  }

  /** Every enabled remote check of every tenant, by id (one scan; each is then read with reload()). */
  enabledRemoteChecks(): CheckRef[] {
    const found: CheckRef[] = [];
    // The scan holds the connection: collect first, read each check with its secrets after.
    this.deps.monitoring.store.docs.scan<CheckDoc>('mon_check', (scope, stored) => {
      if (scope.entityId !== undefined && isRemoteType(stored.doc.type) && !stored.doc.disabled) found.push({ tenant: scope.tenant, entityId: scope.entityId, id: stored.id });
    });
    return found;
  }

  /** Reads one check anew and adds, keeps or removes its slots; a slot whose zone and period stay keeps its due time. */
  reload(tenant: string, entityId: string, checkId: string): SlotChange {
    const key = checkKey(tenant, entityId, checkId);
    const before = this.checks.get(key);
    const scheduled = this.read(tenant, entityId, checkId);
    const zones = scheduled === undefined ? [] : this.zonesOf(scheduled.check.doc);
    const periodMs = (scheduled?.check.doc.period ?? 0) * 1000;
    const kept: Slot[] = [];
    const removed: Slot[] = [];
    for (const slot of before?.slots ?? []) {
      if (scheduled !== undefined && zones.includes(slot.zoneId) && slot.periodMs === periodMs) {
        slot.owner = scheduled;
        kept.push(slot);
      } else {
        slot.active = false;
        removed.push(slot);
      }
    }
    const added: Slot[] = [];
    if (scheduled !== undefined) {
      for (const zoneId of zones) {
        if (kept.some((slot) => slot.zoneId === zoneId)) continue;
        if (this.slots - removed.length + added.length >= this.slotsMax) {
          this.deps.logger.warn({ tenant, entityId, checkId, slotsMax: this.slotsMax }, 'check not scheduled: the process schedules its most slots');
          break;
        }
        const slotId = slotKey(tenant, entityId, checkId, zoneId);
        added.push(new Slot(slotId, scheduled, zoneId, periodMs, slotPhaseMs(slotId, periodMs)));
      }
    }
    this.slots += added.length - removed.length;
    const slots = [...kept, ...added];
    if (scheduled === undefined || slots.length === 0) this.forget(key, entityId, tenant);
    else this.remember(key, entityId, tenant, { scheduled, slots });
    return { added, removed };
  }

  /** After an entity changed: its checks see the new entity (addresses); a deleted entity's slots go. */
  reloadEntity(tenant: string, entityId: string): SlotChange {
    const keys = [...(this.byEntity.get(`${tenant}/${entityId}`) ?? [])];
    const changes = keys.map((key) => this.reload(tenant, entityId, key.slice(key.lastIndexOf('/') + 1)));
    return { added: changes.flatMap((c) => c.added), removed: changes.flatMap((c) => c.removed) };
  }

  private remember(key: string, entityId: string, tenant: string, entry: { scheduled: ScheduledCheck; slots: Slot[] }): void {
    this.checks.set(key, entry);
    const entityKey = `${tenant}/${entityId}`;
    let keys = this.byEntity.get(entityKey);
    if (keys === undefined) this.byEntity.set(entityKey, (keys = new Set()));
    keys.add(key);
  }

  private forget(key: string, entityId: string, tenant: string): void {
    this.checks.delete(key);
    const entityKey = `${tenant}/${entityId}`;
    const keys = this.byEntity.get(entityKey);
    keys?.delete(key);
    if (keys?.size === 0) this.byEntity.delete(entityKey);
  }

  /** The zones of the check this process runs: its monitoring_zones_poll among ours, each once. */
  private zonesOf(check: CheckDoc): string[] {
    return [...new Set(check.monitoring_zones_poll ?? [])].filter((zone) => this.deps.zones.includes(zone));
  }

  /** The check as a scheduled check, or undefined when it is gone, not remote, disabled, unreadable or has no probe. */
  private read(tenant: string, entityId: string, checkId: string): ScheduledCheck | undefined {
    const { entities } = this.deps.monitoring;
    let check: StoredDoc<CheckDoc>;
    let entity: StoredDoc<EntityDoc>;
    try {
      entity = entities.entity(tenant, entityId);
      check = entities.checkWithSecrets(tenant, entityId, checkId);
    } catch (error) {
      if (error instanceof StrataError && (error.code === 'MONITORING_OBJECT_NOT_FOUND' || error.code === 'MONITORING_PARENT_NOT_FOUND')) return undefined;
      // A secret that does not decrypt (a wrong monitoring.key): say which check, never the value.
      this.deps.logger.error({ tenant, entityId, checkId, code: error instanceof StrataError ? error.code : undefined }, 'check not scheduled: it cannot be read');
      return undefined;
    }
    if (!isRemoteType(check.doc.type) || check.doc.disabled) return undefined;
    if (!this.deps.runs(check.doc.type)) {
      this.deps.logger.warn({ tenant, entityId, checkId, type: check.doc.type }, 'check not scheduled: no probe runs its type');
      return undefined;
    }
    const shown = { ...check, doc: { ...check.doc, details: redactDetails(check.doc.details) } };
    return { tenant, entity, check, shown };
  }
}
