// Owns the JSON schemas of notification create and update bodies and the body types they admit.
import { NOTIFICATION_TYPE_IDS, type NotificationTypeId } from '../notification-types.js';
import { labelSchema, METADATA_SCHEMA, type Metadata } from './field-schemas.js';
import { detailsByType, updateSchemaOf, type JsonSchema } from './json-schema.js';
import { NOTIFICATION_DETAILS_SCHEMAS, type NotificationDetails } from './notification-details-schema.js';

/** A notification create body as NOTIFICATION_CREATE_SCHEMA admits it. */
export interface NotificationCreate {
  readonly label: string;
  readonly type: NotificationTypeId;
  readonly details?: NotificationDetails | null;
  readonly metadata?: Metadata | null;
}

/** A notification update body: any create field; keys left out keep their stored value. */
export type NotificationUpdate = Partial<NotificationCreate>;

/** The body of POST /notifications. */
export const NOTIFICATION_CREATE_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['label', 'type'],
  description: 'A notification: where and how an alarm state change is delivered.',
  properties: {
    label: labelSchema('Name of the notification.'),
    type: { type: 'string', enum: NOTIFICATION_TYPE_IDS, description: 'Delivery channel; GET /notification_types lists each with its parameters.' },
    details: {
      type: ['object', 'null'],
      description: "Parameters of the channel, which the type decides (spec 2.5); null or left out is an empty object, enough only for types without required parameters.",
    },
    metadata: METADATA_SCHEMA,
  },
  allOf: detailsByType(NOTIFICATION_DETAILS_SCHEMAS),
  examples: [
    { label: 'On-call hook', type: 'webhook', details: { url: 'https://hooks.example.com/monitoring' } },
    { label: 'Ops mailbox', type: 'email', details: { address: 'ops@example.com' }, metadata: { team: 'ops' } },
    { label: 'Pager', type: 'sms', details: { phone_number: '+15551234567' } },
    { label: 'Incidents', type: 'incidentB', details: { api_key: '0f8fad5b-d9cb-469f-a165-70867728950e', routing_key: 'team_a.web' } },
    { label: 'Managed', type: 'managed' },
  ],
};

/**
 * The body of PUT /notifications/{notificationId}. Details are checked against the type, which the
 * body must then name; a new type without details starts from empty details.
 */
export const NOTIFICATION_UPDATE_SCHEMA: JsonSchema = updateSchemaOf(
  NOTIFICATION_CREATE_SCHEMA,
  'Changes to a notification: the fields given replace the stored ones; the others stay. A body with details names the type too.',
  { dependencies: { details: ['type'] } },
);
