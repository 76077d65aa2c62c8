// Owns the check types Strata runs as /check_types lists them: category, fields read from the details schemas, metrics, platforms.
import { COLLECTED_CHECK_TYPES } from '../../agent/collectors/collector-registry.js';
import { CHECK_TYPE_IDS, isRemoteType, type CheckTypeId } from '../check-types.js';
import { defaultProbes } from '../probes/probe-registry.js';
import { CHECK_DETAILS_SCHEMAS } from '../schemas/check-details-schema.js';
import type { JsonSchema } from '../schemas/json-schema.js';
import { CHECK_TYPE_METRICS, type CheckTypeMetric } from './check-type-metrics.js';

/** One field of a check type's details as /check_types lists it. */
export interface CheckTypeField {
  readonly name: string;
  readonly description: string;
  readonly optional: boolean;
}

/** Whether a check runs from the monitoring zones or on the host through the agent. */
export type CheckCategory = 'remote' | 'agent';

/** A check type as /check_types shows it (the reference's shape, plus the metrics its runs produce). */
export interface CheckTypeInfo {
  readonly id: string;
  readonly type: CheckCategory;
  readonly category: CheckCategory;
  readonly fields: readonly CheckTypeField[];
  readonly metrics: readonly CheckTypeMetric[];
  /** Platforms the agent gathers the type on; agent types only (advisory, as in the reference). */
  readonly supported_platforms?: readonly string[];
}

/** The platforms this build's agent collectors read (/proc and /sys). */
const AGENT_PLATFORMS = ['Linux'] as const;

/**
 * The fields of a type's details, read from its details schema so the two cannot differ: every
 * property in the schema's order, optional unless the schema requires it.
 */
export function fieldsOf(schema: JsonSchema): CheckTypeField[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    description: property.description ?? '',
    optional: !required.has(name),
  }));
}

/** The check types this build runs: the remote types with a probe and the agent types with a collector. */
function runnableTypes(): CheckTypeId[] {
  const probes = defaultProbes();
  const collected: readonly string[] = COLLECTED_CHECK_TYPES;
  return CHECK_TYPE_IDS.filter((id) => probes.has(id) || collected.includes(id));
}

function infoOf(id: CheckTypeId): CheckTypeInfo {
  const category: CheckCategory = isRemoteType(id) ? 'remote' : 'agent';
  const base = { id, type: category, category, fields: fieldsOf(CHECK_DETAILS_SCHEMAS[id]), metrics: CHECK_TYPE_METRICS[id] ?? [] };
  return category === 'agent' ? { ...base, supported_platforms: AGENT_PLATFORMS } : base;
}

/** Every check type Strata runs, sorted by id as every list is. */
export const CHECK_TYPES: readonly CheckTypeInfo[] = runnableTypes()
  .sort()
  .map(infoOf);

/** Every check type Strata runs, sorted by id. */
export function checkTypes(): readonly CheckTypeInfo[] {
  return CHECK_TYPES;
}

/** One check type Strata runs; undefined for an unknown id and for a type Strata accepts but cannot run (agent.plugin, agent.apache, agent.mysql, agent.redis). */
export function checkType(id: string): CheckTypeInfo | undefined {
  return CHECK_TYPES.find((type) => type.id === id);
}
