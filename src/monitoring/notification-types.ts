// Owns the eight notification types of spec 2.5 and the parameters each lists (operations 7 and 8).
import { ALERT_CATEGORY_PREFIX } from '../feeds/feed-catalog.js';

/** One parameter of a notification type as operation 7 lists it. */
export interface NotificationField {
  readonly name: string;
  readonly description: string;
  readonly optional: boolean;
}

/** A notification type: its id and parameters (null for types without parameters). */
export interface NotificationType {
  readonly id: string;
  readonly fields: readonly NotificationField[] | null;
}

/** The type ids in the order spec 2.5 lists them. */
export const NOTIFICATION_TYPE_IDS = ['webhook', 'email', 'incidentA', 'sms', 'managed', 'technicalContactsEmail', 'eventFeed', 'incidentB'] as const;
/** A notification type id. */
export type NotificationTypeId = (typeof NOTIFICATION_TYPE_IDS)[number];


const TYPES: Readonly<Record<NotificationTypeId, readonly NotificationField[] | null>> = {
  webhook: [{ name: 'url', description: 'HTTP or HTTPS URL that receives each notification as a JSON POST.', optional: false }],
  email: [{ name: 'address', description: 'Email address the notification is sent to.', optional: false }],
  incidentA: [
    { name: 'service_key', description: 'Service key of the incident-management integration: 1 to 32 letters or digits.', optional: false },
    { name: 'service_endpoint', description: 'URL of the integration endpoint, when not the default one.', optional: true },
  ],
  sms: [{ name: 'phone_number', description: 'Phone number in E.164 format: a leading + and 6 to 15 digits, country code first.', optional: false }],
  managed: null,
  technicalContactsEmail: null,
  eventFeed: [
    { name: 'category', description: `Category of the feed entry; it is delivered as ${ALERT_CATEGORY_PREFIX}<category>.`, optional: false },
  ],
  incidentB: [
    { name: 'api_key', description: 'API key of the incident-management integration, in UUID version 4 format.', optional: false },
    // Spec 2.5: the type list marks routing_key optional=false although creating a notification
    // accepts it absent; the list is reproduced as clients know it.
    { name: 'routing_key', description: 'Routing key of the integration: letters, digits, underscore, dot or dash.', optional: false },
  ],
};

/** True when `id` is one of the eight types. */
export function isNotificationType(id: string): id is NotificationTypeId {
  return (NOTIFICATION_TYPE_IDS as readonly string[]).includes(id);
}

/** Every notification type, sorted by id as every list is. */
export function notificationTypes(): NotificationType[] {
  return [...NOTIFICATION_TYPE_IDS].sort().map((id) => ({ id, fields: TYPES[id] }));
}

/** One notification type, or undefined. */
export function notificationType(id: string): NotificationType | undefined {
  return isNotificationType(id) ? { id, fields: TYPES[id] } : undefined;
}
