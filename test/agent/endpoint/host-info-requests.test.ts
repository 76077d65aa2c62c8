// Checks the endpoint's host info requests without sockets: one session asked, the next only when one closed before answering, timeouts not retried, results checked, in-flight bounds per agent and in all, tenants apart.
import { describe, expect, it } from 'vitest';
import type { HubMember } from '../../../src/agent/endpoint/agent-hub.js';
import { HostInfoRequests, type HostInfoHub } from '../../../src/agent/endpoint/host-info-requests.js';
import { StrataError } from '../../../src/core/errors.js';

const MEMORY = { timestamp: 7, metrics: { total: 1 }, error: null, truncated: null };

/** A session whose request answers with `answer()` (a value, a rejection, or a promise that never settles). */
class Member implements HubMember {
  readonly asked: { method: string; params: unknown; timeoutMs: number }[] = [];
  constructor(private readonly answer: () => Promise<unknown>) {}
  close(): void {}
  scheduleChanged(): Promise<boolean> {
    return Promise.resolve(true);
  }
  request(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    this.asked.push({ method, params, timeoutMs });
    return this.answer();
  }
}

const closed = (): Promise<unknown> => Promise.reject(new StrataError('AGENT_CONNECTION_CLOSED', 'closed'));
const never = (): Promise<unknown> => new Promise(() => undefined);

/** A hub of sessions by `tenant/agent`. */
function hubOf(members: Record<string, Member[]>): HostInfoHub & { asked: string[] } {
  const asked: string[] = [];
  return { asked, membersOf: (tenant, agentId) => (asked.push(`${tenant}/${agentId}`), members[`${tenant}/${agentId}`] ?? []) };
}

