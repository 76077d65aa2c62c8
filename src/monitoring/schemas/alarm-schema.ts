// Owns the JSON schemas of alarm create and update bodies and the body types they admit.
import { CRITERIA_LENGTH_MAX } from '../monitoring-limits.js';
import { METADATA_SCHEMA, nullableLabelSchema, objectIdSchema, type Metadata } from './field-schemas.js';
import { updateSchemaOf, type JsonSchema } from './json-schema.js';

/** An alarm create body as ALARM_CREATE_SCHEMA admits it. */
export interface AlarmCreate {
  readonly check_id: string;
  readonly notification_plan_id: string;
  readonly criteria?: string | null;
  readonly label?: string | null;
  readonly disabled?: boolean;
  readonly metadata?: Metadata | null;
}

/** An alarm update body: any create field; keys left out keep their stored value. */
export type AlarmUpdate = Partial<AlarmCreate>;

/** The body of POST /entities/{entityId}/alarms. */
export const ALARM_CREATE_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['check_id', 'notification_plan_id'],
  description: "An alarm: criteria in the alarm language that turn a check's results into OK, WARNING or CRITICAL, and the plan that is notified.",
  properties: {
    check_id: objectIdSchema('Id of the check on the same entity whose results the alarm judges. It cannot change later.'),
    notification_plan_id: objectIdSchema('Id of the notification plan told about state changes.'),
    criteria: {
      type: ['string', 'null'],
      minLength: 1,
      maxLength: CRITERIA_LENGTH_MAX,
      description: `Alarm-language program deciding the state, at most ${CRITERIA_LENGTH_MAX} characters; null or left out lets the check's availability decide.`,
    },
    label: nullableLabelSchema('Name of the alarm, or null for none.'),
    disabled: { type: 'boolean', description: 'Whether the alarm is paused; false when left out.' },
    metadata: METADATA_SCHEMA,
  },
  examples: [
    {
      check_id: 'chAb3dE9xQ',
      notification_plan_id: 'npAb3dE9xQ',
      label: 'Status code',
      criteria: "if (metric['code'] != '200') { return new AlarmStatus(CRITICAL, 'down'); } return new AlarmStatus(OK);",
    },
    { check_id: 'chAb3dE9xQ', notification_plan_id: 'npAb3dE9xQ', criteria: ':set consecutiveCount=3\nif (metric["duration"] > 2000) { return WARNING } return OK', disabled: true },
  ],
};

/** The body of PUT /entities/{entityId}/alarms/{alarmId}; check_id may be given only unchanged. */
export const ALARM_UPDATE_SCHEMA: JsonSchema = updateSchemaOf(ALARM_CREATE_SCHEMA, 'Changes to an alarm: the fields given replace the stored ones; the others stay.');
