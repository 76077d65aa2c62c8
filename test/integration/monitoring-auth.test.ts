// Checks that every spec operation (1-9) and every monitoring collection answers 401 without a token, 403 for another tenant, 405 for other methods.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startHarness, type Harness } from '../http/harness.js';
import { base, createTree, expectFault } from './monitoring-client.js';

describe('monitoring auth and methods on every operation', () => {
  let h: Harness;
  let paths: string[];

  beforeAll(async () => {
    h = await startHarness({});
    const alice = await h.token('alice');
    const tree = await createTree(h, alice, 't1');
    const b = base('t1');
    h.app.strata.monitoring.agents.connect('t1', { agentId: 'a1', guid: 'g', processVersion: '1', bundleVersion: '1', agentIp: '10.0.0.1', zoneId: 'mzdfw' });
    const check = `${b}/entities/${tree.entity}/checks/${tree.check}`;
    paths = [
      `${b}/agents`,
      `${b}/agents/a1`,
      `${b}/agents/a1/connections`,
      `${b}/agents/a1/connections/cnX`,
      `${check}/metrics`,
      `${check}/metrics/mzdfw.duration/plot?from=1&to=2&points=1`,
      `${b}/notification_types`,
      `${b}/notification_types/email`,
      `${b}/changelogs/alarms`,
      `${b}/monitoring_zones`,
      `${b}/entities`,
      `${b}/entities/${tree.entity}/alarms`,
      `${b}/notifications`,
      `${b}/notification_plans`,
      `${b}/agent_tokens`,
    ];
  });
  afterAll(async () => h.close());

  it('answers 401 without a token or with an unknown one', async () => {
    for (const path of paths) {
      expectFault(await call(h, 'GET', path), 401, 'unauthorizedError');
      expectFault(await call(h, 'GET', path, { token: 'not-a-token' }), 401, 'unauthorizedError');
    }
  });

  it("answers 403 to another tenant's token", async () => {
    const bob = await h.token('bob');
    for (const path of paths) expectFault(await call(h, 'GET', path, { token: bob }), 403, 'forbiddenError');
  });

  it('answers 405 with Allow to methods a resource does not have', async () => {
    const alice = await h.token('alice');
    for (const path of paths.slice(0, 10)) {
      const res = await call(h, 'DELETE', path, { token: alice });
      expectFault(res, 405, 'methodNotAllowedError');
      expect(res.headers.get('allow')).toBe('GET, HEAD');
    }
  });
});
