// Checks the hub's bookkeeping without sockets: limits counted without the session a hello replaces (closed only once the new one is registered), token counts freed on removal, the backend told once, changes pushed to one session of the bound agent only (another when it fails), the cached schedule.
import { beforeEach, describe, expect, it } from 'vitest';
import type { LiveConnectionFields } from '../../../src/agent/endpoint/agent-backend.js';
import { AgentHub, type HubMember } from '../../../src/agent/endpoint/agent-hub.js';
import { agentCheck, FakeBackend, quietLogger } from './endpoint-fixtures.js';

/** A member that records what the hub asked of it; its pushes are acknowledged unless `acknowledges` is false. */
class Member implements HubMember {
  closed: string[] = [];
  pushes = 0;
  constructor(private readonly acknowledges = true) {}
  close(reason: string): void {
    this.closed.push(reason);
  }
  scheduleChanged(): Promise<boolean> {
    this.pushes++;
    return Promise.resolve(this.acknowledges);
  }
  request(): Promise<unknown> {
    return Promise.resolve({});
  }
}

/** Lets the hub's pushes (promise chains) run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function fields(agentId: string, zoneId: string): LiveConnectionFields {
  return { agentId, zoneId, guid: 'g', processVersion: '1', bundleVersion: '1', agentIp: '127.0.0.1' };
}

const A = { tenant: 't1', tokenId: 'atA' };
const B = { tenant: 't1', tokenId: 'atB' };
let backend: FakeBackend;

beforeEach(() => {
  backend = new FakeBackend();
  backend.bind('t1', 'enWeb', 'web-1', false);
  backend.addCheck('t1', agentCheck('enWeb', 'chCpu'), false);
});

function hub(connectionsMax = 10, tokenConnectionsMax = 10): AgentHub {
  const made = new AgentHub({ backend, logger: quietLogger, connectionsMax, tokenConnectionsMax });
  made.start();
  return made;
}

describe('AgentHub', () => {
  it('lets a replacing hello in at a full limit: the session it replaces does not count', () => {
    const h = hub(1, 1);
    const older = new Member();
    const newer = new Member();
    const firstId = h.admit(older, A, fields('web-1', 'mzdfw'));
    const secondId = h.admit(newer, A, fields('web-1', 'mzdfw'));
    expect(older.closed).toHaveLength(1);
    expect(backend.disconnects).toEqual([firstId]);
    expect([...backend.live.keys()]).toEqual([secondId]);
    expect(h.size).toBe(1);
    expect(() => h.admit(new Member(), A, fields('web-1', 'mzord'))).toThrow(expect.objectContaining({ code: 'AGENT_CONNECTIONS_OVER_LIMIT', details: { limit: 'connections', max: 1 } }));
  });

  it('counts per token and frees the count when a session leaves; removing twice tells the backend once', () => {
    const h = hub(10, 1);
    const first = new Member();
    h.admit(first, A, fields('web-1', 'mzdfw'));
    expect(() => h.admit(new Member(), A, fields('db-1', 'mzdfw'))).toThrow(expect.objectContaining({ details: { limit: 'token_connections', max: 1 } }));
    h.admit(new Member(), B, fields('db-1', 'mzdfw'));
    h.remove(first);
    h.remove(first);
    expect(backend.disconnects).toHaveLength(1);
    h.admit(new Member(), A, fields('db-2', 'mzdfw'));
    expect(h.size).toBe(2);
  });

  it('routes a check change to one session of the bound agent only, and stop() closes and reports all', async () => {
    const h = hub();
    const web = [new Member(), new Member()];
    const db = new Member();
    h.admit(web[0] as Member, A, fields('web-1', 'mzdfw'));
    h.admit(web[1] as Member, A, fields('web-1', 'mzord'));
    h.admit(db, A, fields('db-1', 'mzdfw'));
    backend.addCheck('t1', agentCheck('enWeb', 'chMem', 'agent.memory'));
    await settle();
    // The agent fetches its one schedule once: one of its sessions is told.
    expect(web.map((m) => m.pushes)).toEqual([1, 0]);
    expect(db.pushes).toBe(0);
    expect(h.checkOf(web[0] as Member, 'chMem')?.check.doc.type).toBe('agent.memory');
    // Both sessions of the agent answer the same cached schedule.
    expect(h.schedule(web[1] as Member)).toBe(h.schedule(web[0] as Member));
    expect(h.schedule(web[1] as Member).checks.map((c) => c.id)).toEqual(['chCpu', 'chMem']);
    h.stop();
    expect([...web, db].map((m) => m.closed.length)).toEqual([1, 1, 1]);
    expect(backend.live.size).toBe(0);
    expect(backend.subscribers).toBe(0);
    expect(h.size).toBe(0);
  });

  it('tells another session of the agent when the first does not acknowledge, and coalesces changes meanwhile', async () => {
    const h = hub();
    const failing = new Member(false);
    const working = new Member();
    h.admit(failing, A, fields('web-1', 'mzdfw'));
    h.admit(working, A, fields('web-1', 'mzord'));
    backend.addCheck('t1', agentCheck('enWeb', 'chMem', 'agent.memory'));
    backend.addCheck('t1', agentCheck('enWeb', 'chLoad', 'agent.load_average'));
    backend.addCheck('t1', agentCheck('enWeb', 'chNet', 'agent.network'));
    await settle();
    // The first change's push, then one for the two that came while it waited.
    expect([failing.pushes, working.pushes]).toEqual([2, 2]);
    expect(failing.closed).toEqual([]);
  });

  it('serves the schedule from its cache: a change that did not come through the feed is not seen until one does', () => {
    const h = hub();
    const member = new Member();
    h.admit(member, A, fields('web-1', 'mzdfw'));
    backend.addCheck('t1', agentCheck('enWeb', 'chQuiet', 'agent.disk'), false);
    expect(h.schedule(member).checks.map((c) => c.id)).toEqual(['chCpu']);
    backend.emit({ kind: 'check', op: 'update', tenant: 't1', entityId: 'enWeb', id: 'chCpu' });
    expect(h.schedule(member).checks.map((c) => c.id)).toEqual(['chCpu', 'chQuiet']);
  });

  it('keeps the older session of the agent and zone when the backend refuses its replacement', () => {
    const h = hub();
    const older = new Member();
    const olderId = h.admit(older, A, fields('web-1', 'mzdfw'));
    const connected = backend.connected.bind(backend);
    backend.connected = () => {
      throw new Error('registry full');
    };
    expect(() => h.admit(new Member(), A, fields('web-1', 'mzdfw'))).toThrow('registry full');
    expect(older.closed).toEqual([]);
    expect(backend.disconnects).toEqual([]);
    expect(h.size).toBe(1);
    expect(h.checkOf(older, 'chCpu')?.check.id).toBe('chCpu');
    // Accepted, the newer one is registered before the older one is closed and reported.
    backend.connected = connected;
    const newer = new Member();
    const newerId = h.admit(newer, A, fields('web-1', 'mzdfw'));
    expect(older.closed).toHaveLength(1);
    expect(backend.disconnects).toEqual([olderId]);
    expect([...backend.live.keys()]).toEqual([newerId]);
    expect(h.checkOf(newer, 'chCpu')?.check.id).toBe('chCpu');
    expect(h.size).toBe(1);
  });

  it('registers nothing when the backend refuses the connection', async () => {
    const h = hub();
    backend.connected = () => {
      throw new Error('registry full');
    };
    const member = new Member();
    expect(() => h.admit(member, A, fields('web-1', 'mzdfw'))).toThrow('registry full');
    expect(h.size).toBe(0);
    backend.addCheck('t1', agentCheck('enWeb', 'chMem', 'agent.memory'));
    await settle();
    expect(member.pushes).toBe(0);
  });

  it('lists the registered sessions of a tenant\'s agent (host info asks one of them), none once they left', () => {
    const h = hub();
    const dfw = new Member();
    const ord = new Member();
    h.admit(dfw, A, fields('web-1', 'mzdfw'));
    h.admit(ord, B, fields('web-1', 'mzord'));
    expect(h.membersOf('t1', 'web-1')).toEqual([dfw, ord]);
    expect(h.membersOf('t2', 'web-1')).toEqual([]);
    expect(h.membersOf('t1', 'web-2')).toEqual([]);
    h.remove(dfw);
    expect(h.membersOf('t1', 'web-1')).toEqual([ord]);
    h.remove(ord);
    expect(h.membersOf('t1', 'web-1')).toEqual([]);
  });
});
