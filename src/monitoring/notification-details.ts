// Owns a notification's details as stored: absent details are empty, which the type's spec 2.5 parameters must allow.
import { fieldError } from './monitoring-errors.js';
import type { NotificationTypeId } from './notification-types.js';
import { firstRequired } from './schemas/json-schema.js';
import { NOTIFICATION_DETAILS_SCHEMAS, type NotificationDetails } from './schemas/notification-details-schema.js';

/**
 * The details of a notification of `type`: schema-valid details as given; null or absent ones are
 * an empty object, refused naming the first parameter the type requires (`details.url`), since its
 * details schema never saw them.
 */
export function notificationDetailsOf(type: NotificationTypeId, details: NotificationDetails | null | undefined): NotificationDetails {
  if (details !== null && details !== undefined) return details;
  const missing = firstRequired(NOTIFICATION_DETAILS_SCHEMAS[type]);
  if (missing !== undefined) throw fieldError(`details.${missing}`, `is required for ${type} notifications`);
  return {};
}
