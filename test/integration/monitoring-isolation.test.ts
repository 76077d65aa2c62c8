// Checks tenant isolation in the monitoring API: tenant B's token never sees or changes tenant A's objects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startHarness, type Harness } from '../http/harness.js';
import { base, create, createTree, expectFault } from './monitoring-client.js';

describe('monitoring tenant isolation', () => {
  let h: Harness;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    h = await startHarness({});
    alice = await h.token('alice');
    bob = await h.token('bob');
  });
  afterAll(async () => h.close());

  it('keeps every collection and object of tenant A out of tenant B', async () => {
    const a = await createTree(h, alice, 't1');
    const token = await create(h, alice, `${base('t1')}/agent_tokens`, { label: 'a' });
    const t2 = base('t2');
    // B's lists hold nothing of A's: only B's own default notification and plan, which every tenant has.
    const own: Readonly<Record<string, readonly string[]>> = { notifications: ['ntTechnicalContactsEmail'], notification_plans: ['npTechnicalContactsEmail'] };
    for (const path of ['entities', 'notifications', 'notification_plans', 'agent_tokens', 'agents', 'changelogs/alarms']) {
      const res = await call(h, 'GET', `${t2}/${path}`, { token: bob });
      expect(res.status, path).toBe(200);
      expect(res.json.values.map((v: { id: string }) => v.id), path).toEqual(own[path] ?? []);
    }
    const paths = [
      `entities/${a.entity}`,
      `notifications/${a.notification}`,
      `notification_plans/${a.plan}`,
      `agent_tokens/${token}`,
    ];
    for (const path of paths) {
      expectFault(await call(h, 'GET', `${t2}/${path}`, { token: bob }), 404, 'notFoundError');
      expectFault(await call(h, 'PUT', `${t2}/${path}`, { token: bob, json: { label: 'stolen' } }), 404, 'notFoundError');
      expectFault(await call(h, 'DELETE', `${t2}/${path}`, { token: bob }), 404, 'notFoundError');
      expectFault(await call(h, 'GET', `${base('t1')}/${path}`, { token: bob }), 403, 'forbiddenError');
    }
    expectFault(await call(h, 'GET', `${t2}/entities/${a.entity}/checks/${a.check}`, { token: bob }), 404, 'parentNotFoundError');
    expectFault(await call(h, 'GET', `${t2}/entities/${a.entity}/alarms/${a.alarm}`, { token: bob }), 404, 'parentNotFoundError');
    // B cannot point its own plan at A's notification either.
    const plan = await call(h, 'POST', `${t2}/notification_plans`, { token: bob, json: { label: 'p', critical_state: [a.notification] } });
    expectFault(plan, 400, 'badRequest');
    expect((await call(h, 'GET', `${base('t1')}/entities/${a.entity}`, { token: alice })).json.label).toBe('web-1');
  });
});
