// Checks the monitoring plugin's request validation in-process (fastify inject): body schemas of every collection, paging, changelog and plot parameters, all in the monitoring error shape.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../harness.js';
import { tokenOf } from '../../inject.js';

const B = '/monitoring/v1.0/t1';
const JSON_TYPE = 'application/json';

let h: Harness;
let alice: string;

/** What a request sends: a JSON value, or raw text with its Content-Type (or none); alice's token unless `token` says otherwise (null: none). */
interface Send {
  readonly json?: unknown;
  readonly raw?: string;
  readonly type?: string;
  readonly token?: string | null;
}

/** One in-process request. */
async function send(method: string, url: string, options: Send = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? alice : options.token;
  if (token !== null) headers['x-auth-token'] = token;
  const payload = options.json !== undefined ? JSON.stringify(options.json) : options.raw;
  const type = options.json !== undefined ? JSON_TYPE : options.type;
  if (type !== undefined) headers['content-type'] = type;
  return h.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
}

/** A token for a harness user, asked for in-process. */
/** Asserts an error in the monitoring shape: exactly {type, code, message, details: {code, ...}, txnId}. */
function expectFault(res: LightMyRequestResponse, status: number, type: string, code: string): Record<string, any> {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json() as Record<string, any>;
  expect(Object.keys(body).sort()).toEqual(['code', 'details', 'message', 'txnId', 'type']);
  expect(body['type']).toBe(type);
  expect(body['code']).toBe(status);
  expect(typeof body['message']).toBe('string');
  expect(body['details']).toMatchObject({ code });
  expect(body['txnId']).toBe(res.headers['x-response-id']);
  return body;
}

/** Asserts the 400 of a body that broke its schema, naming `key`. */
function expectFieldError(res: LightMyRequestResponse, key: string): void {
  const body = expectFault(res, 400, 'badRequest', 'MONITORING_FIELD_INVALID');
  expect(body['message']).toBe(`Validation error for key '${key}'`);
  expect(body['details']['key']).toBe(key);
  expect(typeof body['details']['problem']).toBe('string');
}

/** POSTs a create, checks 201 with an empty body and matching Location and X-Object-ID, and returns the id. */
async function create(path: string, json: unknown): Promise<string> {
  const res = await send('POST', path, { json });
  expect(res.statusCode, `${path}: ${res.body}`).toBe(201);
  expect(res.body).toBe('');
  const id = res.headers['x-object-id'] as string;
  expect(id).toMatch(/^[A-Za-z0-9]+$/);
  expect(String(res.headers['location'])).toMatch(new RegExp(`${path}/${id}$`));
  return id;
}

async function getJson(path: string): Promise<Record<string, any>> {
  const res = await send('GET', path);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Record<string, any>;
}

/** The number of items a collection lists (all fit one page in these tests). */
async function countOf(path: string): Promise<number> {
  return (await getJson(`${path}?limit=1000`))['values'].length as number;
}

/** A remote.http check body polling two zones, targeting the entity's `web` address. */
function httpCheck(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const details = { url: 'https://example.com/', method: 'GET' };
  return { label: 'Website', type: 'remote.http', details, monitoring_zones_poll: ['mzdfw', 'mzord'], target_alias: 'web', period: 60, timeout: 30, ...extra };
}

/** Objects the collections below hang off or refer to, created once. */
const tree = { entity: '', check: '', agentCheck: '', notification: '', plan: '' };

/** A body change that breaks the schema: merged into a valid create body, or sent alone as an update. */
interface Breaker {
  readonly name: string;
  readonly patch: Record<string, unknown>;
  readonly key: string;
}

function breaker(name: string, patch: Record<string, unknown>, key: string): Breaker {
  return { name, patch, key };
}

