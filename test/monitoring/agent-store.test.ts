// Checks agents and agent tokens through AgentStore: round trips, the connected-since filter, tenant isolation and marker paging (live connections: agent-connections.test.ts).
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentStore } from '../../src/monitoring/agent-store.js';
import { MonitoringStore } from '../../src/monitoring/monitoring-store.js';

const NOW_MS = 1_790_000_000_000;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Walks a marker-paged list the way the service does (read limit + 1; the extra row's id is the next marker). */
function walk(read: (marker: string, limit: number) => readonly { id: string }[], limit: number): string[][] {
  const pages: string[][] = [];
  let marker: string | undefined = '';
  for (let guard = 0; marker !== undefined && guard < 1_000; guard++) {
    const rows = read(marker, limit + 1);
    pages.push(rows.slice(0, limit).map((row) => row.id));
    marker = rows.length > limit ? rows[limit]?.id : undefined;
  }
  return pages;
}

/** Ids as agents use them; ASCII, so SQLite's byte order is JavaScript's sort order. */
const idArb = fc.stringMatching(/^[A-Za-z0-9._-]{1,8}$/);

describe('AgentStore', () => {
  let store: MonitoringStore;
  let agents: AgentStore;

  beforeEach(() => {
    store = new MonitoringStore(undefined);
    agents = store.agents;
  });
  afterEach(() => store.close());

  describe('agents', () => {
    it('records a connection time and keeps the latest one', () => {
      agents.touchAgent('t1', 'ag1', NOW_MS);
      expect(agents.agent('t1', 'ag1', 0)).toEqual({ id: 'ag1', lastConnectedMs: NOW_MS });
      agents.touchAgent('t1', 'ag1', NOW_MS + 50);
      expect(agents.agent('t1', 'ag1', 0)?.lastConnectedMs).toBe(NOW_MS + 50);
      // A late, older handshake never moves the time back.
      agents.touchAgent('t1', 'ag1', NOW_MS + 10);
      expect(agents.agent('t1', 'ag1', 0)?.lastConnectedMs).toBe(NOW_MS + 50);
      expect(agents.agents('t1', '', 10, 0)).toEqual([{ id: 'ag1', lastConnectedMs: NOW_MS + 50 }]);
    });

    it('hides agents that last connected before sinceMs (inclusive bound)', () => {
      agents.touchAgent('t1', 'old', NOW_MS - 1);
      agents.touchAgent('t1', 'edge', NOW_MS);
      agents.touchAgent('t1', 'new', NOW_MS + 1);
      expect(agents.agent('t1', 'old', NOW_MS)).toBeUndefined();
      expect(agents.agent('t1', 'edge', NOW_MS)).toEqual({ id: 'edge', lastConnectedMs: NOW_MS });
      expect(agents.agents('t1', '', 10, NOW_MS).map((a) => a.id)).toEqual(['edge', 'new']);
      expect(agents.agents('t1', '', 10, NOW_MS - 1).map((a) => a.id)).toEqual(['edge', 'new', 'old']);
      // Touching again revives it.
      agents.touchAgent('t1', 'old', NOW_MS + 2);
      expect(agents.agent('t1', 'old', NOW_MS)?.lastConnectedMs).toBe(NOW_MS + 2);
    });

    it("never returns another tenant's agent", () => {
      agents.touchAgent('t1', 'ag1', NOW_MS);
      agents.touchAgent('t2', 'ag2', NOW_MS + 100);
      expect(agents.agent('t2', 'ag1', 0)).toBeUndefined();
      expect(agents.agents('t1', '', 10, 0).map((a) => a.id)).toEqual(['ag1']);
      expect(agents.agents('t3', '', 10, 0)).toEqual([]);
      // The same agent id in two tenants is two agents.
      agents.touchAgent('t2', 'ag1', NOW_MS + 200);
      expect(agents.agent('t1', 'ag1', 0)?.lastConnectedMs).toBe(NOW_MS);
      expect(agents.agent('t2', 'ag1', 0)?.lastConnectedMs).toBe(NOW_MS + 200);
    });

    it('property: marker pages of live agents concatenate to their ids in order, without repeats or other tenants', () => {
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.tuple(idArb, fc.boolean()), { maxLength: 40, selector: ([id]) => id }),
          fc.uniqueArray(idArb, { maxLength: 10 }),
          fc.integer({ min: 1, max: 12 }),
          (mine, theirs, limit) => {
            const s = new MonitoringStore(undefined);
            try {
              for (const id of theirs) s.agents.touchAgent('t2', id, NOW_MS);
              // Stale agents (connected before NOW_MS) are interleaved: they must be skipped, not end a page early.
              for (const [id, live] of mine) s.agents.touchAgent('t1', id, live ? NOW_MS : NOW_MS - 1);
              const pages = walk((marker, n) => s.agents.agents('t1', marker, n, NOW_MS), limit);
              const expected = mine.filter(([, live]) => live).map(([id]) => id).sort();
              expect(pages.flat()).toEqual(expected);
              expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
              const last = expected[expected.length - 1];
              if (last !== undefined) expect(s.agents.agents('t1', `${last}~`, limit, NOW_MS)).toEqual([]);
            } finally {
              s.close();
            }
          },
        ),
        { numRuns: 100 },
      );
    });
  });

  describe('tokens', () => {
    it('round-trips a token, finds it by hash, and counts per tenant', () => {
      agents.insertToken('t1', 'at1', 'first', sha256('v1'), NOW_MS);
      agents.insertToken('t1', 'at2', null, sha256('v2'), NOW_MS + 1);
      agents.insertToken('t2', 'at1', 'theirs', sha256('v3'), NOW_MS);
      expect(agents.token('t1', 'at1')).toEqual({ id: 'at1', label: 'first', tokenSha256: sha256('v1'), createdMs: NOW_MS, updatedMs: NOW_MS });
      expect(agents.token('t1', 'at2')?.label).toBeNull();
      expect(agents.token('t1', 'at3')).toBeUndefined();
      expect(agents.tokenByHash(sha256('v2'))).toEqual({ tenant: 't1', id: 'at2' });
      expect(agents.tokenByHash(sha256('v3'))).toEqual({ tenant: 't2', id: 'at1' });
      expect(agents.tokenByHash(sha256('nope'))).toBeUndefined();
      expect([agents.tokenCount('t1'), agents.tokenCount('t2'), agents.tokenCount('t3')]).toEqual([2, 1, 0]);
      expect(agents.tokens('t1', '', 10).map((t) => t.id)).toEqual(['at1', 'at2']);
      expect(agents.tokens('t2', '', 10).map((t) => t.label)).toEqual(['theirs']);
    });

    it('refuses a duplicate id in a tenant and a duplicate hash in any tenant', () => {
      agents.insertToken('t1', 'at1', null, sha256('v1'), NOW_MS);
      expect(() => agents.insertToken('t1', 'at1', null, sha256('v2'), NOW_MS)).toThrowError(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }));
      expect(() => agents.insertToken('t2', 'at9', null, sha256('v1'), NOW_MS)).toThrowError(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_UNIQUE' }));
      expect(agents.tokenCount('t1')).toBe(1);
      expect(agents.tokenCount('t2')).toBe(0);
    });

    it('relabels and deletes only inside the tenant', () => {
      agents.insertToken('t1', 'at1', 'old', sha256('v1'), NOW_MS);
      agents.insertToken('t2', 'at1', 'theirs', sha256('v2'), NOW_MS);
      expect(agents.labelToken('t1', 'at1', 'new', NOW_MS + 7)).toBe(true);
      expect(agents.token('t1', 'at1')).toMatchObject({ label: 'new', createdMs: NOW_MS, updatedMs: NOW_MS + 7 });
      expect(agents.labelToken('t1', 'at1', null, NOW_MS + 8)).toBe(true);
      expect(agents.token('t1', 'at1')?.label).toBeNull();
      expect(agents.labelToken('t3', 'at1', 'x', NOW_MS)).toBe(false);
      expect(agents.labelToken('t1', 'at2', 'x', NOW_MS)).toBe(false);
      expect(agents.token('t2', 'at1')).toMatchObject({ label: 'theirs', updatedMs: NOW_MS });
      expect(agents.deleteToken('t3', 'at1')).toBe(false);
      expect(agents.deleteToken('t1', 'at1')).toBe(true);
      expect(agents.deleteToken('t1', 'at1')).toBe(false);
      expect(agents.tokenByHash(sha256('v1'))).toBeUndefined();
      expect(agents.token('t2', 'at1')).toBeDefined();
      // The hash is free again once its token is gone.
      agents.insertToken('t1', 'at5', null, sha256('v1'), NOW_MS);
      expect(agents.tokenByHash(sha256('v1'))).toEqual({ tenant: 't1', id: 'at5' });
    });

    it('property: marker pages of tokens concatenate to their ids in order, without other tenants', () => {
      fc.assert(
        fc.property(fc.uniqueArray(idArb, { maxLength: 40 }), fc.uniqueArray(idArb, { maxLength: 10 }), fc.integer({ min: 1, max: 12 }), (mine, theirs, limit) => {
          const s = new MonitoringStore(undefined);
          try {
            for (const id of theirs) s.agents.insertToken('t2', id, null, sha256(`t2/${id}`), NOW_MS);
            for (const id of mine) s.agents.insertToken('t1', id, null, sha256(`t1/${id}`), NOW_MS);
            const pages = walk((marker, n) => s.agents.tokens('t1', marker, n), limit);
            const expected = [...mine].sort();
            expect(pages.flat()).toEqual(expected);
            expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
            expect(s.agents.tokenCount('t1')).toBe(mine.length);
            const last = expected[expected.length - 1];
            if (last !== undefined) expect(s.agents.tokens('t1', `${last}~`, limit)).toEqual([]);
          } finally {
            s.close();
          }
        }),
        { numRuns: 100 },
      );
    });
  });
});
