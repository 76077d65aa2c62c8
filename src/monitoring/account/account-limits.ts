// Owns the account's resource limits: their defaults, the configured values, each tenant's usage, and refusing a create past a limit.
import type { Clock } from '../../core/clock.js';
import { configError } from '../../core/config-error.js';
import { limitReached } from '../monitoring-errors.js';
import {
  ACCOUNT_RESOURCE_LIMIT_MAX,
  ALARMS_PER_TENANT_DEFAULT,
  CHECKS_PER_TENANT_DEFAULT,
  ENTITIES_PER_TENANT_MAX,
  NOTIFICATIONS_PER_TENANT_MAX,
  PLANS_PER_TENANT_MAX,
  SUPPRESSIONS_PER_TENANT_DEFAULT,
} from '../monitoring-limits.js';
import type { MonitoringStore } from '../monitoring-store.js';
import { AccountUsageStore } from './account-usage-store.js';

/** The kinds of object an account's resource limits count. */
export const LIMITED_RESOURCES = ['entities', 'checks', 'alarms', 'notifications', 'notification_plans', 'suppressions'] as const;
/** A kind of object with an account limit. */
export type LimitedResource = (typeof LIMITED_RESOURCES)[number];
/** The most objects of each kind one account may hold. */
export type ResourceLimits = Readonly<Record<LimitedResource, number>>;

/**
 * The limits of an account that configures none: checks and alarms as the reference documents
 * them; entities, notifications and plans as Strata held them before they were configurable;
 * suppressions as many as notifications.
 */
export const DEFAULT_RESOURCE_LIMITS: ResourceLimits = {
  entities: ENTITIES_PER_TENANT_MAX,
  checks: CHECKS_PER_TENANT_DEFAULT,
  alarms: ALARMS_PER_TENANT_DEFAULT,
  notifications: NOTIFICATIONS_PER_TENANT_MAX,
  notification_plans: PLANS_PER_TENANT_MAX,
  suppressions: SUPPRESSIONS_PER_TENANT_DEFAULT,
};

/** The name each kind has in MONITORING_LIMIT_REACHED's details, as the per-entity limits name them ("Check"). */
const KIND_NAMES: Readonly<Record<LimitedResource, string>> = {
  entities: 'Entity',
  checks: 'Check',
  alarms: 'Alarm',
  notifications: 'Notification',
  notification_plans: 'NotificationPlan',
  suppressions: 'Suppression',
};

/** True when `name` is a kind with an account limit. */
export function isLimitedResource(name: string): name is LimitedResource {
  return (LIMITED_RESOURCES as readonly string[]).includes(name);
}

/**
 * The limits in force: the configured values over the defaults. Throws CONFIG_INVALID naming
 * `limits.<kind>` for a value that is not an integer from 0 (no object of the kind) to
 * ACCOUNT_RESOURCE_LIMIT_MAX, or for a kind that has no limit.
 */
export function resolveResourceLimits(given: Partial<Record<string, number>> = {}): ResourceLimits {
  for (const [name, value] of Object.entries(given)) {
    if (!isLimitedResource(name)) throw configError(`limits.${name}`, `one of ${LIMITED_RESOURCES.join(', ')}`, name);
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 0 || value > ACCOUNT_RESOURCE_LIMIT_MAX) {
      throw configError(`limits.${name}`, `an integer from 0 to ${ACCOUNT_RESOURCE_LIMIT_MAX}`, value);
    }
  }
  const defined = Object.entries(given).filter(([, value]) => value !== undefined);
  return { ...DEFAULT_RESOURCE_LIMITS, ...(Object.fromEntries(defined) as Partial<ResourceLimits>) };
}

/** What the limits are built from. */
export interface AccountLimitsDeps {
  readonly store: MonitoringStore;
  readonly clock: Clock;
  /** Configured values over the defaults. */
  readonly limits?: Partial<ResourceLimits>;
}

/**
 * The account limits of every tenant (one configuration for the server) and their usage. The
 * limits count the account's own objects: its default notification and plan do not count, and the
 * per-entity limits (CHECKS_PER_ENTITY_MAX, ALARMS_PER_ENTITY_MAX) hold besides these. Suppressions
 * count while not ended (end_time after now): an ended one holds no place until it is pruned.
 */
export class AccountLimits {
  /** The limits in force. */
  readonly resources: ResourceLimits;
  private readonly usageStore: AccountUsageStore;
  private readonly clock: Clock;

  constructor(deps: AccountLimitsDeps) {
    this.resources = resolveResourceLimits(deps.limits);
    this.usageStore = new AccountUsageStore(deps.store.db);
    this.clock = deps.clock;
  }

  /** How many objects of each kind the tenant holds (suppressions: those not ended yet). */
  usage(tenant: string): ResourceLimits {
    const nowMs = this.clock.now();
    const entries = LIMITED_RESOURCES.map((resource) => [resource, this.usageStore.count(tenant, resource, nowMs)] as const);
    return Object.fromEntries(entries) as Record<LimitedResource, number>;
  }

  /** Throws MONITORING_LIMIT_REACHED when the tenant holds its limit of `resource` already; call inside the create's transaction. */
  ensureRoom(tenant: string, resource: LimitedResource): void {
    const limit = this.resources[resource];
    if (this.usageStore.count(tenant, resource, this.clock.now()) >= limit) throw limitReached(KIND_NAMES[resource], limit);
  }
}
