// Owns the table of every monitoring body schema, by kind of object and operation, for the routes to attach.
import { AGENT_TOKEN_CREATE_SCHEMA, AGENT_TOKEN_UPDATE_SCHEMA } from './agent-token-schema.js';
import { ALARM_CREATE_SCHEMA, ALARM_UPDATE_SCHEMA } from './alarm-schema.js';
import { CHECK_CREATE_SCHEMA, CHECK_UPDATE_SCHEMA } from './check-schema.js';
import { ENTITY_CREATE_SCHEMA, ENTITY_UPDATE_SCHEMA } from './entity-schema.js';
import type { BodySchemas } from './json-schema.js';
import { NOTIFICATION_CREATE_SCHEMA, NOTIFICATION_UPDATE_SCHEMA } from './notification-schema.js';
import { PLAN_CREATE_SCHEMA, PLAN_UPDATE_SCHEMA } from './plan-schema.js';

/** The kinds of monitoring object a client creates and updates with a JSON body. */
export type MonitoringBodyKind = 'entity' | 'check' | 'alarm' | 'notification' | 'plan' | 'agentToken';

/** The create (POST) and update (PUT) body schema of each kind; a failed validation maps with schemaFieldError. */
export const MONITORING_BODY_SCHEMAS: Readonly<Record<MonitoringBodyKind, BodySchemas>> = {
  entity: { create: ENTITY_CREATE_SCHEMA, update: ENTITY_UPDATE_SCHEMA },
  check: { create: CHECK_CREATE_SCHEMA, update: CHECK_UPDATE_SCHEMA },
  alarm: { create: ALARM_CREATE_SCHEMA, update: ALARM_UPDATE_SCHEMA },
  notification: { create: NOTIFICATION_CREATE_SCHEMA, update: NOTIFICATION_UPDATE_SCHEMA },
  plan: { create: PLAN_CREATE_SCHEMA, update: PLAN_UPDATE_SCHEMA },
  agentToken: { create: AGENT_TOKEN_CREATE_SCHEMA, update: AGENT_TOKEN_UPDATE_SCHEMA },
};
