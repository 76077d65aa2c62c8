// Owns the JSON schema of the account settings update body (PUT /account) and the body type it admits.
import { ACCOUNT_TECHNICAL_CONTACTS_MAX, EMAIL_LENGTH_MAX, WEBHOOK_TOKEN_LENGTH_MAX, WEBHOOK_TOKEN_LENGTH_MIN } from '../monitoring-limits.js';
import { METADATA_SCHEMA, type Metadata } from '../schemas/field-schemas.js';
import type { JsonSchema } from '../schemas/json-schema.js';
import { EMAIL_PATTERN } from '../schemas/notification-details-schema.js';
import { WEBHOOK_TOKEN_PATTERN } from './account-rules.js';

/** An account update body as ACCOUNT_UPDATE_SCHEMA admits it: keys left out keep their stored value. */
export interface AccountUpdate {
  readonly technical_contacts?: readonly string[];
  readonly webhook_token?: string;
  readonly metadata?: Metadata | null;
}

/** The body of PUT /account. */
export const ACCOUNT_UPDATE_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Changes to the account settings: the fields given replace the stored ones; the others stay.',
  properties: {
    technical_contacts: {
      type: 'array',
      maxItems: ACCOUNT_TECHNICAL_CONTACTS_MAX,
      // The same address rule as an email notification's `address`.
      items: { type: 'string', minLength: 1, maxLength: EMAIL_LENGTH_MAX, pattern: EMAIL_PATTERN },
      description: `Email addresses technicalContactsEmail notifications (such as the default ntTechnicalContactsEmail) are sent to: at most ${ACCOUNT_TECHNICAL_CONTACTS_MAX}, each at most ${EMAIL_LENGTH_MAX} characters; a repeated address counts once; [] for none.`,
    },
    webhook_token: {
      type: 'string',
      pattern: WEBHOOK_TOKEN_PATTERN,
      description: `Token sent as the x-<vendor>-webhook-token header of every webhook delivery (spec 5.4): ${WEBHOOK_TOKEN_LENGTH_MIN} to ${WEBHOOK_TOKEN_LENGTH_MAX} letters or digits. POST /account/webhook_token generates one instead.`,
    },
    metadata: METADATA_SCHEMA,
  },
  examples: [{ technical_contacts: ['ops@example.com', 'oncall@example.com'] }, { webhook_token: 'Xq3ZkP9sLm2Rt7VbN4cW8yHd' }, { metadata: { team: 'ops' } }],
};