/** One collection under test. */
interface Collection {
  readonly name: string;
  path(): string;
  /** A valid create body (a fresh one each call). */
  create(): Record<string, unknown>;
  /** The key a create body without it is refused for (none where the schema requires nothing). */
  readonly required: string | undefined;
  /** A valid update and what a GET shows after it (a function: it may name objects created in beforeAll). */
  update(): [Record<string, unknown>, Record<string, unknown>];
  readonly breakers: readonly Breaker[];
}

const unknownKey = breaker('an unknown key', { colour: 'red' }, 'colour');
const longLabel = breaker('a label over 255 characters', { label: 'x'.repeat(256) }, 'label');
const numberLabel = breaker('a number as label', { label: 5 }, 'label');
const stringMetadata = breaker('metadata as a string', { metadata: 'k=v' }, 'metadata');
const longMetadataValue = breaker('a metadata value over 255 characters', { metadata: { k: 'v'.repeat(256) } }, 'metadata');

const COLLECTIONS: readonly Collection[] = [
  {
    name: 'entities', required: 'label',
    path: () => `${B}/entities`,
    create: () => ({ label: 'db-1', ip_addresses: { main: '192.0.2.1' }, metadata: { role: 'db' } }),
    update: () => [{ label: 'db-2', managed: true }, { label: 'db-2', managed: true, metadata: { role: 'db' } }],
    breakers: [
      numberLabel, longLabel, stringMetadata, longMetadataValue, unknownKey,
      breaker('a string as managed', { managed: 'yes' }, 'managed'),
      breaker('a uri over 1024 characters', { uri: `https://example.com/${'a'.repeat(1024)}` }, 'uri'),
      breaker('an ip address that is not one', { ip_addresses: { main: 'not-an-ip' } }, 'ip_addresses'),
    ],
  },
  {
    name: 'checks', required: 'type',
    path: () => `${B}/entities/${tree.entity}/checks`,
    create: () => httpCheck(),
    update: () => [{ label: 'renamed', period: 120, disabled: true }, { label: 'renamed', period: 120, disabled: true, type: 'remote.http' }],
    breakers: [
      longLabel, stringMetadata, unknownKey,
      breaker('a string as period', { period: '60' }, 'period'),
      breaker('a fractional timeout', { timeout: 2.5 }, 'timeout'),
      breaker('a period above the maximum', { period: 1801 }, 'period'),
      breaker('a target_hostname over 255 characters', { target_hostname: `${'a'.repeat(256)}.com` }, 'target_hostname'),
      breaker('zones as a string', { monitoring_zones_poll: 'mzdfw' }, 'monitoring_zones_poll'),
    ],
  },
  {
    name: 'alarms', required: 'check_id',
    path: () => `${B}/entities/${tree.entity}/alarms`,
    create: () => ({ check_id: tree.check, notification_plan_id: tree.plan, label: 'status', criteria: 'return new AlarmStatus(OK);' }),
    update: () => [{ label: 'renamed', disabled: true }, { label: 'renamed', disabled: true }],
    breakers: [
      longLabel, stringMetadata, unknownKey,
      breaker('a string as disabled', { disabled: 'yes' }, 'disabled'),
      breaker('a number as criteria', { criteria: 42 }, 'criteria'),
      breaker('criteria over 16384 characters', { criteria: `# ${'x'.repeat(16_384)}` }, 'criteria'),
      breaker('a notification_plan_id over 64 characters', { notification_plan_id: 'n'.repeat(65) }, 'notification_plan_id'),
    ],
  },
  {
    name: 'notifications', required: 'label',
    path: () => `${B}/notifications`,
    create: () => ({ label: 'ops mail', type: 'email', details: { address: 'ops@example.com' } }),
    update: () => [{ label: 'ops mailbox', metadata: { team: 'ops' } }, { label: 'ops mailbox', type: 'email', details: { address: 'ops@example.com' }, metadata: { team: 'ops' } }],
    breakers: [
      numberLabel, longLabel, longMetadataValue, unknownKey,
      breaker('an unknown type', { type: 'pigeon' }, 'type'),
      breaker('an address over 254 characters', { type: 'email', details: { address: `${'a'.repeat(250)}@example.com` } }, 'details.address'),
    ],
  },
  {
    name: 'notification_plans', required: 'label',
    path: () => `${B}/notification_plans`,
    create: () => ({ label: 'web team', critical_state: [tree.notification] }),
    update: () => [{ label: 'web team 2', warning_state: [tree.notification] }, { label: 'web team 2', critical_state: [tree.notification], warning_state: [tree.notification] }],
    breakers: [
      numberLabel, longLabel, stringMetadata, unknownKey,
      breaker('a state list as a string', { critical_state: 'ntX' }, 'critical_state'),
      breaker('a state list of numbers', { ok_state: [1, 2] }, 'ok_state'),
      breaker('a state list over 64 ids', { warning_state: Array.from({ length: 65 }, (_, i) => `nt${i}`) }, 'warning_state'),
    ],
  },
  {
    name: 'agent_tokens', required: undefined,
    path: () => `${B}/agent_tokens`,
    create: () => ({ label: 'host-1' }),
    update: () => [{ label: 'host-2' }, { label: 'host-2' }],
    breakers: [numberLabel, longLabel, unknownKey, breaker('an empty label', { label: '' }, 'label')],
  },
];

