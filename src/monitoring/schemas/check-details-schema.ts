// Owns the JSON schema of each check type's details: the remote checks' settings (http, tcp, ping, dns) and the agent checks' parameters.
import { REDACTED_SECRET } from '../detail-secrets.js';
import {
  AGENT_CHECK_TYPE_IDS,
  DNS_RECORD_TYPES,
  HTTP_METHODS,
  REMOTE_DNS,
  REMOTE_HTTP,
  REMOTE_PING,
  REMOTE_TCP,
  type AgentCheckTypeId,
  type CheckTypeId,
} from '../check-types.js';
import {
  CHECK_DETAIL_TEXT_LENGTH_MAX,
  CHECK_DETAILS_KEYS_MAX,
  DNS_CHECK_PORT_DEFAULT,
  DNS_QUERY_LENGTH_MAX,
  HTTP_CHECK_BODY_MATCHES_MAX,
  HTTP_CHECK_HEADERS_MAX,
  HTTP_CHECK_PAYLOAD_LENGTH_MAX,
  NETWORK_PORT_MAX,
  PING_CHECK_COUNT_DEFAULT,
  PING_CHECK_COUNT_MAX,
  PING_CHECK_COUNT_MIN,
  TCP_CHECK_PATTERN_LENGTH_MAX,
  TCP_CHECK_READ_BYTES_MAX,
  TCP_CHECK_SEND_BODY_LENGTH_MAX,
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

/** A TCP or UDP port number, 1 to NETWORK_PORT_MAX. */
function portSchema(description: string): JsonSchema {
  return { type: 'integer', minimum: 1, maximum: NETWORK_PORT_MAX, description };
}

/** A regular expression of a remote.tcp check (checked by compileSafePattern when the check is saved). */
function tcpPattern(description: string): JsonSchema {
  return { type: 'string', minLength: 1, maxLength: TCP_CHECK_PATTERN_LENGTH_MAX, description };
}

/** remote.tcp details: the port, and the optional banner, body and TLS of the exchange; the stored details fill ssl. */
const TCP_DETAILS: JsonSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['port'],
  description: 'Settings of a remote.tcp check: the port it connects to on the target, and what it reads and sends there.',
  properties: {
    port: portSchema(`Port the check connects to, 1 to ${NETWORK_PORT_MAX}.`),
    ssl: { type: 'boolean', description: 'Whether the connection speaks TLS once connected (the certificate is reported, not enforced); false when left out.' },
    banner_match: tcpPattern(
      `Regular expression, at most ${TCP_CHECK_PATTERN_LENGTH_MAX} characters, the first line the server sends (its banner, at most ${TCP_CHECK_READ_BYTES_MAX} bytes) is matched against; the matched text becomes the banner_match metric, and send_body is sent only when it matches.`,
    ),
    send_body: {
      type: 'string',
      minLength: 1,
      maxLength: TCP_CHECK_SEND_BODY_LENGTH_MAX,
      description: `Text sent once connected (after a matching banner when banner_match is given), at most ${TCP_CHECK_SEND_BODY_LENGTH_MAX} characters.`,
    },
    body_match: tcpPattern(
      `Regular expression, at most ${TCP_CHECK_PATTERN_LENGTH_MAX} characters, the server's reply (what follows the banner, at most ${TCP_CHECK_READ_BYTES_MAX} bytes) is matched against; the matched text becomes the body_match metric.`,
    ),
  },
};

/** remote.ping details: how many pings one run sends; the stored details fill count. */
const PING_DETAILS: JsonSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  description: 'Settings of a remote.ping check: it pings the target by ICMP where the zone may, else by TCP connects, and reports which.',
  properties: {
    count: {
      type: 'integer',
      minimum: PING_CHECK_COUNT_MIN,
      maximum: PING_CHECK_COUNT_MAX,
      description: `Pings sent in one run, ${PING_CHECK_COUNT_MIN} to ${PING_CHECK_COUNT_MAX}; ${PING_CHECK_COUNT_DEFAULT} when left out.`,
    },
  },
};

/**
 * A DNS name of labels of letters, digits, dashes and underscores (for SRV names such as
 * `_sip._tcp.example.com`), each 1 to 63 characters neither starting nor ending with a dash,
 * separated by dots, with an optional final dot.
 */
const DNS_NAME_PATTERN = '^[A-Za-z0-9_]([-A-Za-z0-9_]{0,61}[A-Za-z0-9_])?(\\.[A-Za-z0-9_]([-A-Za-z0-9_]{0,61}[A-Za-z0-9_])?)*\\.?$';

/** remote.dns details: the name asked and its record type; the target is the DNS server asked. The stored details fill record_type and port. */
const DNS_DETAILS: JsonSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['query'],
  description: "Settings of a remote.dns check: the question it asks the check's target, which is the DNS server being watched.",
  properties: {
    query: {
      type: 'string',
      minLength: 1,
      maxLength: DNS_QUERY_LENGTH_MAX,
      pattern: DNS_NAME_PATTERN,
      description: `Domain name the check asks the server about, at most ${DNS_QUERY_LENGTH_MAX} characters (for PTR, the in-addr.arpa or ip6.arpa name).`,
    },
    record_type: { type: 'string', enum: DNS_RECORD_TYPES, description: 'Record type asked for; A when left out.' },
    port: portSchema(`Port the DNS server answers on, 1 to ${NETWORK_PORT_MAX}; ${DNS_CHECK_PORT_DEFAULT} when left out.`),
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
  [REMOTE_TCP]: TCP_DETAILS,
  [REMOTE_PING]: PING_DETAILS,
  [REMOTE_DNS]: DNS_DETAILS,
  ...(Object.fromEntries(AGENT_CHECK_TYPE_IDS.map((type) => [type, agentDetails(type)])) as Record<AgentCheckTypeId, JsonSchema>),
};
