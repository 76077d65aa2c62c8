// Property: walking next_href from the first page visits every object exactly once, in id order, for random sizes and limits.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startHarness, type Harness } from '../http/harness.js';
import { base, create, expectFault } from './monitoring-client.js';

const b = base('t1');

/** Follows next_href from `first` to the end; returns every id seen and the limits each page reported. */
async function walk(h: Harness, token: string, first: string): Promise<{ ids: string[]; limits: number[] }> {
  const ids: string[] = [];
  const limits: number[] = [];
  let path: string | null = first;
  while (path !== null) {
    const res = await call(h, 'GET', path, { token });
    expect(res.status).toBe(200);
    ids.push(...res.json.values.map((v: { id: string }) => v.id));
    limits.push(res.json.metadata.limit);
    expect(res.json.metadata.count).toBe(res.json.values.length);
    const next: string | null = res.json.metadata.next_href;
    expect(next === null).toBe(res.json.metadata.next_marker === null);
    path = next === null ? null : next.slice(h.url.length);
  }
  return { ids, limits };
}

describe('monitoring list pagination', () => {
  let h: Harness;
  let alice: string;

  beforeAll(async () => {
    h = await startHarness({});
    alice = await h.token('alice');
  });
  afterAll(async () => h.close());

  it('walking next_href visits every entity once, keeping the page size', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 1, max: 7 }), async (size, limit) => {
        const created: string[] = [];
        for (let i = 0; i < size; i++) created.push(await create(h, alice, `${b}/entities`, { label: `e${i}` }));
        try {
          const { ids, limits } = await walk(h, alice, `${b}/entities?limit=${limit}`);
          expect(ids).toEqual([...created].sort());
          expect(limits.every((l) => l === limit)).toBe(true);
          expect(limits.length).toBe(Math.max(1, Math.ceil(size / limit)));
        } finally {
          for (const id of created) await call(h, 'DELETE', `${b}/entities/${id}`, { token: alice });
        }
      }),
      { numRuns: 15 },
    );
  });

  it('walks checks of an entity and notification plans the same way', async () => {
    const entity = await create(h, alice, `${b}/entities`, { label: 'host' });
    const checks = [];
    for (let i = 0; i < 7; i++) checks.push(await create(h, alice, `${b}/entities/${entity}/checks`, { type: 'agent.cpu', label: `c${i}` }));
    expect((await walk(h, alice, `${b}/entities/${entity}/checks?limit=2`)).ids).toEqual(checks.sort());
    const plans = [];
    for (let i = 0; i < 5; i++) plans.push(await create(h, alice, `${b}/notification_plans`, { label: `p${i}` }));
    // The tenant's default plan is listed in id order among its own plans.
    expect((await walk(h, alice, `${b}/notification_plans?limit=4`)).ids).toEqual([...plans, 'npTechnicalContactsEmail'].sort());
  });

  it('defaults to 100 items, allows up to 1000, refuses other limits with invalidLimit', async () => {
    const res = await call(h, 'GET', `${b}/entities`, { token: alice });
    expect(res.json.metadata.limit).toBe(100);
    expect((await call(h, 'GET', `${b}/entities?limit=1000`, { token: alice })).json.metadata.limit).toBe(1000);
    for (const limit of ['0', '1001', 'abc', '-1', '1.5']) {
      const bad = await call(h, 'GET', `${b}/entities?limit=${limit}`, { token: alice });
      expectFault(bad, 400, 'invalidLimit');
      expect(bad.json.details.code).toBe('LIST_LIMIT_INVALID');
    }
  });

  it('a marker beyond the end gives an empty list, not an error', async () => {
    const res = await call(h, 'GET', `${b}/entities?marker=zzzzzzzz`, { token: alice });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ values: [], metadata: { count: 0, limit: 100, marker: 'zzzzzzzz', next_marker: null, next_href: null } });
  });
});