/** Bodies that are JSON but not an object: refused naming key 'body'. */
const NOT_OBJECTS = [['null', 'null'], ['an empty array', '[]'], ['an array of an object', '[{"label":"x"}]'], ['a string', '"label"'], ['a number', '42']].map(([name, raw]) => ({ name, raw }));

/** Bodies that are not JSON at all. */
const UNPARSABLE = [['a truncated object', '{"label": "x"'], ['bare words', '{oops}'], ['a trailing comma', '{"label": "x",}'], ['an empty body', '']].map(([name, raw]) => ({ name, raw }));

beforeAll(async () => {
  h = await startHarness({});
  alice = await tokenOf(h, 'alice');
  tree.entity = await create(`${B}/entities`, { label: 'web-1', ip_addresses: { web: '192.0.2.10' } });
  tree.check = await create(`${B}/entities/${tree.entity}/checks`, httpCheck());
  tree.agentCheck = await create(`${B}/entities/${tree.entity}/checks`, { type: 'agent.disk', details: { target: '/dev/sda1' } });
  tree.notification = await create(`${B}/notifications`, { label: 'ops', type: 'email', details: { address: 'ops@example.com' } });
  tree.plan = await create(`${B}/notification_plans`, { label: 'plan', critical_state: [tree.notification] });
});
afterAll(async () => h.close());

