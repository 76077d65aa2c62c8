// Owns the default notification and plan every tenant has: their ids and fields, and what may be done to them.
import { StrataError } from '../../core/errors.js';
import type { NotificationDoc, PlanDoc } from '../notification-rules.js';

/** Id of the default notification: an email to the account's technical contacts (api-anchors 1.4). */
export const DEFAULT_NOTIFICATION_ID = 'ntTechnicalContactsEmail';
/** Id of the default notification plan (api-anchors 1.4): the plan fog and other clients create alarms with. */
export const DEFAULT_PLAN_ID = 'npTechnicalContactsEmail';
/** Label of both default objects, as the reference shows it. */
export const DEFAULT_OBJECTS_LABEL = 'Technical Contacts - Email';

/** The default notification's fields: technicalContactsEmail takes no parameters, so its details are empty. */
export const DEFAULT_NOTIFICATION_DOC: NotificationDoc = { label: DEFAULT_OBJECTS_LABEL, type: 'technicalContactsEmail', details: {}, metadata: null };

/**
 * The default plan's fields: the default notification on every state. The one captured fixture of
 * the reference lists the plan with three empty lists, but the reference describes it as emailing
 * the technical contacts on every state change, and a user who creates an alarm with it expects to
 * be told; empty lists would make it a plan that never notifies (docs/monitoring-api.md).
 */
export const DEFAULT_PLAN_DOC: PlanDoc = {
  label: DEFAULT_OBJECTS_LABEL,
  critical_state: [DEFAULT_NOTIFICATION_ID],
  warning_state: [DEFAULT_NOTIFICATION_ID],
  ok_state: [DEFAULT_NOTIFICATION_ID],
  metadata: null,
};

/** How many default notifications (and, separately, default plans) each tenant holds: they do not count against the per-tenant limits. */
export const DEFAULT_OBJECTS_PER_KIND = 1;

/** True when `id` is the default notification's id. */
export function isDefaultNotification(id: string): boolean {
  return id === DEFAULT_NOTIFICATION_ID;
}

/** True when `id` is the default plan's id. */
export function isDefaultPlan(id: string): boolean {
  return id === DEFAULT_PLAN_ID;
}

/** MONITORING_DEFAULT_OBJECT_PROTECTED (403) refusing to delete a default object or change the default notification. */
export function defaultObjectProtected(kind: 'Notification' | 'NotificationPlan', id: string, action: 'deleted' | 'changed'): StrataError {
  const why = action === 'deleted' ? 'every tenant keeps it' : 'its fields are fixed; add other notifications to a plan instead';
  return new StrataError('MONITORING_DEFAULT_OBJECT_PROTECTED', `The default ${kind === 'Notification' ? 'notification' : 'notification plan'} ${id} cannot be ${action}: ${why}.`, {
    type: kind,
    key: id,
  });
}
