// Owns the valid request bodies the byte-level fuzz starts from: the OpenAPI document's examples of each route, plus bodies naming live objects and credentials.
import { pack } from 'msgpackr';
import { KEYS } from '../http/harness.js';
import { FUZZ_NOW_MS, RESERVED_USERS, SEEDED_METRIC, type FuzzWorld } from './fuzz-world.js';
import type { Operation } from './route-catalog.js';

/** A valid body of a route, as bytes with its media type. */
export interface SeedBody {
  readonly type: string;
  readonly bytes: Buffer;
}

export const JSON_TYPE = 'application/json';
export const MSGPACK_TYPE = 'application/x-msgpack';
export const ATOM_TYPE = 'application/atom+xml';
const ATOM_JSON_TYPE = 'application/vnd.rackspace.atom+json';
const ATOM_NS = 'http://www.w3.org/2005/Atom';

/** Valid Atom entry documents (default namespace, prefixed, with categories and Base64 content). */
export const ATOM_ENTRIES: readonly string[] = [
  `<?xml version="1.0" encoding="UTF-8"?><entry xmlns="${ATOM_NS}"><title>disk full</title><category term="monitoring.alerts.disk"/><content type="text">at 99%</content></entry>`,
  `<atom:entry xmlns:atom="${ATOM_NS}"><atom:title type="text">usage</atom:title><atom:content type="application/json">eyJhIjoxfQ==</atom:content></atom:entry>`,
];

function encode(type: string, value: unknown): SeedBody {
  return { type, bytes: type.includes('msgpack') ? pack(value) : Buffer.from(JSON.stringify(value)) };
}

/** A Blueflood batch of every value kind, at the fuzz clock's time (multi: with tenant ids). */
function ingestBatch(multi: boolean): unknown[] {
  const at = FUZZ_NOW_MS - 60_000;
  const tenant = multi ? { tenantId: 't1' } : {};
  return [
    { ...tenant, metricName: 'fuzz.ingest.a', metricValue: 42.5, collectionTime: at, ttlInSeconds: 172_800, unit: 'percent' },
    { ...tenant, metricName: 'fuzz.ingest.b', metricValue: 'up', collectionTime: at + 1 },
    { ...tenant, metricName: 'fuzz.ingest.c', metricValue: null, collectionTime: at + 2 },
  ];
}

/** Bodies naming the world's live objects, per collection path (the suffix of the route pattern). */
function monitoringBodies(world: FuzzWorld, pattern: string, method: string): unknown[] {
  const ids = world.ids;
  const httpCheck = { label: 'site', type: 'remote.http', details: { url: 'https://example.com/', method: 'GET' }, monitoring_zones_poll: ['mzdfw'], target_alias: 'web', period: 60, timeout: 30 };
  const update = method === 'PUT';
  if (/\/entities(\/:entityId)?$/.test(pattern)) return [update ? { label: 'renamed', managed: true } : { label: 'db-1', ip_addresses: { main: '192.0.2.1' }, metadata: { role: 'db' } }];
  if (/\/checks(\/:checkId)?$/.test(pattern)) return [update ? { label: 'renamed', period: 120, details: { url: 'https://example.org/' } } : httpCheck];
  if (/\/alarms(\/:alarmId)?$/.test(pattern)) {
    return [update ? { label: 'renamed', criteria: 'if (metric["code"] != "200") { return new AlarmStatus(CRITICAL); }' } : { check_id: ids.check, notification_plan_id: ids.plan, criteria: 'return new AlarmStatus(OK);' }];
  }
  if (/\/notifications(\/:notificationId)?$/.test(pattern)) return [{ label: 'ops mail', type: 'email', details: { address: 'ops@example.com' } }];
  if (/\/notification_plans(\/:planId)?$/.test(pattern)) return [{ label: 'web team', critical_state: [ids.notification], ok_state: [ids.notification] }];
  if (/\/agent_tokens(\/:tokenId)?$/.test(pattern)) return [{ label: 'host-2' }];
  return [];
}

/**
 * The valid bodies of an operation: every example its OpenAPI document shows (in each media type
 * it reads, msgpack packed), and bodies with real credentials, current points, live ids and Atom.
 */
export function seedBodies(world: FuzzWorld, op: Operation): SeedBody[] {
  const seeds: SeedBody[] = [];
  for (const example of op.examples) {
    for (const type of op.bodyTypes.length > 0 ? op.bodyTypes : [example.type]) seeds.push(encode(type, example.value));
  }
  const { pattern, method } = op;
  if (method === 'POST' && pattern === '/v2.0/tokens') {
    const credentials = { username: 'alice', apiKey: KEYS.alice };
    seeds.push(encode(JSON_TYPE, { auth: { 'RAX-KSKEY:apiKeyCredentials': credentials } }));
    seeds.push(encode(JSON_TYPE, { auth: { 'RAX-KSKEY:apiKeyCredentials': credentials, tenantId: 't1' } }));
    seeds.push(encode(JSON_TYPE, { auth: { 'RAX-KSKEY:apiKeyCredentials': { username: '__proto__', apiKey: RESERVED_USERS.__proto__.apiKey }, tenantName: '__proto__' } }));
  }
  if (method === 'POST' && pattern.startsWith('/ingest/')) {
    const batch = ingestBatch(pattern.endsWith('/multi'));
    seeds.push(encode(JSON_TYPE, batch), encode(MSGPACK_TYPE, batch));
  }
  if (method === 'POST' && pattern.endsWith('/views')) seeds.push(encode(JSON_TYPE, [SEEDED_METRIC, 'web01.cpu']));
  if ((method === 'POST' || method === 'PUT') && pattern.startsWith('/monitoring/')) {
    for (const body of monitoringBodies(world, pattern, method)) seeds.push(encode(JSON_TYPE, body));
  }
  if (method === 'POST' && pattern.startsWith('/feeds/') && pattern.endsWith('/events')) {
    for (const entry of ATOM_ENTRIES) seeds.push({ type: ATOM_TYPE, bytes: Buffer.from(entry) });
    seeds.push(encode(JSON_TYPE, { entry: { title: 'json entry', category: [{ term: 'a.b' }], content: { type: 'text', '@text': 'hello' } } }));
    seeds.push(encode(ATOM_JSON_TYPE, { entry: { title: { '@text': 'atom json' } } }));
  }
  return seeds;
}