describe.each(COLLECTIONS)('monitoring $name bodies', (collection) => {
  /** An object of the collection that only rejected writes touch, and how it looked after creation. */
  let id = '';
  let snapshot: Record<string, any> = {};
  const item = (): string => `${collection.path()}/${id}`;

  beforeAll(async () => {
    id = await create(collection.path(), collection.create());
    snapshot = await getJson(item());
  });

  /** A rejected write left the object as it was and created nothing. */
  async function expectUnchanged(countBefore: number): Promise<void> {
    expect(await getJson(item())).toEqual(snapshot);
    expect(await countOf(collection.path())).toBe(countBefore);
  }

  it('accepts a valid create (201) and stores it', async () => {
    const body = collection.create();
    const created = await create(collection.path(), body);
    const got = await getJson(`${collection.path()}/${created}`);
    expect(got['id']).toBe(created);
    for (const [key, value] of Object.entries(body)) {
      // Check details are stored with their defaults filled in.
      if (key === 'details' && collection.name === 'checks') expect(got[key]).toMatchObject(value as object);
      else expect(got[key], key).toEqual(value);
    }
  });

  it('accepts a valid update (204 with Location) and stores it, keeping the keys left out', async () => {
    const target = await create(collection.path(), collection.create());
    const [update, stored] = collection.update();
    const res = await send('PUT', `${collection.path()}/${target}`, { json: update });
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    expect(String(res.headers['location'])).toMatch(new RegExp(`${collection.path()}/${target}$`));
    expect(await getJson(`${collection.path()}/${target}`)).toMatchObject(stored);
  });

  // Creates and updates are separate cases, so that one answered wrongly does not hide the other.
  const writes = [['POST', 'a create', () => collection.path()], ['PUT', 'an update', () => item()]] as const;
  const forEachWrite = <T extends object>(cases: readonly T[]) => writes.flatMap(([method, write, url]) => cases.map((one) => ({ method, write, url, ...one })));

  it.each(forEachWrite(collection.breakers))('refuses $write with $name, naming the key, and changes nothing', async ({ method, url, patch, key }) => {
    const before = await countOf(collection.path());
    expectFieldError(await send(method, url(), { json: method === 'POST' ? { ...collection.create(), ...patch } : patch }), key);
    await expectUnchanged(before);
  });

  if (collection.required !== undefined) {
    const required = collection.required;
    it(`refuses a create without '${required}', naming it`, async () => {
      const before = await countOf(collection.path());
      const body = collection.create();
      delete body[required];
      expectFieldError(await send('POST', collection.path(), { json: body }), required);
      expectFieldError(await send('POST', collection.path(), { json: {} }), required);
      await expectUnchanged(before);
    });
  }

  it.each(forEachWrite(NOT_OBJECTS))('refuses $name as $write body, naming key body, and changes nothing', async ({ method, url, raw }) => {
    const before = await countOf(collection.path());
    expectFieldError(await send(method, url(), { raw, type: JSON_TYPE }), 'body');
    await expectUnchanged(before);
  });

  it.each(forEachWrite(UNPARSABLE))('refuses $name sent as JSON in $write with a 400 in the monitoring shape, and changes nothing', async ({ method, url, raw }) => {
    const before = await countOf(collection.path());
    expectFault(await send(method, url(), { raw, type: JSON_TYPE }), 400, 'badRequest', 'HTTP_BODY_INVALID');
    await expectUnchanged(before);
  });

  it('answers 415 in the monitoring shape for text/plain and XML bodies, and changes nothing', async () => {
    const before = await countOf(collection.path());
    for (const type of ['text/plain', 'application/xml']) {
      const raw = type === 'text/plain' ? JSON.stringify(collection.create()) : '<label>x</label>';
      expectFault(await send('POST', collection.path(), { raw, type }), 415, 'unsupportedMediaTypeError', 'HTTP_CONTENT_TYPE_UNSUPPORTED');
      expectFault(await send('PUT', item(), { raw, type }), 415, 'unsupportedMediaTypeError', 'HTTP_CONTENT_TYPE_UNSUPPORTED');
    }
    await expectUnchanged(before);
  });
});

describe('a create without any body', () => {
  it('creates an agent token: the create schema requires nothing, so a missing body is {}', async () => {
    const res = await send('POST', `${B}/agent_tokens`);
    expect(res.statusCode, res.body).toBe(201);
    const id = res.headers['x-object-id'] as string;
    const got = await getJson(`${B}/agent_tokens/${id}`);
    expect(got).toMatchObject({ id, label: null });
    expect(got['token']).toMatch(/^[0-9a-f]{64}:t1$/);
  });

  it.each(COLLECTIONS.filter((collection) => collection.required !== undefined))('is refused for $name, naming key body', async ({ path }) => {
    const before = await countOf(path());
    expectFieldError(await send('POST', path()), 'body');
    expect(await countOf(path())).toBe(before);
  });
});

