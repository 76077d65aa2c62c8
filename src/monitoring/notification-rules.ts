// Owns the stored fields of notifications and plans and the rules of their bodies a schema cannot state.
import { assert } from '../core/assert.js';
import { keep } from './body-merge.js';
import { notificationDetailsOf } from './notification-details.js';
import type { NotificationTypeId } from './notification-types.js';
import type { Metadata } from './schemas/field-schemas.js';
import type { NotificationDetails } from './schemas/notification-details-schema.js';
import type { NotificationCreate, NotificationUpdate } from './schemas/notification-schema.js';
import type { PlanCreate, PlanUpdate } from './schemas/plan-schema.js';

/** The stored fields of a notification. */
export interface NotificationDoc {
  readonly label: string;
  readonly type: NotificationTypeId;
  readonly details: NotificationDetails;
  readonly metadata: Metadata | null;
}

/** The stored fields of a notification plan: notification ids per alarm state. */
export interface PlanDoc {
  readonly label: string;
  readonly critical_state: readonly string[];
  readonly warning_state: readonly string[];
  readonly ok_state: readonly string[];
  readonly metadata: Metadata | null;
}

/** The three state lists of a plan. */
export const PLAN_STATES = ['critical_state', 'warning_state', 'ok_state'] as const;

/**
 * The notification a schema-valid body describes; an update keeps the keys it leaves out. The
 * stored details carry over (when details are null or left out) only while the type stays: a new
 * type without details starts from empty details, which must satisfy it.
 */
export function notificationDoc(input: NotificationCreate): NotificationDoc;
export function notificationDoc(input: NotificationUpdate, existing: NotificationDoc): NotificationDoc;
export function notificationDoc(input: NotificationUpdate, existing?: NotificationDoc): NotificationDoc {
  const label = input.label ?? existing?.label;
  const type = input.type ?? existing?.type;
  assert(label !== undefined && type !== undefined, 'a notification create body has a label and a type (its schema requires them)');
  const details = notificationDetailsOf(type, input.details ?? (type === existing?.type ? existing.details : undefined));
  return { label, type, details, metadata: keep(input.metadata, existing?.metadata ?? null) };
}

/**
 * The plan a schema-valid body describes; an update keeps the keys it leaves out, a null list is
 * empty and a repeated id counts once. Whether the ids name notifications is the service's business.
 */
export function planDoc(input: PlanCreate): PlanDoc;
export function planDoc(input: PlanUpdate, existing: PlanDoc): PlanDoc;
export function planDoc(input: PlanUpdate, existing?: PlanDoc): PlanDoc {
  const label = input.label ?? existing?.label;
  assert(label !== undefined, 'a plan create body has a label (its schema requires one)');
  const list = (state: (typeof PLAN_STATES)[number]): readonly string[] => {
    const given = input[state];
    return given === undefined ? (existing?.[state] ?? []) : [...new Set(given ?? [])];
  };
  return {
    label,
    critical_state: list('critical_state'),
    warning_state: list('warning_state'),
    ok_state: list('ok_state'),
    metadata: keep(input.metadata, existing?.metadata ?? null),
  };
}
