// Owns the agent's configuration: the reference `key value` file format, endpoint lists, and flags merged over the file.
import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { configError } from '../../core/config-error.js';
import { isStrataError } from '../../core/errors.js';
import { isAgentId } from '../../monitoring/agent-rules.js';
import { AGENT_CONFIG_FILE_BYTES_MAX, AGENT_ENDPOINTS_MAX, AGENT_FIELD_LENGTH_MAX } from '../agent-limits.js';
import { isChannel } from '../update/update-store.js';

/** One endpoint the agent connects to. */
export interface EndpointAddress {
  readonly host: string;
  readonly port: number;
}

/** Port of an endpoint written without one (the reference agent's default). */
export const ENDPOINT_PORT_DEFAULT = 443;

/** Keys of the configuration file Strata reads: the reference agent's, then Strata's own. */
export const AGENT_CONFIG_KEYS = [
  'monitoring_token',
  'monitoring_id',
  'monitoring_endpoints',
  'certificate_path',
  'monitoring_guid',
  'monitoring_upgrade',
  'state_dir',
  'update_public_key',
  'update_channel',
] as const;
/** A key Strata reads. */
export type AgentConfigKey = (typeof AGENT_CONFIG_KEYS)[number];

/** Reference agent keys Strata accepts in a file and ignores (returned so the caller can log them): no SRV lookup, proxy or insecure mode. */
export const AGENT_CONFIG_KEYS_IGNORED = [
  'monitoring_query_endpoints',
  'monitoring_snet_region',
  'monitoring_proxy_url',
  'monitoring_insecure',
  'monitoring_debug',
  'monitoring_health',
] as const;

/** What a configuration file says. */
export interface AgentConfigFile {
  readonly values: Readonly<Partial<Record<AgentConfigKey, string>>>;
  /** Ignored reference keys present in the file, in file order. */
  readonly ignored: readonly string[];
}

const KNOWN = new Set<string>(AGENT_CONFIG_KEYS);
const IGNORED = new Set<string>(AGENT_CONFIG_KEYS_IGNORED);

/**
 * Parses the reference agent's configuration format (virgo_conf.c): one `key value` per line, the key up to the first
 * whitespace, the value the rest of the line with surrounding whitespace removed; lines whose first non-blank
 * character is `#` and blank lines are skipped; a later line for the same key wins, as in the reference. Unknown keys
 * are CONFIG_INVALID (a typo must not pass silently).
 */
export function parseAgentConfigFile(text: string): AgentConfigFile {
  if (Buffer.byteLength(text, 'utf8') > AGENT_CONFIG_FILE_BYTES_MAX) {
    throw configError('the agent configuration file', `at most ${AGENT_CONFIG_FILE_BYTES_MAX} bytes`, `${Buffer.byteLength(text, 'utf8')} bytes`);
  }
  const values: Partial<Record<AgentConfigKey, string>> = {};
  const ignored: string[] = [];
  const lines = text.split(/\r?\n|\r/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(line);
    const key = match?.[1] ?? '';
    const value = match?.[2] ?? '';
    if (KNOWN.has(key)) values[key as AgentConfigKey] = value;
    else if (IGNORED.has(key)) ignored.push(key);
    else throw configError(`line ${index + 1} of the agent configuration file`, `one of ${AGENT_CONFIG_KEYS.join(', ')}`, key);
  });
  return { values, ignored };
}

/** Writes values in the file format parseAgentConfigFile reads (for tests and `strata agent` documentation). */
export function formatAgentConfigFile(values: Readonly<Partial<Record<AgentConfigKey, string>>>): string {
  return AGENT_CONFIG_KEYS.filter((key) => values[key] !== undefined)
    .map((key) => `${key} ${values[key] as string}\n`)
    .join('');
}