describe('updates with details but no type are validated against the stored type', () => {
  const checkPath = (id: string): string => `${B}/entities/${tree.entity}/checks/${id}`;

  it('a remote.http check takes a valid new url (204) and stores it', async () => {
    const id = await create(`${B}/entities/${tree.entity}/checks`, httpCheck());
    const res = await send('PUT', checkPath(id), { json: { details: { url: 'https://new.example.com/health' } } });
    expect(res.statusCode, res.body).toBe(204);
    const got = await getJson(checkPath(id));
    expect(got['type']).toBe('remote.http');
    expect(got['details']['url']).toBe('https://new.example.com/health');
  });

  it('a remote.http check refuses an invalid url, a missing url and an unknown detail, naming details.<key>, and keeps its details', async () => {
    const id = await create(`${B}/entities/${tree.entity}/checks`, httpCheck());
    const before = await getJson(checkPath(id));
    const cases: [unknown, string][] = [
      ...[{ url: 'ftp://example.com/' }, { url: 'not a url' }, { url: 5 }, { url: `https://example.com/${'a'.repeat(8096)}` }, {}].map((details): [unknown, string] => [details, 'details.url']),
      [{ url: 'https://example.com/', method: 'BREW' }, 'details.method'],
      [{ url: 'https://example.com/', target: '/dev/sda1' }, 'details.target'],
    ];
    for (const [details, key] of cases) expectFieldError(await send('PUT', checkPath(id), { json: { details } }), key);
    expect(await getJson(checkPath(id))).toEqual(before);
  });

  it('an agent.disk check is held to its own details (target), not remote.http ones', async () => {
    expectFieldError(await send('PUT', checkPath(tree.agentCheck), { json: { details: { url: 'https://example.com/' } } }), 'details.target');
    expect((await getJson(checkPath(tree.agentCheck)))['details']).toEqual({ target: '/dev/sda1' });
    const res = await send('PUT', checkPath(tree.agentCheck), { json: { details: { target: '/dev/sdb1' } } });
    expect(res.statusCode, res.body).toBe(204);
    expect((await getJson(checkPath(tree.agentCheck)))['details']).toEqual({ target: '/dev/sdb1' });
  });

  it('a check update naming its own type with details is accepted; naming another type is refused with key type', async () => {
    const id = await create(`${B}/entities/${tree.entity}/checks`, httpCheck());
    const same = await send('PUT', checkPath(id), { json: { type: 'remote.http', details: { url: 'https://same.example.com/' } } });
    expect(same.statusCode, same.body).toBe(204);
    const before = await getJson(checkPath(id));
    expect(before['details']['url']).toBe('https://same.example.com/');
    for (const json of [{ type: 'agent.cpu' }, { type: 'agent.cpu', details: {} }, { type: 'remote.telnet', details: { url: 'https://example.com/' } }, { type: 'remote.ping' }]) {
      expectFieldError(await send('PUT', checkPath(id), { json }), 'type');
    }
    expect(await getJson(checkPath(id))).toEqual(before);
  });

  it('an email notification takes a valid new address (204) and refuses a bad one naming details.address', async () => {
    const id = await create(`${B}/notifications`, { label: 'mail', type: 'email', details: { address: 'a@example.com' } });
    const path = `${B}/notifications/${id}`;
    const ok = await send('PUT', path, { json: { details: { address: 'b@example.org' } } });
    expect(ok.statusCode, ok.body).toBe(204);
    const before = await getJson(path);
    expect(before).toMatchObject({ type: 'email', details: { address: 'b@example.org' } });
    const cases: [unknown, string][] = [
      // The last one lacks the stored type's required address, whatever else is wrong with it.
      ...[{ address: 'not-an-address' }, { address: 'a b@example.com' }, { address: 7 }, {}, { url: 'https://hooks.example.com/' }].map((details): [unknown, string] => [details, 'details.address']),
      [{ address: 'c@example.com', url: 'https://hooks.example.com/' }, 'details.url'],
    ];
    for (const [details, key] of cases) expectFieldError(await send('PUT', path, { json: { details } }), key);
    expect(await getJson(path)).toEqual(before);
  });

  it('an update of a missing check or notification with details is a 404 in the monitoring shape, not a 400 or 500', async () => {
    expectFault(await send('PUT', checkPath('chMissing1'), { json: { details: { url: 'https://example.com/' } } }), 404, 'notFoundError', 'MONITORING_OBJECT_NOT_FOUND');
    expectFault(await send('PUT', `${B}/notifications/ntMissing1`, { json: { details: { address: 'a@example.com' } } }), 404, 'notFoundError', 'MONITORING_OBJECT_NOT_FOUND');
  });
});

