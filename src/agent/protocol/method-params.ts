// Owns validating the params of each agent→endpoint method, and the endpoint's results the agent reads, into their typed shapes.
import { StrataError, type ErrorCode } from '../../core/errors.js';
import { isAgentId } from '../../monitoring/agent-rules.js';
import {
  AGENT_CHECK_PERIOD_S_MAX,
  AGENT_FEATURES_MAX,
  AGENT_FIELD_LENGTH_MAX,
  AGENT_HEARTBEAT_INTERVAL_MS_MAX,
  AGENT_HEARTBEAT_INTERVAL_MS_MIN,
  AGENT_POST_DIMENSIONS_MAX,
  AGENT_SCHEDULE_CHECKS_MAX,
} from '../agent-limits.js';
import { HOST_INFO_WIRE_ITEMS_MAX, HOST_INFO_WIRE_TYPES_MAX } from '../host-info/host-info-limits.js';
import {
  HOST_INFO_OBJECT_TYPES,
  HOST_INFO_TYPES,
  WIRE_METRIC_TYPES,
  type AgentFeature,
  type HeartbeatParams,
  type HelloParams,
  type HelloResult,
  type HostInfoParams,
  type HostInfoResult,
  type HostInfoTruncation,
  type HostInfoType,
  type HostInfoTypesResult,
  type MetricsPostParams,
  type ScheduledCheck,
  type ScheduleResult,
  type WireDimension,
  type WireMetric,
  type WireMetricType,
} from './messages.js';

/** Unit of a posted metric that gives none (the reference agent leaves `u` out of unitless metrics). */
const UNIT_WHEN_MISSING = 'unknown';
/** Channel of a handshake result that names none (the reference's fixture endpoints send no channel). */
const CHANNEL_WHEN_MISSING = 'stable';

type Fields = Readonly<Record<string, unknown>>;

function refuse(field: string, message: string, code: ErrorCode = 'AGENT_PARAMS_INVALID'): never {
  throw new StrataError(code, `${field}: ${message}`, { field });
}

function objectAt(value: unknown, field: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse(field, 'must be an object');
  return value as Fields;
}

function arrayAt(value: unknown, field: string, lengthMax: number): readonly unknown[] {
  if (!Array.isArray(value)) refuse(field, 'must be an array');
  if (value.length > lengthMax) refuse(field, `must hold at most ${lengthMax} entries`);
  return value;
}

function stringAt(value: unknown, field: string, nonEmpty = false): string {
  if (typeof value !== 'string') refuse(field, 'must be a string');
  if (value.length > AGENT_FIELD_LENGTH_MAX) refuse(field, `must be at most ${AGENT_FIELD_LENGTH_MAX} characters`);
  if (nonEmpty && value.length === 0) refuse(field, 'must not be empty');
  return value;
}

function safeIntegerAt(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) refuse(field, 'must be an integer number of milliseconds');
  return value;
}

/** Seconds of a check's period or timeout: a finite number from `min` to `max`. */
function secondsAt(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) refuse(field, `must be a number of seconds from ${min} to ${max}`);
  return value;
}

function positiveNumberAt(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) refuse(field, 'must be a positive number');
  return value;
}

function featuresAt(value: unknown): readonly AgentFeature[] {
  if (value === undefined || value === null) return [];
  return arrayAt(value, 'features', AGENT_FEATURES_MAX).map((entry, index) => {
    const feature = objectAt(entry, `features[${index}]`);
    return { name: stringAt(feature.name, `features[${index}].name`), version: stringAt(feature.version, `features[${index}].version`) };
  });
}

/** handshake.hello params; throws AGENT_PARAMS_INVALID {field}, or AGENT_TOKEN_INVALID for an agent_id that is not a valid agent id; features may be left out (none). */
export function helloParams(params: unknown): HelloParams {
  const o = objectAt(params, 'params');
  const token = stringAt(o.token, 'token', true);
  const agentId = stringAt(o.agent_id, 'agent_id');
  if (!isAgentId(agentId)) refuse('agent_id', 'must be 1 to 255 letters, digits, dashes and dots', 'AGENT_TOKEN_INVALID');
  return {
    token,
    agent_id: agentId,
    agent_name: stringAt(o.agent_name, 'agent_name'),
    process_version: stringAt(o.process_version, 'process_version'),
    bundle_version: stringAt(o.bundle_version, 'bundle_version'),
    features: featuresAt(o.features),
  };
}

