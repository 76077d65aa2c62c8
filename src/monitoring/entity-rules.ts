// Owns the fields of an entity and their validation on create (all rules) and update (changed fields only).
import { isIP } from 'node:net';
import { fieldError } from './monitoring-errors.js';
import { IP_ADDRESSES_MAX, METADATA_TEXT_LENGTH_MAX, URI_LENGTH_MAX } from './monitoring-limits.js';
import { bodyObject, bool, isObject, label, matching, metadata, onlyKeys, present, required, text } from './field-rules.js';
import { AGENT_ID_PATTERN } from './agent-rules.js';

/** The stored fields of an entity (besides id and times). */
export interface EntityDoc {
  readonly label: string;
  readonly ip_addresses: Readonly<Record<string, string>>;
  readonly metadata: Readonly<Record<string, string>> | null;
  readonly agent_id: string | null;
  readonly managed: boolean;
  readonly uri: string | null;
}

const KEYS = ['label', 'ip_addresses', 'metadata', 'agent_id', 'managed', 'uri'];

function ipAddresses(value: unknown): Readonly<Record<string, string>> {
  if (value === null) return {};
  if (!isObject(value)) throw fieldError('ip_addresses', 'must be an object of name to IP address');
  const entries = Object.entries(value);
  if (entries.length > IP_ADDRESSES_MAX) throw fieldError('ip_addresses', `must have at most ${IP_ADDRESSES_MAX} entries`);
  for (const [name, address] of entries) {
    if (name.length < 1 || name.length > METADATA_TEXT_LENGTH_MAX) throw fieldError('ip_addresses', `names must be 1 to ${METADATA_TEXT_LENGTH_MAX} characters`);
    if (typeof address !== 'string' || isIP(address) === 0) throw fieldError('ip_addresses', `'${name}' must be an IPv4 or IPv6 address`);
  }
  return value as Record<string, string>;
}

function orNull<T>(value: unknown, parse: (v: unknown) => T): T | null {
  return value === null ? null : parse(value);
}

/** Validates an entity body; with `existing`, an update that keeps the fields the body leaves out. */
export function parseEntity(raw: unknown, existing?: EntityDoc): EntityDoc {
  const body = bodyObject(raw);
  onlyKeys(body, KEYS);
  const pick = <T>(key: string, parse: (v: unknown) => T, fallback: T): T => {
    const value = present(body, key);
    return value === undefined ? fallback : parse(value);
  };
  return {
    label: existing === undefined ? label(required(body, 'label')) : pick('label', (v) => label(v), existing.label),
    ip_addresses: pick('ip_addresses', ipAddresses, existing?.ip_addresses ?? {}),
    metadata: pick('metadata', metadata, existing?.metadata ?? null),
    agent_id: pick('agent_id', (v) => orNull(v, (id) => matching('agent_id', id, AGENT_ID_PATTERN, 'letters, digits, dash or dot', 255)), existing?.agent_id ?? null),
    managed: pick('managed', (v) => bool('managed', v), existing?.managed ?? false),
    uri: pick('uri', (v) => orNull(v, (u) => text('uri', u, 1, URI_LENGTH_MAX)), existing?.uri ?? null),
  };
}