describe('monitoring paging parameters', () => {
  const lists = (): string[] =>
    ['entities', `entities/${tree.entity}/checks`, `entities/${tree.entity}/alarms`, 'notifications', 'notification_plans', 'agent_tokens', 'agents', 'notification_types', 'monitoring_zones', 'changelogs/alarms', `entities/${tree.entity}/checks/${tree.check}/metrics`].map(
      (path) => `${B}/${path}`,
    );

  // Repeated limits are refused even when both values are valid.
  it.each(['0', '1001', 'abc', '1.5', '-1', '', '0x10', 'true', '5&limit=6', '5&limit=5'])('limit=%s is invalidLimit (LIST_LIMIT_INVALID) on every list', async (limit) => {
    for (const path of lists()) {
      const body = expectFault(await send('GET', `${path}?limit=${limit}`), 400, 'invalidLimit', 'LIST_LIMIT_INVALID');
      expect(body['details']['field'], path).toBe('limit');
    }
  });

  it('limits 1 and 1000 are served on every list', async () => {
    for (const path of lists()) {
      for (const limit of [1, 1000]) {
        const res = await send('GET', `${path}?limit=${limit}`);
        expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
        expect(res.json().metadata.limit).toBe(limit);
      }
    }
  });
});

describe('monitoring changelog window parameters', () => {
  const path = `${B}/changelogs/alarms`;

  it.each([
    ['from', 'abc'], ['from', '1.5'], ['from', '2024-01-01T00:00:00Z'], ['to', 'soon'], ['to', '12.25'], ['to', 'true'],
    // Not decimal integers: the query-string coercion must not read them as 16, 500 and 0.
    ['from', '0x10'], ['to', '0x1F4'], ['from', ' '],
  ])('%s=%s is a 400 badRequest naming the parameter', async (name, value) => {
    const other = name === 'from' ? 'to=1000' : 'from=0';
    const body = expectFault(await send('GET', `${path}?${name}=${encodeURIComponent(value)}&${other}`), 400, 'badRequest', 'QUERY_INVALID');
    expect(body['details']['field']).toBe(name);
  });

  it('a repeated from or to is a 400 badRequest', async () => {
    expectFault(await send('GET', `${path}?from=0&from=1&to=1000`), 400, 'badRequest', 'QUERY_INVALID');
    expectFault(await send('GET', `${path}?from=0&to=1000&to=2000`), 400, 'badRequest', 'QUERY_INVALID');
  });

  it('integer from and to are served', async () => {
    expect((await send('GET', `${path}?from=0&to=1000`)).json()).toMatchObject({ values: [], metadata: { count: 0 } });
  });
});

