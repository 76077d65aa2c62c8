// Owns the shapes of the agent protocol (reference api-anchors §3): the message envelope and each method's params and result.

/** The protocol version every message carries; a response must repeat its request's. */
export const PROTOCOL_VERSION = '1';
/** The `source`/`target` name of the endpoint side. */
export const ENDPOINT_NAME = 'endpoint';

/** Methods the agent calls on the endpoint. */
export const AGENT_TO_ENDPOINT_METHODS = [
  'handshake.hello',
  'heartbeat.post',
  'check_schedule.get',
  'check_metrics.post',
  'config_file.post',
  'binary_upgrade.get_version',
  'bundle_upgrade.get_version',
] as const;
/** Methods the endpoint calls on the agent. */
export const ENDPOINT_TO_AGENT_METHODS = ['check_schedule.changed', 'upgrade.request', 'host_info.get', 'host_info_types.get'] as const;
/** A method the agent calls. */
export type AgentMethod = (typeof AGENT_TO_ENDPOINT_METHODS)[number];
/** A method the endpoint calls. */
export type EndpointMethod = (typeof ENDPOINT_TO_AGENT_METHODS)[number];

/** A message id: a number in the fixtures, a string in the Lua agent; both are accepted and echoed as given. */
export type MessageId = number | string;

/** The error object of a failed response: `code` is the HTTP-style status of the error's kind (400 keeps the connection). */
export interface ProtocolErrorBody {
  readonly code: number;
  readonly message: string;
  /** The Strata error code (AGENT_...), or the reference's type name. */
  readonly type?: string;
}

/** A request: `{v, id, source, target, method, params}`. */
export interface RequestMessage {
  readonly v: string;
  readonly id: MessageId;
  readonly source: string;
  readonly target: string;
  readonly method: string;
  readonly params: unknown;
}

/** A response: `{v, id, source, target, result, error}`; exactly one of result and error is non-null. The id is null only in the error answer to a line that had no readable id. */
export interface ResponseMessage {
  readonly v: string;
  readonly id: MessageId | null;
  readonly source: string;
  readonly target: string;
  readonly result: unknown;
  readonly error: ProtocolErrorBody | null;
}

/** Either kind of message. */
export type ProtocolMessage = RequestMessage | ResponseMessage;

/** One feature the agent announces in its handshake. */
export interface AgentFeature {
  readonly name: string;
  readonly version: string;
}

/** handshake.hello params. */
export interface HelloParams {
  readonly token: string;
  readonly agent_id: string;
  readonly agent_name: string;
  readonly process_version: string;
  readonly bundle_version: string;
  readonly features: readonly AgentFeature[];
}

/** handshake.hello result: heartbeat interval in ms; entity_id null when no entity names this agent. */
export interface HelloResult {
  readonly heartbeat_interval: number;
  readonly entity_id: string | null;
  /** The update channel the agent follows (`stable`). */
  readonly channel: string;
}

/** heartbeat.post params and result: the sender's clock, ms. */
export interface HeartbeatParams {
  readonly timestamp: number;
}

/** One agent check as check_schedule.get lists it (period and timeout in seconds, as the API shows them). */
export interface ScheduledCheck {
  readonly id: string;
  readonly type: string;
  readonly details: Readonly<Record<string, unknown>>;
  readonly period: number;
  readonly timeout: number;
  readonly disabled: boolean;
}

/** check_schedule.get result. */
export interface ScheduleResult {
  readonly checks: readonly ScheduledCheck[];
}

/** The metric value types of check_metrics.post (`v` is always a string; int64/uint64/gauge may be `0x` hex). */
export const WIRE_METRIC_TYPES = ['string', 'gauge', 'int32', 'uint32', 'int64', 'uint64', 'double', 'bool'] as const;
/** A metric value type on the wire. */
export type WireMetricType = (typeof WIRE_METRIC_TYPES)[number];

/** One metric on the wire: type, value as a string, unit. */
export interface WireMetric {
  readonly t: WireMetricType;
  readonly v: string;
  readonly u: string;
}

/** One dimension's metrics: `[dimension or null, {name: metric}]`. */
export type WireDimension = readonly [string | null, Readonly<Record<string, WireMetric>>];

/** check_metrics.post params. */
export interface MetricsPostParams {
  readonly check_id: string;
  readonly check_type: string;
  readonly state: 'available' | 'unavailable';
  readonly status: string;
  readonly metrics: readonly WireDimension[];
  /** When the check ran, ms (the agent's clock). */
  readonly timestamp: number;
  readonly min_check_period?: number;
}

/** binary_upgrade.get_version / bundle_upgrade.get_version result. */
export interface VersionResult {
  /** The newest published version of the channel, or null when none is published. */
  readonly version: string | null;
}

/** The host information types the agent reads and the API serves (the reference's list without nil, date and sysctl). */
export const HOST_INFO_TYPES = ['cpus', 'disks', 'filesystems', 'memory', 'network_interfaces', 'processes', 'system', 'who'] as const;
/** One host information type. */
export type HostInfoType = (typeof HOST_INFO_TYPES)[number];
/** The types whose information is one object (the others are lists). */
export const HOST_INFO_OBJECT_TYPES: readonly HostInfoType[] = ['memory', 'system'];

/** host_info.get params (endpoint → agent). */
export interface HostInfoParams {
  readonly type: HostInfoType;
}

/** How a list was cut to fit its bounds: `listed` items of `total` found. */
export interface HostInfoTruncation {
  readonly listed: number;
  readonly total: number;
}

/**
 * host_info.get result, the reference agent's `{error, metrics, timestamp}` (its HostInfo serialize) plus `truncated`:
 * `metrics` is a list of objects, or one object for memory and system; `error` null unless the read failed.
 */
export interface HostInfoResult {
  /** When the agent read it, ms (the agent's clock). */
  readonly timestamp: number;
  readonly metrics: readonly Readonly<Record<string, unknown>>[] | Readonly<Record<string, unknown>>;
  readonly error: string | null;
  /** Null unless the list was cut (at its item bound, or to fit a protocol line). */
  readonly truncated: HostInfoTruncation | null;
}

/** host_info_types.get result. */
export interface HostInfoTypesResult {
  readonly types: readonly string[];
}
