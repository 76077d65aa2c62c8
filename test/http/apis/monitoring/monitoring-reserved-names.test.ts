// Checks that names reserved in JavaScript objects (__proto__, constructor, ...) in every monitoring POST and PUT body are refused in the monitoring error shape or kept as plain data, never a 500, and never touch Object.prototype.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../harness.js';
import { expectMetricsError, inject, tokenOf, type Injected } from '../../inject.js';
import { guardPrototypes } from '../../prototype-guard.js';

const B = '/monitoring/v1.0/t1';
/** Names an object key may not safely become; JSON bodies may still carry the last four as keys of maps. */
const RESERVED = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'] as const;
const MAP_SAFE = ['constructor', 'prototype', 'hasOwnProperty', 'toString'] as const;
/** Metadata whose every key is reserved (except __proto__, which no JSON body may carry). */
const RESERVED_METADATA = Object.fromEntries(MAP_SAFE.map((name, i) => [name, `value ${i}`]));

let h: Harness;
let alice: string;
const tree = { entity: '', check: '', alarm: '', notification: '', plan: '', token: '' };

const send = (method: 'GET' | 'POST' | 'PUT', url: string, body?: string): Promise<Injected> =>
  inject(h, method, url, { token: alice, ...(body !== undefined ? { body, type: 'application/json' } : {}) });

async function created(path: string, json: unknown): Promise<string> {
  const res = await send('POST', path, JSON.stringify(json));
  expect(res.status, res.text).toBe(201);
  return String(res.headers['x-object-id']);
}

async function getJson(path: string): Promise<Record<string, any>> {
  const res = await send('GET', path);
  expect(res.status, res.text).toBe(200);
  return res.json as Record<string, any>;
}

/** One body-taking collection: where it is, a valid create body, and one of its items. */
interface Collection {
  readonly name: string;
  collection(): string;
  item(): string;
  create(): Record<string, unknown>;
}

const httpCheck = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  label: 'site', type: 'remote.http', details: { url: 'https://example.com/' }, monitoring_zones_poll: ['mzdfw'], target_alias: 'web', ...extra,
});

const COLLECTIONS: readonly Collection[] = [
  { name: 'entities', collection: () => `${B}/entities`, item: () => `${B}/entities/${tree.entity}`, create: () => ({ label: 'e' }) },
  { name: 'checks', collection: () => `${B}/entities/${tree.entity}/checks`, item: () => `${B}/entities/${tree.entity}/checks/${tree.check}`, create: () => ({ type: 'agent.cpu' }) },
  {
    name: 'alarms',
    collection: () => `${B}/entities/${tree.entity}/alarms`,
    item: () => `${B}/entities/${tree.entity}/alarms/${tree.alarm}`,
    create: () => ({ check_id: tree.check, notification_plan_id: tree.plan }),
  },
  {
    name: 'notifications',
    collection: () => `${B}/notifications`,
    item: () => `${B}/notifications/${tree.notification}`,
    create: () => ({ label: 'n', type: 'webhook', details: { url: 'https://hooks.example.com/' } }),
  },
  { name: 'notification plans', collection: () => `${B}/notification_plans`, item: () => `${B}/notification_plans/${tree.plan}`, create: () => ({ label: 'p' }) },
  { name: 'agent tokens', collection: () => `${B}/agent_tokens`, item: () => `${B}/agent_tokens/${tree.token}`, create: () => ({ label: 't' }) },
];
const WITH_METADATA = COLLECTIONS.filter((c) => c.name !== 'agent tokens');

/** Every list and every fixed object, as the API shows them: what a refused body must leave unchanged. */
async function everything(): Promise<unknown[]> {
  const all: unknown[] = [];
  for (const c of COLLECTIONS) all.push(await getJson(`${c.collection()}?limit=1000`), await getJson(c.item()));
  return all;
}

/** The JSON text of `create()` with `insert` (raw JSON members) added at the top level, or inside the object at `inside`. */
function rawBody(base: Record<string, unknown>, insert: string, inside?: string): string {
  if (inside === undefined) return `{${insert},${JSON.stringify(base).slice(1)}`;
  const { [inside]: nested, ...rest } = base;
  const inner = JSON.stringify(nested ?? {});
  const members = inner === '{}' ? `{${insert}}` : `{${insert},${inner.slice(1)}`;
  return `{"${inside}":${members},${JSON.stringify(rest).slice(1)}`.replace(',}', '}');
}