/** heartbeat.post params: the agent's clock as a safe integer of ms. */
export function heartbeatParams(params: unknown): HeartbeatParams {
  return { timestamp: safeIntegerAt(objectAt(params, 'params').timestamp, 'timestamp') };
}

function isWireType(value: unknown): value is WireMetricType {
  return typeof value === 'string' && (WIRE_METRIC_TYPES as readonly string[]).includes(value);
}

function wireMetricAt(value: unknown, field: string): WireMetric {
  const o = objectAt(value, field);
  if (!isWireType(o.t)) refuse(`${field}.t`, `must be one of ${WIRE_METRIC_TYPES.join(', ')}`);
  // The reference agent sends every value as a string; a JSON number is taken as its text.
  const v = typeof o.v === 'number' && Number.isFinite(o.v) ? String(o.v) : stringAt(o.v, `${field}.v`);
  const u = o.u === undefined || o.u === null ? UNIT_WHEN_MISSING : stringAt(o.u, `${field}.u`);
  return { t: o.t, v, u };
}

/** One `[dimension, {name: metric}]` entry: the dimension null or a non-empty string. */
function dimensionAt(value: unknown, field: string): WireDimension {
  const pair = arrayAt(value, field, 2);
  if (pair.length !== 2) refuse(field, 'must be a [dimension, metrics] pair');
  const dimension = pair[0] === null ? null : stringAt(pair[0], `${field}[0]`, true);
  const entries = Object.entries(objectAt(pair[1], `${field}[1]`));
  const metrics = entries.map(([name, metric]): [string, WireMetric] => [name, wireMetricAt(metric, `${field}[1].${name}`)]);
  // fromEntries defines own properties, so a metric named __proto__ stays a metric.
  return [dimension, Object.fromEntries(metrics)];
}

/**
 * check_metrics.post params: state available|unavailable, timestamp a safe integer of ms, metrics at most AGENT_POST_DIMENSIONS_MAX `[string|null, {name: {t, v, u}}]` pairs (`u` left out: 'unknown').
 * This owns the shape (a dimension is null or a non-empty string); the metric names and their count
 * (AGENT_POST_METRICS_MAX) are flattenMetrics' rules (wire-metrics.ts), which the endpoint applies next.
 */
export function metricsPostParams(params: unknown): MetricsPostParams {
  const o = objectAt(params, 'params');
  const checkId = stringAt(o.check_id, 'check_id', true);
  const checkType = stringAt(o.check_type, 'check_type', true);
  const state = o.state;
  if (state !== 'available' && state !== 'unavailable') refuse('state', 'must be available or unavailable');
  const status = stringAt(o.status, 'status');
  const timestamp = safeIntegerAt(o.timestamp, 'timestamp');
  const metrics = arrayAt(o.metrics, 'metrics', AGENT_POST_DIMENSIONS_MAX).map((entry, index) => dimensionAt(entry, `metrics[${index}]`));
  const base: MetricsPostParams = { check_id: checkId, check_type: checkType, state, status, metrics, timestamp };
  if (o.min_check_period === undefined || o.min_check_period === null) return base;
  return { ...base, min_check_period: positiveNumberAt(o.min_check_period, 'min_check_period') };
}

function scheduledCheckAt(value: unknown, field: string): ScheduledCheck {
  const o = objectAt(value, field);
  const details = o.details === undefined || o.details === null ? {} : objectAt(o.details, `${field}.details`);
  if (o.disabled !== undefined && typeof o.disabled !== 'boolean') refuse(`${field}.disabled`, 'must be a boolean');
  const id = stringAt(o.id, `${field}.id`, true);
  const type = stringAt(o.type, `${field}.type`, true);
  const period = secondsAt(o.period, `${field}.period`, 1, AGENT_CHECK_PERIOD_S_MAX);
  const timeout = secondsAt(o.timeout, `${field}.timeout`, 1, period);
  return { id, type, details, period, timeout, disabled: o.disabled === true };
}

/**
 * The check_schedule.get result the agent reads: at most AGENT_SCHEDULE_CHECKS_MAX checks (details left out: {}, disabled left out: false).
 * Each check's period is 1 to AGENT_CHECK_PERIOD_S_MAX seconds and its timeout 1 second to its period: one check out
 * of range refuses the whole answer (AGENT_PARAMS_INVALID naming the field), so the agent keeps the schedule it runs
 * rather than arm a timer setTimeout cannot hold (beyond 2^31 ms it fires at once).
 */
