// Owns the rules of a check its schema cannot state: the type stays, timeout below period, remote targets and zones, and the stored doc.
import { assert } from '../core/assert.js';
import { detailsWithDefaults, isRemoteType, type CheckDetails, type CheckTypeId } from './check-types.js';
import { keep } from './body-merge.js';
import { fieldError } from './monitoring-errors.js';
import { CHECK_PERIOD_S_DEFAULT, CHECK_TIMEOUT_S_DEFAULT } from './monitoring-limits.js';
import { CHECK_DETAILS_SCHEMAS } from './schemas/check-details-schema.js';
import type { CheckCreate, CheckUpdate, TargetResolver } from './schemas/check-schema.js';
import type { Metadata } from './schemas/field-schemas.js';
import { firstRequired } from './schemas/json-schema.js';
import { tcpPatternsOf } from './probes/tcp-patterns.js';
import { checkBodyPatterns } from './probes/http-body-match.js';

/** The stored fields of a check (besides id, entity and times). */
export interface CheckDoc {
  readonly label: string | null;
  readonly type: CheckTypeId;
  readonly details: CheckDetails;
  readonly monitoring_zones_poll: readonly string[] | null;
  readonly target_alias: string | null;
  readonly target_hostname: string | null;
  readonly target_resolver: TargetResolver | null;
  readonly period: number;
  readonly timeout: number;
  readonly disabled: boolean;
  readonly metadata: Metadata | null;
}

/** What the check rules need besides the body: the configuration and the entity. */
export interface CheckContext {
  /** Ids of the configured monitoring zones. */
  readonly zoneIds: readonly string[];
  /** Names of the entity's ip_addresses (a target_alias must be one). */
  readonly addressNames: readonly string[];
}

/** The fields only remote checks take. */
const REMOTE_KEYS = ['monitoring_zones_poll', 'target_alias', 'target_hostname', 'target_resolver'] as const;

/**
 * Details as stored. Null or absent details are an empty object, which must satisfy the type's
 * details schema too (remote.http needs a url), so the first parameter it requires is named.
 */
function detailsOf(type: CheckTypeId, details: CheckDetails | null | undefined): CheckDetails {
  if (details === null || details === undefined) {
    const missing = firstRequired(CHECK_DETAILS_SCHEMAS[type]);
    if (missing !== undefined) throw fieldError(`details.${missing}`, 'is required');
    return detailsWithDefaults(type, {});
  }
  return detailsWithDefaults(type, details);
}

/** Zones a body gives must be configured ones (stored zones stay valid if the configuration changes later). */
function configuredZones(zones: readonly string[], context: CheckContext): readonly string[] {
  const unknown = zones.find((zone) => !context.zoneIds.includes(zone));
  if (unknown !== undefined) throw fieldError('monitoring_zones_poll', `unknown monitoring zone ${JSON.stringify(unknown)}`);
  return [...new Set(zones)];
}

/** A remote check needs zones and exactly one target; an alias must name one of the entity's addresses. */
function remoteRules(doc: CheckDoc, context: CheckContext): void {
  if (doc.monitoring_zones_poll === null) throw fieldError('monitoring_zones_poll', 'is required for remote checks');
  if ((doc.target_alias === null) === (doc.target_hostname === null)) throw fieldError('target_alias', 'remote checks need exactly one of target_alias or target_hostname');
  if (doc.target_alias !== null && !context.addressNames.includes(doc.target_alias)) throw fieldError('target_alias', 'must name one of the entity ip_addresses');
}

/**
 * The check a schema-valid body describes, with the rules its schema cannot state: on update the
 * type may not change and keys left out keep their stored value; the timeout stays below the
 * period; remote checks poll configured zones and target exactly one address; agent checks take
 * no remote fields. A create fills the defaults (period, timeout, details).
 */
export function checkDoc(input: CheckCreate, context: CheckContext): CheckDoc;
export function checkDoc(input: CheckUpdate, context: CheckContext, existing: CheckDoc): CheckDoc;
export function checkDoc(input: CheckUpdate, context: CheckContext, existing?: CheckDoc): CheckDoc {
  if (existing !== undefined && input.type !== undefined && input.type !== existing.type) throw fieldError('type', 'cannot be changed');
  const type = existing?.type ?? input.type;
  assert(type !== undefined, 'a check create body has a type (its schema requires one)');
  const period = keep(input.period, existing?.period ?? CHECK_PERIOD_S_DEFAULT);
  const timeout = keep(input.timeout, existing?.timeout ?? CHECK_TIMEOUT_S_DEFAULT);
  if (timeout >= period) throw fieldError('timeout', 'must be less than the period');
  const details = input.details !== undefined || existing === undefined ? detailsOf(type, input.details) : existing.details;
  // remote.tcp patterns run on every banner and reply: one that could backtrack catastrophically is refused here (400 naming the key).
  if (type === 'remote.tcp' && input.details !== undefined) tcpPatternsOf(details);
  // remote.http body and body_matches patterns run on every response body: likewise refused when saved.
  if (type === 'remote.http' && input.details !== undefined) checkBodyPatterns(details);
  const remote = isRemoteType(type);
  if (!remote) {
    for (const key of REMOTE_KEYS) if (input[key] !== undefined && input[key] !== null) throw fieldError(key, 'applies to remote checks only');
  }
  const given = input.monitoring_zones_poll;
  const zones = given === undefined || given === null ? given : configuredZones(given, context);
  const doc: CheckDoc = {
    label: keep(input.label, existing?.label ?? null),
    type,
    details,
    monitoring_zones_poll: remote ? keep(zones, existing?.monitoring_zones_poll ?? null) : null,
    target_alias: remote ? keep(input.target_alias, existing?.target_alias ?? null) : null,
    target_hostname: remote ? keep(input.target_hostname, existing?.target_hostname ?? null) : null,
    target_resolver: remote ? keep(input.target_resolver, existing?.target_resolver ?? null) : null,
    period,
    timeout,
    disabled: keep(input.disabled, existing?.disabled ?? false),
    metadata: keep(input.metadata, existing?.metadata ?? null),
  };
  if (remote) remoteRules(doc, context);
  return doc;
}
