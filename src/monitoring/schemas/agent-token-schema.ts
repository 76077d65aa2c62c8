// Owns the JSON schemas of agent token create and update bodies and the body types they admit.
import { nullableLabelSchema } from './field-schemas.js';
import { updateSchemaOf, type JsonSchema } from './json-schema.js';

/** An agent token create body as AGENT_TOKEN_CREATE_SCHEMA admits it. */
export interface AgentTokenCreate {
  readonly label?: string | null;
}

/** An agent token update body: a label given replaces the stored one. */
export type AgentTokenUpdate = AgentTokenCreate;

/** The body of POST /agent_tokens. */
export const AGENT_TOKEN_CREATE_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'An agent token: the secret an agent presents to connect for this tenant; its value is derived, never sent.',
  properties: {
    label: nullableLabelSchema('Name of the token, such as the host its agent runs on, or null for none.'),
  },
  examples: [{ label: 'db-1.example.com' }, {}],
};

/** The body of PUT /agent_tokens/{tokenId}. */
export const AGENT_TOKEN_UPDATE_SCHEMA: JsonSchema = updateSchemaOf(AGENT_TOKEN_CREATE_SCHEMA, "Changes to an agent token's label.");
