// Owns the fields of notifications and notification plans and their validation.
import { fieldError } from './monitoring-errors.js';
import { PLAN_STATE_NOTIFICATIONS_MAX } from './monitoring-limits.js';
import { bodyObject, label, metadata, onlyKeys, present, required, text, type JsonObject } from './field-rules.js';
import { notificationDetails } from './notification-details.js';
import { isNotificationType, type NotificationTypeId } from './notification-types.js';

/** The stored fields of a notification. */
export interface NotificationDoc {
  readonly label: string;
  readonly type: NotificationTypeId;
  readonly details: JsonObject;
  readonly metadata: Readonly<Record<string, string>> | null;
}

/** The stored fields of a notification plan: notification ids per alarm state. */
export interface PlanDoc {
  readonly label: string;
  readonly critical_state: readonly string[];
  readonly warning_state: readonly string[];
  readonly ok_state: readonly string[];
  readonly metadata: Readonly<Record<string, string>> | null;
}

/** The three state lists of a plan. */
export const PLAN_STATES = ['critical_state', 'warning_state', 'ok_state'] as const;

/** Validates a notification body; with `existing`, an update. A new type needs details valid for it. */
export function parseNotification(raw: unknown, existing?: NotificationDoc): NotificationDoc {
  const body = bodyObject(raw);
  onlyKeys(body, ['label', 'type', 'details', 'metadata']);
  const typeValue = existing === undefined ? required(body, 'type') : (present(body, 'type') ?? existing.type);
  const type = text('type', typeValue, 1, 64);
  if (!isNotificationType(type)) throw fieldError('type', `unknown notification type ${JSON.stringify(type)}`);
  const detailsValue = present(body, 'details') ?? (existing !== undefined && type === existing.type ? existing.details : undefined);
  return {
    label: existing === undefined ? label(required(body, 'label')) : label(present(body, 'label') ?? existing.label),
    type,
    details: notificationDetails(type, detailsValue),
    metadata: present(body, 'metadata') !== undefined ? metadata(body['metadata']) : (existing?.metadata ?? null),
  };
}

function idList(key: string, value: unknown): readonly string[] {
  if (value === null) return [];
  if (!Array.isArray(value) || value.length > PLAN_STATE_NOTIFICATIONS_MAX) throw fieldError(key, `must be an array of at most ${PLAN_STATE_NOTIFICATIONS_MAX} notification ids`);
  for (const id of value) text(key, id, 1, 64);
  return [...new Set(value as string[])];
}

/** Validates a notification plan body; with `existing`, an update. Whether the ids exist is the service's check. */
export function parsePlan(raw: unknown, existing?: PlanDoc): PlanDoc {
  const body = bodyObject(raw);
  onlyKeys(body, ['label', ...PLAN_STATES, 'metadata']);
  const list = (key: (typeof PLAN_STATES)[number]): readonly string[] => {
    const value = present(body, key);
    return value === undefined ? (existing?.[key] ?? []) : idList(key, value);
  };
  return {
    label: existing === undefined ? label(required(body, 'label')) : label(present(body, 'label') ?? existing.label),
    critical_state: list('critical_state'),
    warning_state: list('warning_state'),
    ok_state: list('ok_state'),
    metadata: present(body, 'metadata') !== undefined ? metadata(body['metadata']) : (existing?.metadata ?? null),
  };
}