/** Sends a body that must be refused, as a create and as an update: 400 `code` in the monitoring shape, and nothing changed. */
async function expectRefused(c: Collection, body: (base: Record<string, unknown>) => string, code: string, key?: string): Promise<void> {
  const before = await everything();
  for (const [method, url] of [['POST', c.collection()], ['PUT', c.item()]] as const) {
    const res = await send(method, url, body(method === 'POST' ? c.create() : {}));
    const details = expectMetricsError(res, 400, code);
    if (key !== undefined) expect(details['key'], `${method} ${res.text}`).toBe(key);
  }
  expect(await everything()).toEqual(before);
}

beforeAll(async () => {
  h = await startHarness({});
  alice = await tokenOf(h, 'alice');
  tree.entity = await created(`${B}/entities`, { label: 'host', ip_addresses: { web: '192.0.2.1' } });
  tree.check = await created(`${B}/entities/${tree.entity}/checks`, { type: 'agent.cpu' });
  tree.notification = await created(`${B}/notifications`, { label: 'hook', type: 'webhook', details: { url: 'https://hooks.example.com/' } });
  tree.plan = await created(`${B}/notification_plans`, { label: 'plan', critical_state: [tree.notification] });
  tree.alarm = await created(`${B}/entities/${tree.entity}/alarms`, { check_id: tree.check, notification_plan_id: tree.plan });
  tree.token = await created(`${B}/agent_tokens`, { label: 'agent' });
});
afterAll(async () => h.close());
guardPrototypes();

describe.each(COLLECTIONS)('$name bodies', (c) => {
  it('a __proto__ key at the top is a 400 HTTP_BODY_INVALID, as is constructor.prototype', async () => {
    await expectRefused(c, (base) => rawBody(base, '"__proto__":{"polluted":"yes"}'), 'HTTP_BODY_INVALID');
    await expectRefused(c, (base) => rawBody(base, '"constructor":{"prototype":{"polluted":"yes"}}'), 'HTTP_BODY_INVALID');
  });

  it.each(MAP_SAFE)('a top-level key %s is an unknown key: 400 naming it', async (name) => {
    await expectRefused(c, (base) => JSON.stringify({ ...base, [name]: 'x' }), 'MONITORING_FIELD_INVALID', name);
  });

  it.each(RESERVED)('%s as a label is plain text that round-trips', async (name) => {
    const id = await created(c.collection(), { ...c.create(), label: name });
    const url = `${c.collection()}/${id}`;
    expect((await getJson(url))['label']).toBe(name);
    expect((await send('PUT', url, JSON.stringify({ label: `${name}!` }))).status).toBe(204);
    expect((await getJson(url))['label']).toBe(`${name}!`);
  });
});

describe.each(WITH_METADATA)('$name metadata', (c) => {
  it('a __proto__ key inside metadata is a 400 HTTP_BODY_INVALID', async () => {
    await expectRefused(c, (base) => rawBody(base, '"__proto__":{"polluted":"yes"}', 'metadata'), 'HTTP_BODY_INVALID');
    await expectRefused(c, (base) => rawBody(base, '"__proto__":"yes"', 'metadata'), 'HTTP_BODY_INVALID');
  });

  it('constructor, prototype, hasOwnProperty and toString are legitimate metadata keys: kept exactly, on create and update', async () => {
    const id = await created(c.collection(), { ...c.create(), metadata: RESERVED_METADATA });
    const url = `${c.collection()}/${id}`;
    expect((await getJson(url))['metadata']).toEqual(RESERVED_METADATA);
    const listed = (await getJson(`${c.collection()}?limit=1000`))['values'].find((v: { id: string }) => v.id === id);
    expect(listed['metadata']).toEqual(RESERVED_METADATA);
    const changed = { toString: 'changed', constructor: 'again' };
    expect((await send('PUT', url, JSON.stringify({ metadata: changed }))).status).toBe(204);
    const after = await getJson(url);
    expect(after['metadata']).toEqual(changed);
    expect(Object.keys(after['metadata']).sort()).toEqual(['constructor', 'toString']);
  });

  it('a metadata value holding a reserved name is plain text', async () => {
    const metadata = Object.fromEntries(RESERVED.map((name, i) => [`k${i}`, name]));
    const id = await created(c.collection(), { ...c.create(), metadata });
    expect((await getJson(`${c.collection()}/${id}`))['metadata']).toEqual(metadata);
  });
});