/** Reads and parses a configuration file, refusing one larger than AGENT_CONFIG_FILE_BYTES_MAX before reading it. */
export function loadAgentConfigFile(path: string): AgentConfigFile {
  let text: string;
  try {
    const sizeBytes = statSync(path).size;
    if (sizeBytes > AGENT_CONFIG_FILE_BYTES_MAX) throw configError('--config', `a file of at most ${AGENT_CONFIG_FILE_BYTES_MAX} bytes`, `${path} (${sizeBytes} bytes)`);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (isStrataError(error)) throw error;
    throw configError('--config', 'a readable file', `${path} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  return parseAgentConfigFile(text);
}

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

function parsePort(text: string, option: string, entry: string): number {
  const port = Number(text);
  if (!/^\d{1,5}$/.test(text) || port < 1 || port > 65_535) throw configError(option, 'host:port entries with a port from 1 to 65535', entry);
  return port;
}

/** One `host:port` (`[v6]:port`; a host without port gets ENDPOINT_PORT_DEFAULT). */
export function parseEndpoint(entry: string, option = 'monitoring_endpoints'): EndpointAddress {
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
  if (bracketed) {
    const host = bracketed[1] as string;
    if (isIP(host) !== 6) throw configError(option, 'host:port entries ([v6 address]:port for IPv6)', entry);
    return { host, port: bracketed[2] === undefined ? ENDPOINT_PORT_DEFAULT : parsePort(bracketed[2], option, entry) };
  }
  const colon = entry.lastIndexOf(':');
  const host = colon === -1 ? entry : entry.slice(0, colon);
  if (host.includes(':') || (isIP(host) === 0 && !HOST_NAME.test(host))) throw configError(option, 'host:port entries with a host name or IP address', entry);
  return { host, port: colon === -1 ? ENDPOINT_PORT_DEFAULT : parsePort(entry.slice(colon + 1), option, entry) };
}

/** A comma-separated endpoint list: 1 to AGENT_ENDPOINTS_MAX distinct entries, blanks around commas allowed. */
export function parseEndpoints(text: string, option = 'monitoring_endpoints'): EndpointAddress[] {
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.length > AGENT_ENDPOINTS_MAX) throw configError(option, `at most ${AGENT_ENDPOINTS_MAX} endpoints`, `${entries.length} endpoints`);
  const endpoints = entries.map((entry) => parseEndpoint(entry, option));
  const seen = new Set<string>();
  for (const endpoint of endpoints) {
    const key = formatEndpoint(endpoint).toLowerCase();
    if (seen.has(key)) throw configError(option, 'distinct endpoints', formatEndpoint(endpoint));
    seen.add(key);
  }
  return endpoints;
}

/** `host:port`, brackets around an IPv6 host. */
export function formatEndpoint(endpoint: EndpointAddress): string {
  return `${isIP(endpoint.host) === 6 ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`;
}

/** The flags of `strata agent` (commander's values; undefined when not given). */
export interface AgentFlags {
  readonly token?: string;
  readonly id?: string;
  readonly endpoints?: string;
  readonly ca?: string;
  readonly stateDir?: string;
  readonly updateKey?: string;
  readonly updateChannel?: string;
}

/** The agent's settings, validated. */
export interface AgentConfig {
  readonly token: string;
  readonly agentId: string;
  readonly endpoints: readonly EndpointAddress[];
  /** Path of the PEM file holding the root certificate(s) the agent trusts. */
  readonly caPath: string;
  readonly stateDir: string;
  /** A guid fixed by configuration; undefined: the one persisted in the state directory. */
  readonly guid: string | undefined;
  /** Path of the update-signing public key; undefined: updates off. */
  readonly updateKeyPath: string | undefined;
  /** Update channel to download from; undefined: the one the endpoint names in its hello result. */
  readonly updateChannel: string | undefined;
}

/** Defaults that depend on the host: the agent id (its FQDN) and the state directory. */
export interface AgentConfigDefaults {
  readonly agentId: string;
  readonly stateDir: string;
}

const TOKEN = /^[\x21-\x7e]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function required(value: string | undefined, option: string, accepted: string): string {
  if (value === undefined || value === '') throw configError(option, accepted, value ?? 'nothing');
  return value;
}

/** Merges flags over the file (a flag wins) over the defaults and validates every value; throws CONFIG_INVALID naming the option. */
export function resolveAgentConfig(flags: AgentFlags, file: AgentConfigFile | undefined, defaults: AgentConfigDefaults): AgentConfig {
  const v = file?.values ?? {};
  const token = required(flags.token ?? v.monitoring_token, '--token (monitoring_token)', 'an agent token');
  if (token.length > AGENT_FIELD_LENGTH_MAX || !TOKEN.test(token)) throw configError('--token (monitoring_token)', `printable text without blanks, at most ${AGENT_FIELD_LENGTH_MAX} characters`, '(hidden)');
  const agentId = flags.id ?? v.monitoring_id ?? defaults.agentId;
  if (!isAgentId(agentId)) throw configError('--id (monitoring_id)', 'an agent id: letters, digits, dash and dot, at most 255 characters', agentId);
  const endpoints = parseEndpoints(required(flags.endpoints ?? v.monitoring_endpoints, '--endpoints (monitoring_endpoints)', 'host:port,...'), '--endpoints (monitoring_endpoints)');
  const caPath = required(flags.ca ?? v.certificate_path, '--ca (certificate_path)', 'the PEM file of the root certificate');
  const stateDir = required(flags.stateDir ?? v.state_dir ?? defaults.stateDir, '--state-dir (state_dir)', 'a directory');
  const guid = v.monitoring_guid;
  if (guid !== undefined && !UUID.test(guid)) throw configError('monitoring_guid', 'a UUID', guid);
  const upgrade = v.monitoring_upgrade;
  if (upgrade !== undefined && upgrade !== 'enabled' && upgrade !== 'disabled') throw configError('monitoring_upgrade', 'enabled or disabled', upgrade);
  const updateKeyPath = upgrade === 'disabled' ? undefined : (flags.updateKey ?? v.update_public_key);
  const updateChannel = flags.updateChannel ?? v.update_channel;
  if (updateChannel !== undefined && !isChannel(updateChannel)) throw configError('--update-channel (update_channel)', 'a channel name: a lowercase letter, then up to 31 lowercase letters, digits and dashes', updateChannel);
  return {
    token,
    agentId,
    endpoints,
    caPath,
    stateDir,
    guid: guid?.toLowerCase(),
    updateKeyPath: updateKeyPath === '' ? undefined : updateKeyPath,
    updateChannel,
  };
}
