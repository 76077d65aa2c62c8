// Owns the JSON schemas of entity create and update bodies and the body types they admit.
import { AGENT_ID_PATTERN } from '../agent-rules.js';
import { AGENT_ID_LENGTH_MAX, IP_ADDRESSES_MAX, METADATA_TEXT_LENGTH_MAX, URI_LENGTH_MAX } from '../monitoring-limits.js';
import { labelSchema, METADATA_SCHEMA, type Metadata } from './field-schemas.js';
import { updateSchemaOf, type JsonSchema } from './json-schema.js';

/** An entity create body as ENTITY_CREATE_SCHEMA admits it. */
export interface EntityCreate {
  readonly label: string;
  readonly ip_addresses?: Readonly<Record<string, string>> | null;
  readonly metadata?: Metadata | null;
  readonly agent_id?: string | null;
  readonly managed?: boolean;
  readonly uri?: string | null;
}

/** An entity update body: any create field; keys left out keep their stored value. */
export type EntityUpdate = Partial<EntityCreate>;

/** The body of POST /entities. */
export const ENTITY_CREATE_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['label'],
  description: 'An entity: a monitored host or service, the parent of checks and alarms.',
  properties: {
    label: labelSchema('Name of the entity, shown in lists and notifications.'),
    ip_addresses: {
      type: ['object', 'null'],
      maxProperties: IP_ADDRESSES_MAX,
      propertyNames: { minLength: 1, maxLength: METADATA_TEXT_LENGTH_MAX },
      additionalProperties: { type: 'string', anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] },
      description: `Addresses of the entity by name (a remote check's target_alias names one), or null for none: at most ${IP_ADDRESSES_MAX} IPv4 or IPv6 addresses, names of 1 to ${METADATA_TEXT_LENGTH_MAX} characters.`,
    },
    metadata: METADATA_SCHEMA,
    agent_id: {
      type: ['string', 'null'],
      minLength: 1,
      maxLength: AGENT_ID_LENGTH_MAX,
      pattern: AGENT_ID_PATTERN.source,
      description: `Id of the agent that runs this entity's agent checks (letters, digits, dash and dot; at most ${AGENT_ID_LENGTH_MAX} characters), or null for none.`,
    },
    managed: { type: 'boolean', description: 'Whether the entity is managed by the provider rather than the tenant; false when left out.' },
    uri: {
      type: ['string', 'null'],
      minLength: 1,
      maxLength: URI_LENGTH_MAX,
      description: `URI of the resource the entity stands for, at most ${URI_LENGTH_MAX} characters, or null for none.`,
    },
  },
  examples: [
    { label: 'db-1', ip_addresses: { main: '192.0.2.10', v6: '2001:db8::10' }, metadata: { role: 'database' }, agent_id: 'db-1.example.com' },
    { label: 'www', uri: 'https://www.example.com/', managed: false },
  ],
};

/** The body of PUT /entities/{entityId}. */
export const ENTITY_UPDATE_SCHEMA: JsonSchema = updateSchemaOf(ENTITY_CREATE_SCHEMA, 'Changes to an entity: the fields given replace the stored ones; the others stay.');