describe('entity ip_addresses and check targets', () => {
  it('reserved names are legitimate address names; a remote check may target one by alias', async () => {
    const addresses = { constructor: '192.0.2.7', toString: '2001:db8::7' };
    const entity = await created(`${B}/entities`, { label: 'reserved', ip_addresses: addresses });
    expect((await getJson(`${B}/entities/${entity}`))['ip_addresses']).toEqual(addresses);
    const check = await created(`${B}/entities/${entity}/checks`, httpCheck({ target_alias: 'constructor' }));
    expect((await getJson(`${B}/entities/${entity}/checks/${check}`))['target_alias']).toBe('constructor');
    // The alias is still in use: an update dropping the address is refused.
    const refused = await send('PUT', `${B}/entities/${entity}`, JSON.stringify({ ip_addresses: { toString: '2001:db8::7' } }));
    expectMetricsError(refused, 400, 'MONITORING_FIELD_INVALID', { key: 'ip_addresses' });
  });

  it.each(MAP_SAFE)('an alias %s the entity does not have is refused, not found on Object.prototype', async (name) => {
    const before = await everything();
    const res = await send('POST', `${B}/entities/${tree.entity}/checks`, JSON.stringify(httpCheck({ target_alias: name })));
    expectMetricsError(res, 400, 'MONITORING_FIELD_INVALID', { key: 'target_alias' });
    expect(await everything()).toEqual(before);
  });

  it('a __proto__ address name is a 400 HTTP_BODY_INVALID', async () => {
    const before = await everything();
    const res = await send('POST', `${B}/entities`, '{"label":"x","ip_addresses":{"__proto__":"192.0.2.9"}}');
    expectMetricsError(res, 400, 'HTTP_BODY_INVALID');
    expect(await everything()).toEqual(before);
  });
});

describe('check details', () => {
  const checks = (): string => `${B}/entities/${tree.entity}/checks`;

  it('agent check parameters may be named constructor, prototype, hasOwnProperty or toString: kept exactly', async () => {
    const details = { constructor: 'a', prototype: 2, hasOwnProperty: true, toString: 'd' };
    const id = await created(checks(), { type: 'agent.cpu', details });
    expect((await getJson(`${checks()}/${id}`))['details']).toEqual(details);
    expect((await send('PUT', `${checks()}/${id}`, JSON.stringify({ details: { toString: 'x' } }))).status).toBe(204);
    expect((await getJson(`${checks()}/${id}`))['details']).toEqual({ toString: 'x' });
  });

  it('remote.http header and body_matches names may be reserved names: kept exactly', async () => {
    const headers = { constructor: 'a', toString: 'b' };
    const bodyMatches = { hasOwnProperty: 'x+', prototype: 'y' };
    const id = await created(checks(), httpCheck({ details: { url: 'https://example.com/', headers, body_matches: bodyMatches } }));
    const got = await getJson(`${checks()}/${id}`);
    expect(got['details']['headers']).toEqual(headers);
    expect(got['details']['body_matches']).toEqual(bodyMatches);
  });

  it.each(MAP_SAFE)('a remote.http detail %s is an unknown key: 400 naming it under details', async (name) => {
    const before = await everything();
    const res = await send('POST', checks(), JSON.stringify(httpCheck({ details: { url: 'https://example.com/', [name]: 'x' } })));
    expectMetricsError(res, 400, 'MONITORING_FIELD_INVALID', { key: `details.${name}` });
    expect(await everything()).toEqual(before);
  });

  it('a __proto__ key in details or in headers is a 400 HTTP_BODY_INVALID', async () => {
    const before = await everything();
    for (const body of [
      '{"type":"agent.cpu","details":{"__proto__":{"polluted":"yes"}}}',
      `{"type":"remote.http","monitoring_zones_poll":["mzdfw"],"target_alias":"web","details":{"url":"https://example.com/","headers":{"__proto__":"x"}}}`,
    ]) {
      expectMetricsError(await send('POST', checks(), body), 400, 'HTTP_BODY_INVALID');
      expectMetricsError(await send('PUT', `${checks()}/${tree.check}`, body), 400, 'HTTP_BODY_INVALID');
    }
    expect(await everything()).toEqual(before);
  });

  it.each(RESERVED)('a check type %s is refused by the type enum', async (name) => {
    const before = await everything();
    expectMetricsError(await send('POST', checks(), JSON.stringify({ type: name })), 400, 'MONITORING_FIELD_INVALID', { key: 'type' });
    expectMetricsError(await send('PUT', `${checks()}/${tree.check}`, JSON.stringify({ type: name, details: {} })), 400, 'MONITORING_FIELD_INVALID', { key: 'type' });
    expect(await everything()).toEqual(before);
  });
});

