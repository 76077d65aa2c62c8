// Owns the JSON schema of each check type's details: remote.http's request settings and the agent checks' parameters.
import { REDACTED_SECRET } from '../detail-secrets.js';
import { AGENT_CHECK_TYPE_IDS, HTTP_METHODS, REMOTE_HTTP, type AgentCheckTypeId, type CheckTypeId } from '../check-types.js';
import {
  CHECK_DETAIL_TEXT_LENGTH_MAX,
  CHECK_DETAILS_KEYS_MAX,
  HTTP_CHECK_BODY_MATCHES_MAX,
  HTTP_CHECK_HEADERS_MAX,
  HTTP_CHECK_PAYLOAD_LENGTH_MAX,
} from '../monitoring-limits.js';
import { httpUrlSchema } from './field-schemas.js';
import type { JsonSchema } from './json-schema.js';

/** A string of 1 to CHECK_DETAIL_TEXT_LENGTH_MAX characters. */
function detailText(description: string): JsonSchema {
  return { type: 'string', minLength: 1, maxLength: CHECK_DETAIL_TEXT_LENGTH_MAX, description };
}

/** How reads show a secret, and what sending that back does (docs/monitoring-api.md, "Check secrets"). */
const SECRET_NOTE = `Stored encrypted; reads show ${JSON.stringify(REDACTED_SECRET)}, and ${JSON.stringify(REDACTED_SECRET)} sent back in an update keeps the stored value.`;

/** A map of names to strings of at most CHECK_DETAIL_TEXT_LENGTH_MAX characters, at most `max` entries. */
function stringMap(max: number, description: string): JsonSchema {
  return {
    type: 'object',
    maxProperties: max,
    propertyNames: { minLength: 1, maxLength: CHECK_DETAIL_TEXT_LENGTH_MAX },
    additionalProperties: { type: 'string', maxLength: CHECK_DETAIL_TEXT_LENGTH_MAX },
    description,
  };
}

/** remote.http details: the request the check makes; the stored details fill method, follow_redirects and include_body. */
const HTTP_DETAILS: JsonSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['url'],
  description: 'Settings of a remote.http check: the request it makes from each monitoring zone.',
  properties: {
    url: httpUrlSchema(
      CHECK_DETAIL_TEXT_LENGTH_MAX,
      `Absolute http or https URL the check requests, at most ${CHECK_DETAIL_TEXT_LENGTH_MAX} characters, without a password (give it as auth_password).`,
    ),
    method: { type: 'string', enum: HTTP_METHODS, description: 'HTTP method of the request; GET when left out.' },
    follow_redirects: { type: 'boolean', description: 'Whether redirects are followed; true when left out.' },
    include_body: { type: 'boolean', description: 'Whether the response body is kept with the check result; false when left out.' },
    body: detailText('Regular expression the response body is matched against; the match becomes a metric.'),
    body_matches: stringMap(HTTP_CHECK_BODY_MATCHES_MAX, `Named regular expressions the response body is matched against, at most ${HTTP_CHECK_BODY_MATCHES_MAX}.`),
    headers: stringMap(
      HTTP_CHECK_HEADERS_MAX,
      `Request headers by name, at most ${HTTP_CHECK_HEADERS_MAX}. Values of credential headers (Authorization, Cookie, X-Auth-Token, X-Api-Key and the like): ${SECRET_NOTE}`,
    ),
    auth_user: detailText('User name for HTTP basic authentication.'),
    auth_password: detailText(`Password for HTTP basic authentication. ${SECRET_NOTE}`),
    payload: { type: 'string', maxLength: HTTP_CHECK_PAYLOAD_LENGTH_MAX, description: `Request body sent with the request, at most ${HTTP_CHECK_PAYLOAD_LENGTH_MAX} characters.` },
  },
};

/** One agent check parameter: a string of at most CHECK_DETAIL_TEXT_LENGTH_MAX characters, a number or a boolean. */
const AGENT_PARAMETER: JsonSchema = {
  anyOf: [{ type: 'string', maxLength: CHECK_DETAIL_TEXT_LENGTH_MAX }, { type: 'number' }, { type: 'boolean' }],
};

/** The parameters each agent check type requires, with what they mean; the agent passes any others to the check as given. */
const AGENT_REQUIRED: Readonly<Record<AgentCheckTypeId, Readonly<Record<string, string>>>> = {
  'agent.cpu': {},
  'agent.memory': {},
  'agent.load_average': {},
  'agent.disk': { target: 'Disk device to watch, such as /dev/sda1.' },
  'agent.filesystem': { target: 'Mount point of the file system to watch, such as /.' },
  'agent.network': { target: 'Network interface to watch, such as eth0.' },
  'agent.plugin': { file: "File name of the plugin script in the agent's plugin directory." },
  'agent.apache': { url: 'URL of the Apache server-status page.' },
  'agent.mysql': { username: 'MySQL user the agent logs in as.' },
  'agent.redis': { host: 'Host name or address of the Redis server.' },
};

function agentDetails(type: AgentCheckTypeId): JsonSchema {
  const required = AGENT_REQUIRED[type];
  return {
    type: ['object', 'null'],
    maxProperties: CHECK_DETAILS_KEYS_MAX,
    propertyNames: { minLength: 1, maxLength: CHECK_DETAIL_TEXT_LENGTH_MAX },
    additionalProperties: AGENT_PARAMETER,
    required: Object.keys(required),
    properties: Object.fromEntries(Object.entries(required).map(([name, description]) => [name, { ...AGENT_PARAMETER, description }])),
    description: `Parameters of an ${type} check, at most ${CHECK_DETAILS_KEYS_MAX}: strings of at most ${CHECK_DETAIL_TEXT_LENGTH_MAX} characters, numbers or booleans. String parameters named like credentials (password, token, secret, api_key): ${SECRET_NOTE}`,
  };
}

/** The details schema of every check type. */
export const CHECK_DETAILS_SCHEMAS: Readonly<Record<CheckTypeId, JsonSchema>> = {
  [REMOTE_HTTP]: HTTP_DETAILS,
  ...(Object.fromEntries(AGENT_CHECK_TYPE_IDS.map((type) => [type, agentDetails(type)])) as Record<AgentCheckTypeId, JsonSchema>),
};
