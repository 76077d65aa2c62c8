// Owns the fields of a check and their validation: type, details, zones, target, period and timeout.
import { fieldError } from './monitoring-errors.js';
import {
  CHECK_PERIOD_S_DEFAULT,
  CHECK_PERIOD_S_MAX,
  CHECK_PERIOD_S_MIN,
  CHECK_TIMEOUT_S_DEFAULT,
  CHECK_TIMEOUT_S_MIN,
  CHECK_TYPE_LENGTH_MAX,
  LABEL_LENGTH_MAX,
} from './monitoring-limits.js';
import { bodyObject, bool, integer, label, metadata, onlyKeys, present, required, text, type JsonObject } from './field-rules.js';
import { checkDetails, isKnownType, isRemoteType } from './check-types.js';

/** The stored fields of a check (besides id, entity and times). */
export interface CheckDoc {
  readonly label: string | null;
  readonly type: string;
  readonly details: JsonObject;
  readonly monitoring_zones_poll: readonly string[] | null;
  readonly target_alias: string | null;
  readonly target_hostname: string | null;
  readonly target_resolver: 'IPv4' | 'IPv6' | null;
  readonly period: number;
  readonly timeout: number;
  readonly disabled: boolean;
  readonly metadata: Readonly<Record<string, string>> | null;
}

/** What validating a check needs to know besides its body. */
export interface CheckContext {
  /** Ids of the configured monitoring zones. */
  readonly zoneIds: readonly string[];
  /** Names of the entity's ip_addresses (a target_alias must be one). */
  readonly addressNames: readonly string[];
}

const KEYS = ['label', 'type', 'details', 'monitoring_zones_poll', 'target_alias', 'target_hostname', 'target_resolver', 'period', 'timeout', 'disabled', 'metadata'];
const HOSTNAME_PATTERN = /^[A-Za-z0-9]([-A-Za-z0-9.:]{0,253}[A-Za-z0-9])?$/;

function zones(value: unknown, context: CheckContext): readonly string[] {
  if (!Array.isArray(value) || value.length === 0) throw fieldError('monitoring_zones_poll', 'must be a non-empty array of monitoring zone ids');
  for (const zone of value) {
    if (typeof zone !== 'string' || !context.zoneIds.includes(zone)) throw fieldError('monitoring_zones_poll', `unknown monitoring zone ${JSON.stringify(zone)}`);
  }
  return [...new Set(value as string[])];
}

function nullable<T>(value: unknown, parse: (v: unknown) => T): T | null {
  return value === null || value === undefined ? null : parse(value);
}

/** Checks the remote-only rules: zones to poll from and exactly one of target_alias or target_hostname. */
function remoteRules(doc: CheckDoc, context: CheckContext): void {
  if (doc.monitoring_zones_poll === null) throw fieldError('monitoring_zones_poll', 'is required for remote checks');
  if ((doc.target_alias === null) === (doc.target_hostname === null)) throw fieldError('target_alias', 'remote checks need exactly one of target_alias or target_hostname');
  if (doc.target_alias !== null && !context.addressNames.includes(doc.target_alias)) throw fieldError('target_alias', 'must name one of the entity ip_addresses');
}

/** Validates a check body; with `existing`, an update (type may not change) keeping fields the body leaves out. */
export function parseCheck(raw: unknown, context: CheckContext, existing?: CheckDoc): CheckDoc {
  const body = bodyObject(raw);
  onlyKeys(body, KEYS);
  const type = existing === undefined ? text('type', required(body, 'type'), 1, CHECK_TYPE_LENGTH_MAX) : existing.type;
  if (existing !== undefined && present(body, 'type') !== undefined && body['type'] !== existing.type) throw fieldError('type', 'cannot be changed');
  if (!isKnownType(type)) throw fieldError('type', `unknown check type ${JSON.stringify(type)}`);
  const pick = <T>(key: string, parse: (v: unknown) => T, fallback: T): T => {
    const value = present(body, key);
    return value === undefined ? fallback : parse(value);
  };
  const remote = isRemoteType(type);
  const period = pick('period', (v) => integer('period', v, CHECK_PERIOD_S_MIN, CHECK_PERIOD_S_MAX), existing?.period ?? CHECK_PERIOD_S_DEFAULT);
  const timeout = pick('timeout', (v) => integer('timeout', v, CHECK_TIMEOUT_S_MIN, CHECK_PERIOD_S_MAX), existing?.timeout ?? CHECK_TIMEOUT_S_DEFAULT);
  if (timeout >= period) throw fieldError('timeout', 'must be less than the period');
  const doc: CheckDoc = {
    label: pick('label', (v) => nullable(v, (l) => label(l)), existing?.label ?? null),
    type,
    // Details are validated whenever given, and on create even when absent (remote.http needs a url).
    details: present(body, 'details') !== undefined || existing === undefined ? checkDetails(type, present(body, 'details')) : existing.details,
    monitoring_zones_poll: remote ? pick('monitoring_zones_poll', (v) => zones(v, context), existing?.monitoring_zones_poll ?? null) : null,
    target_alias: remote ? pick('target_alias', (v) => nullable(v, (a) => text('target_alias', a, 1, LABEL_LENGTH_MAX)), existing?.target_alias ?? null) : null,
    target_hostname: remote
      ? pick('target_hostname', (v) => nullable(v, (h) => matchHost(h)), existing?.target_hostname ?? null)
      : null,
    target_resolver: remote ? pick('target_resolver', (v) => nullable(v, resolver), existing?.target_resolver ?? null) : null,
    period,
    timeout,
    disabled: pick('disabled', (v) => bool('disabled', v), existing?.disabled ?? false),
    metadata: pick('metadata', metadata, existing?.metadata ?? null),
  };
  if (!remote) {
    for (const key of ['monitoring_zones_poll', 'target_alias', 'target_hostname', 'target_resolver']) {
      if (present(body, key) !== undefined && body[key] !== null) throw fieldError(key, 'applies to remote checks only');
    }
  } else remoteRules(doc, context);
  return doc;
}

function matchHost(value: unknown): string {
  const host = text('target_hostname', value, 1, 255);
  if (!HOSTNAME_PATTERN.test(host)) throw fieldError('target_hostname', 'must be a hostname or IP address');
  return host;
}

function resolver(value: unknown): 'IPv4' | 'IPv6' {
  if (value !== 'IPv4' && value !== 'IPv6') throw fieldError('target_resolver', 'must be IPv4 or IPv6');
  return value;
}
