// Checks the hub's bookkeeping without sockets: limits counted without the session a hello replaces, token counts freed on removal, the backend told once, changes routed to the bound agent only.
import { beforeEach, describe, expect, it } from 'vitest';
import type { LiveConnectionFields } from '../../../src/agent/endpoint/agent-backend.js';
import { AgentHub, type HubMember } from '../../../src/agent/endpoint/agent-hub.js';
import { agentCheck, FakeBackend, quietLogger } from './endpoint-fixtures.js';

/** A member that records what the hub asked of it. */
class Member implements HubMember {
  closed: string[] = [];
  pushes = 0;
  close(reason: string): void {
    this.closed.push(reason);
  }
  scheduleChanged(): void {
    this.pushes++;
  }
}

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

  it('routes a check change to the sessions of the bound agent only, and stop() closes and reports all', () => {
    const h = hub();
    const web = [new Member(), new Member()];
    const db = new Member();
    h.admit(web[0] as Member, A, fields('web-1', 'mzdfw'));
    h.admit(web[1] as Member, A, fields('web-1', 'mzord'));
    h.admit(db, A, fields('db-1', 'mzdfw'));
    backend.addCheck('t1', agentCheck('enWeb', 'chMem', 'agent.memory'));
    expect(web.map((m) => m.pushes)).toEqual([1, 1]);
    expect(db.pushes).toBe(0);
    expect(h.checkOf(web[0] as Member, 'chMem')?.check.doc.type).toBe('agent.memory');
    h.stop();
    expect([...web, db].map((m) => m.closed.length)).toEqual([1, 1, 1]);
    expect(backend.live.size).toBe(0);
    expect(backend.subscribers).toBe(0);
    expect(h.size).toBe(0);
  });

  it('registers nothing when the backend refuses the connection', () => {
    const h = hub();
    backend.connected = () => {
      throw new Error('registry full');
    };
    const member = new Member();
    expect(() => h.admit(member, A, fields('web-1', 'mzdfw'))).toThrow('registry full');
    expect(h.size).toBe(0);
    backend.addCheck('t1', agentCheck('enWeb', 'chMem', 'agent.memory'));
    expect(member.pushes).toBe(0);
  });
});
