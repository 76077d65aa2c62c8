// Tests the host info broker: not connected without an endpoint, one source at a time, the timeout it passes, and the API view of an agent's result.
import { describe, expect, it } from 'vitest';
import type { HostInfoResult, HostInfoType } from '../../src/agent/protocol/messages.js';
import { HostInfoBroker, hostInfoView, type HostInfoSource } from '../../src/monitoring/agent-host-info.js';
import { HOST_INFO_TIMEOUT_MS } from '../../src/monitoring/monitoring-limits.js';

function source(result: HostInfoResult, seen: unknown[] = []): HostInfoSource {
  return {
    hostInfo: async (tenant: string, agentId: string, type: HostInfoType, timeoutMs: number) => (seen.push({ tenant, agentId, type, timeoutMs }), result),
    hostInfoTypes: async (tenant: string, agentId: string, timeoutMs: number) => (seen.push({ tenant, agentId, timeoutMs }), ['memory']),
  };
}

const RESULT: HostInfoResult = { timestamp: 5, metrics: { total: 1 }, error: null, truncated: null };

describe('HostInfoBroker', () => {
  it('answers MONITORING_AGENT_NOT_CONNECTED when no endpoint is attached', async () => {
    const broker = new HostInfoBroker();
    await expect(broker.get('t1', 'web-1', 'memory')).rejects.toMatchObject({ code: 'MONITORING_AGENT_NOT_CONNECTED', details: { agentId: 'web-1' } });
    await expect(broker.types('t1', 'web-1', 1)).rejects.toMatchObject({ code: 'MONITORING_AGENT_NOT_CONNECTED' });
  });

  it('asks the attached source with the timeout, and a detach of an older source leaves the newer one', async () => {
    const broker = new HostInfoBroker();
    const seen: unknown[] = [];
    const detachOld = broker.attach(source(RESULT));
    const newer = source(RESULT, seen);
    broker.attach(newer);
    detachOld();
    expect(broker.current()).toBe(newer);
    expect(await broker.get('t1', 'web-1', 'memory')).toEqual({ timestamp: 5, info: { total: 1 } });
    broker.setTimeoutMs(250);
    expect(await broker.types('t1', 'web-1', 77)).toEqual({ timestamp: 77, info: { types: ['memory'] } });
    expect(seen).toEqual([
      { tenant: 't1', agentId: 'web-1', type: 'memory', timeoutMs: HOST_INFO_TIMEOUT_MS },
      { tenant: 't1', agentId: 'web-1', timeoutMs: 250 },
    ]);
    expect(() => broker.setTimeoutMs(0)).toThrow();
    expect(() => broker.setTimeoutMs(HOST_INFO_TIMEOUT_MS + 1)).toThrow();
  });

  it('shows truncated and error only when the agent reported them', () => {
    expect(hostInfoView({ timestamp: 1, metrics: [{ pid: 1 }], error: null, truncated: { listed: 1, total: 9 } })).toEqual({ timestamp: 1, info: [{ pid: 1 }], truncated: { listed: 1, total: 9 } });
    expect(hostInfoView({ timestamp: 1, metrics: [], error: 'open /proc/stat: EACCES', truncated: null })).toEqual({ timestamp: 1, info: [], error: 'open /proc/stat: EACCES' });
  });
});
