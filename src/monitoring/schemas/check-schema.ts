// Owns the JSON schemas of check create and update bodies and the body types they admit.
import { CHECK_TYPE_IDS, type CheckDetails, type CheckTypeId } from '../check-types.js';
import {
  CHECK_PERIOD_S_DEFAULT,
  CHECK_PERIOD_S_MAX,
  CHECK_PERIOD_S_MIN,
  CHECK_TIMEOUT_S_DEFAULT,
  CHECK_TIMEOUT_S_MAX,
  CHECK_TIMEOUT_S_MIN,
  HOSTNAME_LENGTH_MAX,
  METADATA_TEXT_LENGTH_MAX,
} from '../monitoring-limits.js';
import { MONITORING_ZONES_MAX, ZONE_ID_PATTERN } from '../monitoring-zones.js';
import { CHECK_DETAILS_SCHEMAS } from './check-details-schema.js';
import { METADATA_SCHEMA, nullableLabelSchema, type Metadata } from './field-schemas.js';
import { detailsByType, updateSchemaOf, type JsonSchema } from './json-schema.js';

/** How a remote check resolves its target_hostname. */
export type TargetResolver = 'IPv4' | 'IPv6';

/** A check create body as CHECK_CREATE_SCHEMA admits it. */
export interface CheckCreate {
  readonly type: CheckTypeId;
  readonly label?: string | null;
  readonly details?: CheckDetails | null;
  readonly monitoring_zones_poll?: readonly string[] | null;
  readonly target_alias?: string | null;
  readonly target_hostname?: string | null;
  readonly target_resolver?: TargetResolver | null;
  readonly period?: number;
  readonly timeout?: number;
  readonly disabled?: boolean;
  readonly metadata?: Metadata | null;
}

/** A check update body: any create field; keys left out keep their stored value. */
export type CheckUpdate = Partial<CheckCreate>;

/** A host name or IP address: letters, digits, dash, dot and colon, starting and ending with a letter or digit. */
const HOSTNAME_PATTERN = '^[A-Za-z0-9]([-A-Za-z0-9.:]*[A-Za-z0-9])?$';

/** The body of POST /entities/{entityId}/checks. */
export const CHECK_CREATE_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  description: 'A check: what is measured on an entity, how often, and (for remote checks) from which monitoring zones against which address.',
  properties: {
    type: { type: 'string', enum: CHECK_TYPE_IDS, description: 'Type of the check; remote.* types run from monitoring zones, agent.* types on the entity\'s agent. It cannot change later.' },
    label: nullableLabelSchema('Name of the check, or null for none.'),
    details: { type: ['object', 'null'], description: 'Settings of the check, which its type decides; null or left out is an empty object. remote.http needs a url, remote.tcp a port, remote.dns a query; remote.ping needs nothing.' },
    monitoring_zones_poll: {
      type: ['array', 'null'],
      minItems: 1,
      maxItems: MONITORING_ZONES_MAX,
      items: { type: 'string', pattern: ZONE_ID_PATTERN.source },
      description: 'Ids of the configured monitoring zones a remote check runs from; required for remote checks, null for agent checks.',
    },
    target_alias: {
      type: ['string', 'null'],
      minLength: 1,
      maxLength: METADATA_TEXT_LENGTH_MAX,
      description: "Name of one of the entity's ip_addresses a remote check targets; a remote check gives exactly one of target_alias and target_hostname.",
    },
    target_hostname: {
      type: ['string', 'null'],
      minLength: 1,
      maxLength: HOSTNAME_LENGTH_MAX,
      pattern: HOSTNAME_PATTERN,
      description: `Host name or IP address a remote check targets, at most ${HOSTNAME_LENGTH_MAX} characters; a remote check gives exactly one of target_alias and target_hostname.`,
    },
    target_resolver: { type: ['string', 'null'], enum: ['IPv4', 'IPv6', null], description: 'Address family target_hostname is resolved to, or null for either.' },
    period: {
      type: 'integer',
      minimum: CHECK_PERIOD_S_MIN,
      maximum: CHECK_PERIOD_S_MAX,
      description: `Seconds between runs of the check, ${CHECK_PERIOD_S_MIN} to ${CHECK_PERIOD_S_MAX}; ${CHECK_PERIOD_S_DEFAULT} when left out.`,
    },
    timeout: {
      type: 'integer',
      minimum: CHECK_TIMEOUT_S_MIN,
      maximum: CHECK_TIMEOUT_S_MAX,
      description: `Seconds a run may take, ${CHECK_TIMEOUT_S_MIN} to ${CHECK_TIMEOUT_S_MAX} and less than the period; ${CHECK_TIMEOUT_S_DEFAULT} when left out.`,
    },
    disabled: { type: 'boolean', description: 'Whether the check is paused; false when left out.' },
    metadata: METADATA_SCHEMA,
  },
  allOf: detailsByType(CHECK_DETAILS_SCHEMAS),
  examples: [
    {
      label: 'Website',
      type: 'remote.http',
      details: { url: 'https://www.example.com/', method: 'GET', headers: { Accept: 'text/html' } },
      monitoring_zones_poll: ['mzdfw', 'mzord'],
      target_alias: 'main',
      period: 60,
      timeout: 30,
    },
    { label: 'Root file system', type: 'agent.filesystem', details: { target: '/' }, period: 300 },
    { type: 'agent.cpu', disabled: false, metadata: { team: 'ops' } },
  ],
};

/**
 * The body of PUT /entities/{entityId}/checks/{checkId}. Details are checked against the type,
 * which the body must then name (it cannot change, so it is the stored one).
 */
export const CHECK_UPDATE_SCHEMA: JsonSchema = updateSchemaOf(
  CHECK_CREATE_SCHEMA,
  "Changes to a check: the fields given replace the stored ones; the others stay. A body with details names the check's type too.",
  { dependencies: { details: ['type'] } },
);