describe('HostInfoRequests', () => {
  it('asks one session of the tenant\'s agent and checks its result', async () => {
    const first = new Member(() => Promise.resolve(MEMORY));
    const second = new Member(() => Promise.resolve(MEMORY));
    const hub = hubOf({ 't1/web-1': [first, second] });
    const requests = new HostInfoRequests(hub);
    expect(await requests.hostInfo('t1', 'web-1', 'memory', 1000)).toEqual(MEMORY);
    expect(first.asked).toEqual([{ method: 'host_info.get', params: { type: 'memory' }, timeoutMs: expect.any(Number) }]);
    expect(first.asked[0]?.timeoutMs).toBeLessThanOrEqual(1000);
    expect(second.asked).toEqual([]);
    expect(hub.asked.every((key) => key === 't1/web-1')).toBe(true);
    const types = new Member(() => Promise.resolve({ types: ['cpus', 'who'] }));
    expect(await new HostInfoRequests(hubOf({ 't1/web-1': [types] })).hostInfoTypes('t1', 'web-1', 1000)).toEqual(['cpus', 'who']);
    expect(types.asked[0]).toMatchObject({ method: 'host_info_types.get', params: {} });
  });

  it('is MONITORING_AGENT_NOT_CONNECTED for an agent without sessions, another tenant\'s included', async () => {
    const requests = new HostInfoRequests(hubOf({ 't1/web-1': [new Member(() => Promise.resolve(MEMORY))] }));
    await expect(requests.hostInfo('t2', 'web-1', 'memory', 1000)).rejects.toMatchObject({ code: 'MONITORING_AGENT_NOT_CONNECTED', details: { agentId: 'web-1' } });
    await expect(requests.hostInfo('t1', 'web-2', 'memory', 1000)).rejects.toMatchObject({ code: 'MONITORING_AGENT_NOT_CONNECTED' });
  });

  it('tries the next session when one closes before answering, and is not connected when none is left', async () => {
    const gone = new Member(closed);
    const live = new Member(() => Promise.resolve(MEMORY));
    expect(await new HostInfoRequests(hubOf({ 't1/a': [gone, live] })).hostInfo('t1', 'a', 'memory', 1000)).toEqual(MEMORY);
    expect(gone.asked).toHaveLength(1);
    await expect(new HostInfoRequests(hubOf({ 't1/a': [new Member(closed), new Member(closed)] })).hostInfo('t1', 'a', 'memory', 1000)).rejects.toMatchObject({
      code: 'MONITORING_AGENT_NOT_CONNECTED',
    });
  });

  it('does not try another session after a timeout: AGENT_REQUEST_TIMEOUT naming the whole timeout', async () => {
    const slow = new Member(() => Promise.reject(new StrataError('AGENT_REQUEST_TIMEOUT', 'late', { method: 'host_info.get', timeoutMs: 3 })));
    const other = new Member(() => Promise.resolve(MEMORY));
    await expect(new HostInfoRequests(hubOf({ 't1/a': [slow, other] })).hostInfo('t1', 'a', 'memory', 50)).rejects.toMatchObject({ code: 'AGENT_REQUEST_TIMEOUT', details: { timeoutMs: 50 } });
    expect(other.asked).toEqual([]);
  });

  it('passes an error answer on, and refuses a result of the wrong shape', async () => {
    const refused = new StrataError('AGENT_REQUEST_REFUSED', 'no', { code: 400, message: 'unknown', type: 'AGENT_METHOD_UNKNOWN' });
    await expect(new HostInfoRequests(hubOf({ 't1/a': [new Member(() => Promise.reject(refused))] })).hostInfo('t1', 'a', 'cpus', 100)).rejects.toBe(refused);
    await expect(new HostInfoRequests(hubOf({ 't1/a': [new Member(() => Promise.resolve({}))] })).hostInfo('t1', 'a', 'cpus', 100)).rejects.toMatchObject({ code: 'AGENT_PARAMS_INVALID', details: { field: 'timestamp' } });
    await expect(new HostInfoRequests(hubOf({ 't1/a': [new Member(() => Promise.resolve(MEMORY))] })).hostInfo('t1', 'a', 'cpus', 100)).rejects.toMatchObject({ code: 'AGENT_PARAMS_INVALID', details: { field: 'metrics' } });
  });

  it('refuses requests beyond the in-flight bounds at once (503 AGENT_HOST_INFO_BUSY), and frees them when they settle', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held = new Member(() => gate.then(() => MEMORY));
    const other = new Member(() => gate.then(() => MEMORY));
    const requests = new HostInfoRequests(hubOf({ 't1/a': [held], 't1/b': [other], 't2/a': [other] }), { perAgentMax: 2, totalMax: 3 });
    const pending = [requests.hostInfo('t1', 'a', 'memory', 5000), requests.hostInfo('t1', 'a', 'memory', 5000)];
    await expect(requests.hostInfo('t1', 'a', 'memory', 5000)).rejects.toMatchObject({ code: 'AGENT_HOST_INFO_BUSY', details: { scope: 'host_info_agent', limit: 2 } });
    // Another tenant's agent of the same id is another agent.
    pending.push(requests.hostInfo('t2', 'a', 'memory', 5000));
    await expect(requests.hostInfo('t1', 'b', 'memory', 5000)).rejects.toMatchObject({ code: 'AGENT_HOST_INFO_BUSY', details: { scope: 'host_info_endpoint', limit: 3 } });
    release();
    await Promise.all(pending);
    expect(await requests.hostInfo('t1', 'a', 'memory', 5000)).toEqual(MEMORY);
    expect(held.asked).toHaveLength(3);
  });

  it('counts a request that never settles until its own timeout', async () => {
    const requests = new HostInfoRequests(hubOf({ 't1/a': [new Member(never)] }), { perAgentMax: 1, totalMax: 1 });
    void requests.hostInfo('t1', 'a', 'memory', 60_000).catch(() => undefined);
    await expect(requests.hostInfo('t1', 'a', 'memory', 60_000)).rejects.toMatchObject({ code: 'AGENT_HOST_INFO_BUSY' });
  });
});