export function scheduleResult(result: unknown): ScheduleResult {
  const o = objectAt(result, 'result');
  return { checks: arrayAt(o.checks, 'checks', AGENT_SCHEDULE_CHECKS_MAX).map((entry, index) => scheduledCheckAt(entry, `checks[${index}]`)) };
}

/** The handshake.hello result the agent reads: heartbeat_interval an integer of ms within the agent's bounds; entity_id and channel may be left out (null, 'stable'). */
export function helloResult(result: unknown): HelloResult {
  const o = objectAt(result, 'result');
  const interval = safeIntegerAt(o.heartbeat_interval, 'heartbeat_interval');
  if (interval < AGENT_HEARTBEAT_INTERVAL_MS_MIN || interval > AGENT_HEARTBEAT_INTERVAL_MS_MAX) {
    refuse('heartbeat_interval', `must be between ${AGENT_HEARTBEAT_INTERVAL_MS_MIN} and ${AGENT_HEARTBEAT_INTERVAL_MS_MAX} ms`);
  }
  const entityId = o.entity_id === undefined || o.entity_id === null ? null : stringAt(o.entity_id, 'entity_id', true);
  const channel = o.channel === undefined || o.channel === null ? CHANNEL_WHEN_MISSING : stringAt(o.channel, 'channel', true);
  return { heartbeat_interval: interval, entity_id: entityId, channel };
}

/** True for a host information type the agent reads. */
export function isHostInfoType(value: unknown): value is HostInfoType {
  return typeof value === 'string' && (HOST_INFO_TYPES as readonly string[]).includes(value);
}

/** host_info.get params the agent reads: `{type}`, one of HOST_INFO_TYPES (AGENT_PARAMS_INVALID naming `type` otherwise). */
export function hostInfoParams(params: unknown): HostInfoParams {
  const type = objectAt(params, 'params').type;
  if (!isHostInfoType(type)) refuse('type', `must be one of ${HOST_INFO_TYPES.join(', ')}`);
  return { type };
}

function truncationAt(value: unknown): HostInfoTruncation | null {
  if (value === undefined || value === null) return null;
  const o = objectAt(value, 'truncated');
  const listed = safeIntegerAt(o.listed, 'truncated.listed');
  const total = safeIntegerAt(o.total, 'truncated.total');
  if (listed < 0 || total < listed) refuse('truncated', 'must have 0 <= listed <= total');
  return { listed, total };
}

/** The metrics of a result: an object for memory and system, a list of objects otherwise; anything when the agent reported an error (then read as empty). */
function hostMetricsAt(value: unknown, type: HostInfoType, failed: boolean): HostInfoResult['metrics'] {
  const isObject = HOST_INFO_OBJECT_TYPES.includes(type);
  if (failed && (isObject ? typeof value !== 'object' || value === null || Array.isArray(value) : !Array.isArray(value))) return isObject ? {} : [];
  if (isObject) return objectAt(value, 'metrics');
  return arrayAt(value, 'metrics', HOST_INFO_WIRE_ITEMS_MAX).map((item, index) => objectAt(item, `metrics[${index}]`));
}

/**
 * The host_info.get result the endpoint reads for `type`: `{timestamp, metrics, error, truncated}` (the reference agent's
 * shape; truncated may be left out). Item fields are not checked one by one: they go to the API client as the agent sent them.
 */
export function hostInfoResult(result: unknown, type: HostInfoType): HostInfoResult {
  const o = objectAt(result, 'result');
  const timestamp = safeIntegerAt(o.timestamp, 'timestamp');
  const error = o.error === undefined || o.error === null ? null : stringAt(o.error, 'error');
  return { timestamp, metrics: hostMetricsAt(o.metrics, type, error !== null), error, truncated: truncationAt(o.truncated) };
}

/** The host_info_types.get result the endpoint reads: `{types}`, at most HOST_INFO_WIRE_TYPES_MAX names. */
export function hostInfoTypesResult(result: unknown): HostInfoTypesResult {
  const types = arrayAt(objectAt(result, 'result').types, 'types', HOST_INFO_WIRE_TYPES_MAX);
  return { types: types.map((type, index) => stringAt(type, `types[${index}]`, true)) };
}
