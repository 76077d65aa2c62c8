// Owns asking a connected agent for host information: the agent endpoint attaches itself, the monitoring API asks through here and gets the reference's `{timestamp, info}`.
import { assert } from '../core/assert.js';
import { StrataError } from '../core/errors.js';
import type { HostInfoResult, HostInfoTruncation, HostInfoType } from '../agent/protocol/messages.js';
import { HOST_INFO_TIMEOUT_MS } from './monitoring-limits.js';

/** What answers host-info requests: the agent endpoint, attached while it runs. */
export interface HostInfoSource {
  /** Asks the tenant's connected agent `agentId` for host info of `type`; rejects with a StrataError when it is not connected or does not answer in time. */
  hostInfo(tenant: string, agentId: string, type: HostInfoType, timeoutMs: number): Promise<HostInfoResult>;
  /** Asks the tenant's connected agent which types it reads; rejects as hostInfo does. */
  hostInfoTypes(tenant: string, agentId: string, timeoutMs: number): Promise<readonly string[]>;
}

/** A host info answer of the API: `{timestamp, info}`, plus `truncated` when a list was cut and `error` when the agent's read failed. */
export interface HostInfoView {
  readonly timestamp: number;
  readonly info: unknown;
  readonly truncated?: HostInfoTruncation;
  readonly error?: string;
}

/** The API answer of an agent's result. */
export function hostInfoView(result: HostInfoResult): HostInfoView {
  return {
    timestamp: result.timestamp,
    info: result.metrics,
    ...(result.truncated !== null ? { truncated: result.truncated } : {}),
    ...(result.error !== null ? { error: result.error } : {}),
  };
}

/** Routes host-info requests to the attached source; with none attached (no agent endpoint) every agent is not connected. */
export class HostInfoBroker {
  private source: HostInfoSource | undefined;
  private timeoutMs = HOST_INFO_TIMEOUT_MS;

  /** Attaches the endpoint (one at a time); returns the detach. */
  attach(source: HostInfoSource): () => void {
    this.source = source;
    return () => {
      if (this.source === source) this.source = undefined;
    };
  }

  /** The attached source, if any. */
  current(): HostInfoSource | undefined {
    return this.source;
  }

  /** Changes how long requests wait for the agent (HOST_INFO_TIMEOUT_MS by default; tests shorten it). */
  setTimeoutMs(timeoutMs: number): void {
    assert(Number.isSafeInteger(timeoutMs) && timeoutMs > 0 && timeoutMs <= HOST_INFO_TIMEOUT_MS, 'a host info timeout is a positive integer of ms up to HOST_INFO_TIMEOUT_MS');
    this.timeoutMs = timeoutMs;
  }

  /** One type of host info from the agent (MONITORING_AGENT_NOT_CONNECTED without an endpoint; the endpoint's errors otherwise). */
  async get(tenant: string, agentId: string, type: HostInfoType): Promise<HostInfoView> {
    return hostInfoView(await this.sourceFor(agentId).hostInfo(tenant, agentId, type, this.timeoutMs));
  }

  /** The types the agent reads, as `{timestamp, info: {types}}` stamped `nowMs`. */
  async types(tenant: string, agentId: string, nowMs: number): Promise<HostInfoView> {
    const types = await this.sourceFor(agentId).hostInfoTypes(tenant, agentId, this.timeoutMs);
    return { timestamp: nowMs, info: { types } };
  }

  private sourceFor(agentId: string): HostInfoSource {
    if (this.source === undefined) throw notConnected(agentId, 'the agent endpoint is not running');
    return this.source;
  }
}

/** MONITORING_AGENT_NOT_CONNECTED for an agent, and why. */
export function notConnected(agentId: string, why: string): StrataError {
  return new StrataError('MONITORING_AGENT_NOT_CONNECTED', `Agent ${agentId} is not connected: ${why}.`, { agentId });
}