describe('monitoring plot parameters (operation 6)', () => {
  const plot = (query: string): string => `${B}/entities/${tree.entity}/checks/${tree.check}/metrics/mzdfw.duration/plot?${query}`;
  const HOUR = 3_600_000;

  it.each([
    ['to=1000&resolution=FULL', 'from'],
    ['from=0&resolution=FULL', 'to'],
    ['from=abc&to=1000&resolution=FULL', 'from'],
    ['from=0&to=1.5&resolution=FULL', 'to'],
    ['from=0&to=1000&points=many', 'points'],
    ['from=0&from=1&to=1000&resolution=FULL', 'from'],
    ['from=0x10&to=1000&resolution=FULL', 'from'],
    ['from=%20&to=1000&resolution=FULL', 'from'],
  ])('%s is a 400 QUERY_INVALID naming %s', async (query, parameter) => {
    const body = expectFault(await send('GET', plot(query)), 400, 'badRequest', 'QUERY_INVALID');
    expect(body['details']['field']).toBe(parameter);
  });

  it.each([
    ['from=1000&to=1000&resolution=FULL', 'QUERY_RANGE_INVALID'],
    ['from=2000&to=1000&resolution=FULL', 'QUERY_RANGE_INVALID'],
    ['from=0&to=1000', 'QUERY_POINTS_OR_RESOLUTION_REQUIRED'],
    ['from=0&to=1000&resolution=MIN7', 'QUERY_RESOLUTION_INVALID'],
    ['from=0&to=1000&resolution=', 'QUERY_RESOLUTION_INVALID'],
    ['from=0&to=1000&resolution=FULL&select=median', 'QUERY_SELECT_INVALID'],
    ['from=0&to=1000&points=-1', 'QUERY_INVALID'],
  ])("%s is the planner's 400 %s", async (query, code) => {
    expectFault(await send('GET', plot(query)), 400, 'badRequest', code);
  });

  it('a range over 1440 points at the asked resolution is a 413 QUERY_POINTS_OVER_LIMIT', async () => {
    expectFault(await send('GET', plot(`from=0&to=${30 * 24 * HOUR}&resolution=MIN5`)), 413, 'requestTooLargeError', 'QUERY_POINTS_OVER_LIMIT');
  });

  it('valid parameters are served (any-case resolution, repeated select)', async () => {
    for (const query of [`from=0&to=${HOUR}&resolution=full`, `from=0&to=${HOUR}&points=10&select=min&select=max`, `from=0&to=${HOUR}&resolution=MIN5&select=average,variance`]) {
      const res = await send('GET', plot(query));
      expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
      expect(res.json()).toMatchObject({ values: [], metadata: { count: 0, limit: null } });
    }
  });
});

describe('monitoring method, media and URL errors', () => {
  it('answers 405 with Allow in the monitoring shape for methods a resource does not have', async () => {
    const [collection, item, readOnly] = ['GET, HEAD, POST', 'GET, HEAD, PUT, DELETE', 'GET, HEAD'];
    const cases: [string, string, string][] = [
      ['PATCH', `${B}/entities`, collection], ['DELETE', `${B}/entities`, collection], ['PUT', `${B}/entities`, collection],
      ['POST', `${B}/entities/${tree.entity}`, item], ['PATCH', `${B}/entities/${tree.entity}/checks/${tree.check}`, item],
      ['POST', `${B}/agents`, readOnly], ['DELETE', `${B}/notification_types`, readOnly], ['POST', `${B}/changelogs/alarms`, readOnly],
    ];
    for (const [method, path, allow] of cases) {
      const res = await send(method, path, { json: { label: 'x' } });
      expectFault(res, 405, 'methodNotAllowedError', 'HTTP_METHOD_NOT_ALLOWED');
      expect(res.headers['allow'], `${method} ${path}`).toBe(allow);
    }
  });

  it('answers 404 in the monitoring shape for unknown URLs under /monitoring/v1.0, with or without a token', async () => {
    const paths = [`${B}/nonsense`, `${B}/entities/${tree.entity}/checks/${tree.check}/extra/more`, '/monitoring/v1.0/', '/monitoring/v1.0/t1/entities/x/y/z/w'];
    for (const path of paths) {
      for (const token of [alice, null]) {
        const body = expectFault(await send('GET', path, { token }), 404, 'notFoundError', 'HTTP_ROUTE_NOT_FOUND');
        expect(body['message']).toContain(path);
      }
    }
    expectFault(await send('POST', `${B}/nonsense`, { json: { label: 'x' } }), 404, 'notFoundError', 'HTTP_ROUTE_NOT_FOUND');
  });

  it('answers 404 in the monitoring shape for unknown objects', async () => {
    expectFault(await send('GET', `${B}/entities/enMissing01`), 404, 'notFoundError', 'MONITORING_OBJECT_NOT_FOUND');
    expectFault(await send('PUT', `${B}/entities/enMissing01`, { json: { label: 'x' } }), 404, 'notFoundError', 'MONITORING_OBJECT_NOT_FOUND');
  });
});
