// Owns the endpoint's handlers of the methods a handshaken agent calls: schedule, metrics, config files and update versions, and the rules a metrics post must pass.
import type { Clock } from '../../core/clock.js';
import { StrataError } from '../../core/errors.js';
import type { CheckResult } from '../../monitoring/check-result.js';
import type { MetricsPostParams, ScheduledCheck, ScheduleResult, VersionResult } from '../protocol/messages.js';
import { metricsPostParams } from '../protocol/method-params.js';
import { flattenMetrics } from '../protocol/wire-metrics.js';
import type { AgentBackend, AgentCheck } from './agent-backend.js';

/** Counters the handlers and sessions add to (the endpoint's stats read them). */
export interface SessionCounters {
  /** Handshakes that succeeded. */
  hellos: number;
  /** Connections refused: over a connection limit or with an invalid token. */
  refused: number;
  heartbeats: number;
  /** check_metrics.post requests accepted. */
  metricPosts: number;
  /** Metrics in accepted posts. */
  metricsAccepted: number;
  /** check_schedule.changed requests sent. */
  schedulePushes: number;
  /** Requests answered with an error object by the endpoint's handlers. */
  protocolErrors: number;
}

/** What the handlers of one handshaken connection see. */
export interface MethodContext {
  readonly backend: AgentBackend;
  readonly clock: Clock;
  /** The zone of the listener the agent connected to: the monitoringZoneId of its results. */
  readonly zoneId: string;
  readonly tenant: string;
  /** The update channel the endpoint serves. */
  readonly channel: string;
  readonly counters: SessionCounters;
  /** The check with this id among the agent's current (cached) agent checks. */
  checkOf(checkId: string): AgentCheck | undefined;
  /** The agent's schedule as the hub caches it (refreshed on every change of its entities and checks). */
  schedule(): ScheduleResult;
}

/** One agent check as check_schedule.get lists it (period and timeout in seconds, as stored). */
export function scheduledCheck(check: AgentCheck): ScheduledCheck {
  const { doc } = check.check;
  return { id: check.check.id, type: doc.type, details: doc.details, period: doc.period, timeout: doc.timeout, disabled: doc.disabled };
}

/** The check_schedule.get result of a list of agent checks. */
export function scheduleOf(checks: readonly AgentCheck[]): ScheduleResult {
  return { checks: checks.map(scheduledCheck) };
}

/**
 * The check a metrics post is for: it must be one of the agent's current checks, of the type the
 * post names, and enabled; anything else is a 400 AGENT_CHECK_UNKNOWN (the connection stays, as
 * the agent may run a schedule that changed a moment ago).
 */
export function checkForPost(check: AgentCheck | undefined, params: Pick<MetricsPostParams, 'check_id' | 'check_type'>): AgentCheck {
  if (check === undefined) throw new StrataError('AGENT_CHECK_UNKNOWN', `check ${params.check_id} is not an agent check of this agent`, { check_id: params.check_id });
  if (check.check.doc.type !== params.check_type) {
    throw new StrataError('AGENT_CHECK_UNKNOWN', `check ${params.check_id} is of type ${check.check.doc.type}, not ${params.check_type}`, { check_id: params.check_id });
  }
  if (check.check.doc.disabled) throw new StrataError('AGENT_CHECK_UNKNOWN', `check ${params.check_id} is disabled`, { check_id: params.check_id });
  return check;
}

/** The CheckResult of a validated metrics post received on a listener of `zoneId`. */
export function checkResultOf(params: MetricsPostParams, zoneId: string): CheckResult {
  return {
    monitoringZoneId: zoneId,
    timestampMs: params.timestamp,
    available: params.state === 'available',
    status: params.status,
    metrics: flattenMetrics(params.metrics),
  };
}

/** check_metrics.post: validates the post against the agent's checks and hands its result to the backend (whose AGENT_BUSY, when it cannot take it now, goes to the agent). */
function postMetrics(context: MethodContext, raw: unknown): Record<string, never> {
  const params = metricsPostParams(raw);
  const check = checkForPost(context.checkOf(params.check_id), params);
  const result = checkResultOf(params, context.zoneId);
  context.backend.accept(context.tenant, check.check, result);
  context.counters.metricPosts++;
  context.counters.metricsAccepted += Object.keys(result.metrics).length;
  return {};
}

/** binary_upgrade.get_version and bundle_upgrade.get_version: the newest published bundle of the channel. */
function versionOf(context: MethodContext): VersionResult {
  return { version: context.backend.latestBundleVersion(context.channel) };
}

/**
 * Answers one request of a handshaken agent other than handshake.hello and heartbeat.post (the
 * session owns those: they change its state). config_file.post is accepted and ignored: Strata
 * keeps no agent configuration files. An unknown method is a 400 AGENT_METHOD_UNKNOWN.
 */
export function handleMethod(context: MethodContext, method: string, params: unknown): unknown {
  switch (method) {
    case 'check_schedule.get':
      return context.schedule();
    case 'check_metrics.post':
      return postMetrics(context, params);
    case 'config_file.post':
      return {};
    case 'binary_upgrade.get_version':
    case 'bundle_upgrade.get_version':
      return versionOf(context);
    default:
      throw new StrataError('AGENT_METHOD_UNKNOWN', `the endpoint does not implement method ${JSON.stringify(method.slice(0, 64))}`, { method: method.slice(0, 64) });
  }
}
