// Owns small helpers for the monitoring API tests: base paths, creating objects over HTTP and reading their ids.
import { expect } from 'vitest';
import { call, type CallResult, type Harness } from '../http/harness.js';

/** The monitoring base path of a tenant. */
export function base(tenant: string): string {
  return `/monitoring/v1.0/${tenant}`;
}

/** POSTs a create and returns the new id, checking 201, the empty body and that Location and X-Object-ID agree. */
export async function create(h: Pick<Harness, 'url'>, token: string, path: string, json: unknown): Promise<string> {
  const res = await call(h, 'POST', path, { token, json });
  expect(res.status, `${path}: ${res.text}`).toBe(201);
  expect(res.text).toBe('');
  const id = res.headers.get('x-object-id') as string;
  expect(res.headers.get('location')).toBe(`${h.url}${path}/${id}`);
  return id;
}

/** A remote.http check body polling from two zones, targeting the entity's `web` address. */
export function httpCheck(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    label: 'Website',
    type: 'remote.http',
    details: { url: 'https://example.com/', method: 'GET' },
    monitoring_zones_poll: ['mzdfw', 'mzord'],
    target_alias: 'web',
    period: 60,
    timeout: 30,
    ...extra,
  };
}

/** Creates an entity with a `web` address, a remote.http check, a notification, a plan and an alarm. */
export async function createTree(h: Harness, token: string, tenant: string): Promise<{ entity: string; check: string; notification: string; plan: string; alarm: string }> {
  const b = base(tenant);
  const entity = await create(h, token, `${b}/entities`, { label: 'web-1', ip_addresses: { web: '192.0.2.10' } });
  const check = await create(h, token, `${b}/entities/${entity}/checks`, httpCheck());
  const notification = await create(h, token, `${b}/notifications`, { label: 'ops', type: 'email', details: { address: 'ops@example.com' } });
  const plan = await create(h, token, `${b}/notification_plans`, { label: 'plan', critical_state: [notification] });
  const alarm = await create(h, token, `${b}/entities/${entity}/alarms`, {
    check_id: check,
    notification_plan_id: plan,
    criteria: "if (metric['code'] != '200') { return new AlarmStatus(CRITICAL, 'down'); } return new AlarmStatus(OK);",
  });
  return { entity, check, notification, plan, alarm };
}

/** Asserts an error body of the monitoring shape with the given status and type. */
export function expectFault(res: CallResult, status: number, type: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.json).toMatchObject({ type, code: status });
  expect(typeof res.json.message).toBe('string');
  expect(typeof res.json.txnId).toBe('string');
  expect(res.json.details).toBeTypeOf('object');
}
