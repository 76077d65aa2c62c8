// Owns the endpoint's host information requests to connected agents: one live session of the tenant's agent asked, a deadline over every try, bounds on requests in flight, and the result checked.
import { performance } from 'node:perf_hooks';
import { isStrataError, StrataError } from '../../core/errors.js';
import { notConnected, type HostInfoSource } from '../../monitoring/agent-host-info.js';
import { HOST_INFO_IN_FLIGHT_MAX, HOST_INFO_IN_FLIGHT_PER_AGENT_MAX } from '../../monitoring/monitoring-limits.js';
import { hostInfoResult, hostInfoTypesResult } from '../protocol/method-params.js';
import type { HostInfoResult, HostInfoType } from '../protocol/messages.js';
import type { HubMember } from './agent-hub.js';

/** What the requests need of the hub. */
export interface HostInfoHub {
  /** The registered sessions of a tenant's agent (none when it is not connected). */
  membersOf(tenant: string, agentId: string): readonly HubMember[];
}

/** The in-flight bounds (HOST_INFO_IN_FLIGHT_PER_AGENT_MAX, HOST_INFO_IN_FLIGHT_MAX by default). */
export interface HostInfoRequestLimits {
  readonly perAgentMax: number;
  readonly totalMax: number;
}

function busy(scope: 'agent' | 'endpoint', limit: number): StrataError {
  const whose = scope === 'agent' ? 'this agent' : 'the agent endpoint';
  return new StrataError('AGENT_HOST_INFO_BUSY', `The server is busy: ${limit} host info requests are in flight for ${whose}; retry after the Retry-After seconds.`, { scope: `host_info_${scope}`, limit });
}

/**
 * The endpoint's HostInfoSource. A request goes to one session of the agent (the hub's order: the zone that connected
 * first); when that session closes before answering, the next one is tried within what is left of the same deadline.
 * A timeout is not retried (the deadline is spent): AGENT_REQUEST_TIMEOUT. An agent with no session left is
 * MONITORING_AGENT_NOT_CONNECTED; an error answer is AGENT_REQUEST_REFUSED (an agent without host info answers 400
 * AGENT_METHOD_UNKNOWN); a result of the wrong shape is AGENT_PARAMS_INVALID. Requests beyond the in-flight bounds are
 * refused at once with AGENT_HOST_INFO_BUSY (503), so API clients can never fill a connection's pending requests, which
 * would close it.
 */
export class HostInfoRequests implements HostInfoSource {
  private inFlight = 0;
  /** In-flight requests by tenant and agent; at most `totalMax` keys, since a key leaves when its count reaches 0. */
  private readonly perAgent = new Map<string, number>();
  private readonly limits: HostInfoRequestLimits;

  constructor(
    private readonly hub: HostInfoHub,
    limits: Partial<HostInfoRequestLimits> = {},
  ) {
    this.limits = { perAgentMax: limits.perAgentMax ?? HOST_INFO_IN_FLIGHT_PER_AGENT_MAX, totalMax: limits.totalMax ?? HOST_INFO_IN_FLIGHT_MAX };
  }

  /** host_info.get of one type, its result checked. */
  async hostInfo(tenant: string, agentId: string, type: HostInfoType, timeoutMs: number): Promise<HostInfoResult> {
    return hostInfoResult(await this.request(tenant, agentId, 'host_info.get', { type }, timeoutMs), type);
  }

  /** host_info_types.get, its result checked. */
  async hostInfoTypes(tenant: string, agentId: string, timeoutMs: number): Promise<readonly string[]> {
    return hostInfoTypesResult(await this.request(tenant, agentId, 'host_info_types.get', {}, timeoutMs)).types;
  }

  private async request(tenant: string, agentId: string, method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    if (this.hub.membersOf(tenant, agentId).length === 0) throw notConnected(agentId, 'it has no live connection to this server');
    const key = `${tenant}\u0000${agentId}`;
    const agentCount = this.perAgent.get(key) ?? 0;
    if (agentCount >= this.limits.perAgentMax) throw busy('agent', this.limits.perAgentMax);
    if (this.inFlight >= this.limits.totalMax) throw busy('endpoint', this.limits.totalMax);
    this.perAgent.set(key, agentCount + 1);
    this.inFlight++;
    try {
      return await this.tryMembers(tenant, agentId, method, params, timeoutMs);
    } finally {
      this.inFlight--;
      const left = (this.perAgent.get(key) ?? 1) - 1;
      if (left > 0) this.perAgent.set(key, left);
      else this.perAgent.delete(key);
    }
  }

  private async tryMembers(tenant: string, agentId: string, method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    // Timer scheduling: the deadline is kept on the monotonic clock its timers run on.
    const deadline = performance.now() + timeoutMs;
    const tried = new Set<HubMember>();
    for (;;) {
      const member = this.hub.membersOf(tenant, agentId).find((candidate) => !tried.has(candidate));
      if (member === undefined) throw notConnected(agentId, 'its connection closed before it answered');
      tried.add(member);
      const remainingMs = Math.ceil(deadline - performance.now());
      if (remainingMs <= 0) throw new StrataError('AGENT_REQUEST_TIMEOUT', `${method} got no response within ${timeoutMs} ms`, { method, timeoutMs });
      try {
        return await member.request(method, params, remainingMs);
      } catch (error) {
        if (isStrataError(error) && error.code === 'AGENT_CONNECTION_CLOSED') continue;
        if (isStrataError(error) && error.code === 'AGENT_REQUEST_TIMEOUT') throw new StrataError('AGENT_REQUEST_TIMEOUT', `${method} got no response within ${timeoutMs} ms`, { method, timeoutMs });
        throw error;
      }
    }
  }
}
