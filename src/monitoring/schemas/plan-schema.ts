// Owns the JSON schemas of notification plan create and update bodies and the body types they admit.
import { PLAN_STATE_NOTIFICATIONS_MAX } from '../monitoring-limits.js';
import { labelSchema, METADATA_SCHEMA, objectIdSchema, type Metadata } from './field-schemas.js';
import { updateSchemaOf, type JsonSchema } from './json-schema.js';

/** A notification plan create body as PLAN_CREATE_SCHEMA admits it. */
export interface PlanCreate {
  readonly label: string;
  readonly critical_state?: readonly string[] | null;
  readonly warning_state?: readonly string[] | null;
  readonly ok_state?: readonly string[] | null;
  readonly metadata?: Metadata | null;
}

/** A notification plan update body: any create field; keys left out keep their stored value. */
export type PlanUpdate = Partial<PlanCreate>;

/** The notification ids of one alarm state. */
function stateList(state: string): JsonSchema {
  return {
    type: ['array', 'null'],
    maxItems: PLAN_STATE_NOTIFICATIONS_MAX,
    items: objectIdSchema('Id of an existing notification.'),
    description: `Ids of the notifications told when an alarm enters ${state}, at most ${PLAN_STATE_NOTIFICATIONS_MAX} (repeats count once); null or left out is none.`,
  };
}

/** The body of POST /notification_plans. */
export const PLAN_CREATE_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['label'],
  description: 'A notification plan: which notifications an alarm tells on entering each state.',
  properties: {
    label: labelSchema('Name of the plan.'),
    critical_state: stateList('CRITICAL'),
    warning_state: stateList('WARNING'),
    ok_state: stateList('OK'),
    metadata: METADATA_SCHEMA,
  },
  examples: [
    { label: 'Web team', critical_state: ['ntAb3dE9xQ', 'ntPager001'], warning_state: ['ntAb3dE9xQ'], ok_state: ['ntAb3dE9xQ'] },
    { label: 'Quiet', critical_state: ['ntPager001'], metadata: { owner: 'ops' } },
  ],
};

/** The body of PUT /notification_plans/{planId}. */
export const PLAN_UPDATE_SCHEMA: JsonSchema = updateSchemaOf(PLAN_CREATE_SCHEMA, 'Changes to a notification plan: the fields given replace the stored ones; the others stay.');