describe('references and types named by reserved names', () => {
  it.each(RESERVED)('a notification type %s is refused', async (name) => {
    const before = await everything();
    expectMetricsError(await send('POST', `${B}/notifications`, JSON.stringify({ label: 'n', type: name })), 400, 'MONITORING_FIELD_INVALID', { key: 'type' });
    expect(await everything()).toEqual(before);
  });

  it.each(MAP_SAFE)('a notification detail %s is an unknown key', async (name) => {
    const before = await everything();
    const body = { label: 'n', type: 'webhook', details: { url: 'https://hooks.example.com/', [name]: 'x' } };
    expectMetricsError(await send('POST', `${B}/notifications`, JSON.stringify(body)), 400, 'MONITORING_FIELD_INVALID', { key: `details.${name}` });
    expect(await everything()).toEqual(before);
  });

  it.each(RESERVED)('an alarm naming check or plan %s, or a plan naming it as a notification, is refused', async (name) => {
    const before = await everything();
    const alarms = `${B}/entities/${tree.entity}/alarms`;
    expectMetricsError(await send('POST', alarms, JSON.stringify({ check_id: name, notification_plan_id: tree.plan })), 400, 'MONITORING_FIELD_INVALID', { key: 'check_id' });
    expectMetricsError(await send('POST', alarms, JSON.stringify({ check_id: tree.check, notification_plan_id: name })), 400, 'MONITORING_FIELD_INVALID', {
      key: 'notification_plan_id',
    });
    expectMetricsError(await send('POST', `${B}/notification_plans`, JSON.stringify({ label: 'p', ok_state: [name] })), 400, 'MONITORING_FIELD_INVALID', { key: 'ok_state' });
    expect(await everything()).toEqual(before);
  });

  it.each(RESERVED)('alarm criteria naming metric %s parse and round-trip', async (name) => {
    const criteria = `if (metric['${name}'] > 1) { return new AlarmStatus(CRITICAL, '${name}'); } return new AlarmStatus(OK);`;
    const id = await created(`${B}/entities/${tree.entity}/alarms`, { check_id: tree.check, notification_plan_id: tree.plan, criteria });
    expect((await getJson(`${B}/entities/${tree.entity}/alarms/${id}`))['criteria']).toBe(criteria);
  });

  it.each(RESERVED)('an item id %s is a 404 for GET and PUT, not a 500', async (name) => {
    for (const c of COLLECTIONS) {
      const url = `${c.collection()}/${name}`;
      expectMetricsError(await send('GET', url), 404, 'MONITORING_OBJECT_NOT_FOUND');
      expectMetricsError(await send('PUT', url, JSON.stringify({})), 404, 'MONITORING_OBJECT_NOT_FOUND');
    }
    const orphan = await send('GET', `${B}/entities/${name}/checks`);
    expect(orphan.status, orphan.text).toBe(404);
    expect(orphan.json).toMatchObject({ type: 'parentNotFoundError', code: 404, details: { code: 'MONITORING_PARENT_NOT_FOUND' } });
  });
});
