// Owns the JSON schemas of suppression create and update bodies and the body types they admit.
import {
  OBJECT_ID_LENGTH_MAX,
  SUPPRESSION_DURATION_MS_MAX,
  SUPPRESSION_DURATION_MS_MIN,
  SUPPRESSION_SCHEDULE_LENGTH_MAX,
  SUPPRESSION_TARGET_LENGTH_MAX,
  SUPPRESSION_TARGETS_MAX,
  SUPPRESSION_TIME_MS_MAX,
  SUPPRESSION_TIME_ZONE_LENGTH_MAX,
} from '../monitoring-limits.js';
import { nullableLabelSchema } from './field-schemas.js';
import { updateSchemaOf, type JsonSchema } from './json-schema.js';

/** A recurrence as the body gives it: a 5-field cron schedule, its time zone (default UTC) and how long each occurrence lasts. */
export interface RecurrenceBody {
  readonly schedule: string;
  readonly time_zone?: string;
  readonly duration: number;
}

/** A suppression create body as SUPPRESSION_CREATE_SCHEMA admits it. */
export interface SuppressionCreate {
  readonly label?: string | null;
  readonly start_time?: number;
  readonly end_time: number;
  readonly entities?: readonly string[] | null;
  readonly checks?: readonly string[] | null;
  readonly alarms?: readonly string[] | null;
  readonly notification_plans?: readonly string[] | null;
  readonly recurrence?: RecurrenceBody | null;
}

/** A suppression update body: any create field; keys left out keep their stored value. */
export type SuppressionUpdate = Partial<SuppressionCreate>;

/** The four target lists, in the order the API shows them. */
export const SUPPRESSION_TARGET_KEYS = ['entities', 'checks', 'alarms', 'notification_plans'] as const;
/** One of the four target lists. */
export type SuppressionTargetKey = (typeof SUPPRESSION_TARGET_KEYS)[number];

/** The characters of a monitoring object id (generated ids are letters and digits after the prefix). */
const ID_CHARS = 'A-Za-z0-9_-';
/** An object id: id characters only. */
export const SUPPRESSION_ID_PATTERN = `^[${ID_CHARS}]+$`;
/** A pair `entityId:checkId` or `entityId:alarmId`. */
export const SUPPRESSION_PAIR_PATTERN = `^[${ID_CHARS}]{1,${OBJECT_ID_LENGTH_MAX}}:[${ID_CHARS}]{1,${OBJECT_ID_LENGTH_MAX}}$`;
/** Five fields separated by blanks, none of them a nickname such as @daily (croner reads the fields). */
export const SUPPRESSION_SCHEDULE_PATTERN = '^\\s*[^\\s@]+(\\s+[^\\s@]+){4}\\s*$';

/** A time field: integer ms since 1970, 0 meaning now. */
function timeSchema(description: string): JsonSchema {
  return { type: 'integer', minimum: 0, maximum: SUPPRESSION_TIME_MS_MAX, description };
}

/** A target list of single ids (entities, notification plans). */
function idList(what: string): JsonSchema {
  return {
    type: ['array', 'null'],
    maxItems: SUPPRESSION_TARGETS_MAX,
    items: { type: 'string', minLength: 1, maxLength: OBJECT_ID_LENGTH_MAX, pattern: SUPPRESSION_ID_PATTERN },
    description: `Ids of ${what} whose alarms are suppressed, at most ${SUPPRESSION_TARGETS_MAX} (repeats count once); null or left out is none. Ids are not checked for existence.`,
  };
}

/** A target list of `entityId:objectId` pairs (checks, alarms). */
function pairList(what: string, example: string): JsonSchema {
  return {
    type: ['array', 'null'],
    maxItems: SUPPRESSION_TARGETS_MAX,
    items: { type: 'string', minLength: 3, maxLength: SUPPRESSION_TARGET_LENGTH_MAX, pattern: SUPPRESSION_PAIR_PATTERN },
    description: `${what} as \`${example}\`, at most ${SUPPRESSION_TARGETS_MAX} (repeats count once); null or left out is none.`,
  };
}

/** The optional recurrence: while it is set the suppression is active only during its occurrences. */
const RECURRENCE_SCHEMA: JsonSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['schedule', 'duration'],
  description:
    'Makes the suppression recurring: active while an occurrence of the schedule runs (duration ms from its start) and the time is in [start_time, end_time); an occurrence already running at start_time counts from start_time, and nothing is covered from end_time on. Null or left out: one window [start_time, end_time).',
  properties: {
    schedule: {
      type: 'string',
      minLength: 9,
      maxLength: SUPPRESSION_SCHEDULE_LENGTH_MAX,
      pattern: SUPPRESSION_SCHEDULE_PATTERN,
      description: 'Cron schedule of five fields: minute, hour, day of month, month, day of week (e.g. "0 2 * * SUN": Sundays at 02:00).',
    },
    time_zone: {
      type: 'string',
      minLength: 1,
      maxLength: SUPPRESSION_TIME_ZONE_LENGTH_MAX,
      description: 'IANA time zone the schedule is read in (default UTC), e.g. Europe/Berlin.',
    },
    duration: {
      type: 'integer',
      minimum: SUPPRESSION_DURATION_MS_MIN,
      maximum: SUPPRESSION_DURATION_MS_MAX,
      description: `How long each occurrence lasts, in ms (${SUPPRESSION_DURATION_MS_MIN} to ${SUPPRESSION_DURATION_MS_MAX}).`,
    },
  },
};

/** The body of POST /suppressions. */
export const SUPPRESSION_CREATE_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['end_time'],
  description: 'A maintenance suppression: no notification for changes of the alarms it names while it is active; at least one target list must name something.',
  properties: {
    label: nullableLabelSchema('Name of the suppression, or null for none.'),
    start_time: timeSchema('Start, integer ms since 1970; 0 or left out is now; up to 60 s in the past is taken as now, earlier is refused.'),
    end_time: timeSchema('End (exclusive), integer ms since 1970, after start_time; 0 is now.'),
    entities: idList('entities'),
    checks: pairList('Checks', 'entityId:checkId'),
    alarms: pairList('Alarms', 'entityId:alarmId'),
    notification_plans: idList('notification plans'),
    recurrence: RECURRENCE_SCHEMA,
  },
  examples: [
    { label: 'Reboot of web-1', start_time: 0, end_time: 4_102_444_800_000, entities: ['enAb3dE9xQ'] },
    {
      label: 'Sunday backups',
      end_time: 4_102_444_800_000,
      checks: ['enAb3dE9xQ:chBk9Qw2Lp'],
      recurrence: { schedule: '0 2 * * SUN', time_zone: 'Europe/Berlin', duration: 7_200_000 },
    },
    { end_time: 4_102_444_800_000, alarms: ['enAb3dE9xQ:alZt5Rm1Vc'], notification_plans: ['npPager0001'] },
  ],
};

/** The body of PUT /suppressions/{suppressionId}. */
export const SUPPRESSION_UPDATE_SCHEMA: JsonSchema = updateSchemaOf(
  SUPPRESSION_CREATE_SCHEMA,
  'Changes to a suppression: the fields given replace the stored ones (a list replaces the whole list); the others stay. Once the suppression has started only end_time may change.',
);
