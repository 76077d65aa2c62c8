// Checks the check and entity bodies at their edges, as the API judges them (schema, then rules): period, timeout, zones, targets, ids and metadata.
import { describe, expect, it } from 'vitest';
import { isAgentId } from '../../src/monitoring/agent-rules.js';
import { checkDoc, type CheckContext, type CheckDoc } from '../../src/monitoring/check-rules.js';
import { entityDoc } from '../../src/monitoring/entity-rules.js';
import type { CheckCreate, CheckUpdate } from '../../src/monitoring/schemas/check-schema.js';
import type { EntityCreate } from '../../src/monitoring/schemas/entity-schema.js';
import { MONITORING_BODY_SCHEMAS } from '../../src/monitoring/schemas/monitoring-body-schemas.js';
import { bodyKey } from './body-verdict.js';

const context: CheckContext = { zoneIds: ['mzdfw', 'mzord'], addressNames: ['web'] };
const http = (extra: Record<string, unknown>) => ({ type: 'remote.http', details: { url: 'https://x.example' }, monitoring_zones_poll: ['mzdfw'], target_alias: 'web', ...extra });

/** The key the API names for a check create body, or 'ok'. */
const createKey = (body: unknown) => bodyKey<CheckCreate>(MONITORING_BODY_SCHEMAS.check.create, body, (input) => checkDoc(input, context));
/** The key the API names for a check update body over `existing`, or 'ok'. */
const updateKey = (existing: CheckDoc, body: unknown) => bodyKey<CheckUpdate>(MONITORING_BODY_SCHEMAS.check.update, body, (input) => checkDoc(input, context, existing));
/** The key the API names for an entity create body, or 'ok'. */
const entityKey = (body: unknown) => bodyKey<EntityCreate>(MONITORING_BODY_SCHEMAS.entity.create, body, (input) => entityDoc(input));

describe('check rules', () => {
  it('period is 30 to 1800 seconds', () => {
    expect(createKey(http({ period: 30, timeout: 29 }))).toBe('ok');
    expect(createKey(http({ period: 1800 }))).toBe('ok');
    expect(createKey(http({ period: 29 }))).toBe('period');
    expect(createKey(http({ period: 1801 }))).toBe('period');
    expect(createKey(http({ period: 60.5 }))).toBe('period');
    expect(createKey(http({ period: '60' }))).toBe('period');
  });

  it('timeout is at least 2 seconds and below the period', () => {
    expect(createKey(http({ period: 60, timeout: 59 }))).toBe('ok');
    expect(createKey(http({ period: 60, timeout: 60 }))).toBe('timeout');
    expect(createKey(http({ timeout: 2 }))).toBe('ok');
    expect(createKey(http({ timeout: 1 }))).toBe('timeout');
    expect(createKey(http({ period: 1800, timeout: 1800 }))).toBe('timeout');
  });

  it('remote checks need known zones and exactly one target', () => {
    expect(createKey(http({ monitoring_zones_poll: [] }))).toBe('monitoring_zones_poll');
    expect(createKey(http({ monitoring_zones_poll: ['mziad'] }))).toBe('monitoring_zones_poll');
    expect(createKey(http({ monitoring_zones_poll: undefined }))).toBe('monitoring_zones_poll');
    expect(createKey(http({ monitoring_zones_poll: null }))).toBe('monitoring_zones_poll');
    expect(createKey(http({ target_alias: undefined, target_hostname: 'www.example.com' }))).toBe('ok');
    expect(createKey(http({ target_alias: undefined }))).toBe('target_alias');
    expect(createKey(http({ target_hostname: 'www.example.com' }))).toBe('target_alias');
    expect(createKey(http({ target_alias: 'db' }))).toBe('target_alias');
    expect(createKey(http({ target_alias: undefined, target_hostname: '-bad-' }))).toBe('target_hostname');
    expect(createKey(http({ target_resolver: 'IPv5' }))).toBe('target_resolver');
    expect(checkDoc(http({ monitoring_zones_poll: ['mzord', 'mzord'] }) as CheckCreate, context).monitoring_zones_poll).toEqual(['mzord']);
  });

  it('agent checks take no remote fields and need their detail keys', () => {
    expect(createKey({ type: 'agent.cpu' })).toBe('ok');
    expect(createKey({ type: 'agent.cpu', target_alias: 'web' })).toBe('target_alias');
    expect(createKey({ type: 'agent.cpu', monitoring_zones_poll: null })).toBe('ok');
    expect(createKey({ type: 'agent.filesystem', details: {} })).toBe('details.target');
    expect(createKey({ type: 'agent.filesystem' })).toBe('details.target');
    expect(createKey({ type: 'agent.filesystem', details: { target: '/' } })).toBe('ok');
    expect(createKey({ type: 'agent.cpu', details: { nested: { a: 1 } } })).toBe('details.nested');
  });

  it('type is required and known; details must be an object', () => {
    expect(createKey({})).toBe('type');
    expect(createKey(http({ type: 'remote.telnet' }))).toBe('type');
    expect(createKey(http({ details: 'https://x.example' }))).toBe('details');
    expect(createKey(http({ details: null }))).toBe('details.url');
    expect(createKey(http({ colour: 'red' }))).toBe('colour');
  });

  it('remote.http details: url, method, and bounded headers, body_matches and payload', () => {
    const headers = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`h${i}`, 'v']));
    const details = (extra: Record<string, unknown>) => http({ details: { url: 'https://x.example', ...extra } });
    expect(createKey(details({ headers: headers(10) }))).toBe('ok');
    expect(createKey(details({ headers: headers(11) }))).toBe('details.headers');
    expect(createKey(details({ body_matches: headers(4) }))).toBe('ok');
    expect(createKey(details({ body_matches: headers(5) }))).toBe('details.body_matches');
    expect(createKey(details({ payload: 'p'.repeat(1024) }))).toBe('ok');
    expect(createKey(details({ payload: 'p'.repeat(1025) }))).toBe('details.payload');
    expect(createKey(details({ method: 'PATCH' }))).toBe('details.method');
    expect(createKey(details({ url: 'ftp://example.com' }))).toBe('details.url');
    expect(createKey(details({ colour: 'red' }))).toBe('details.colour');
    expect(checkDoc(details({}) as CheckCreate, context).details).toEqual({ url: 'https://x.example', method: 'GET', follow_redirects: true, include_body: false });
  });

  it('remote.tcp details: a port, bounded send_body and patterns, safe regular expressions, ssl false by default', () => {
    const tcp = (details: unknown) => http({ type: 'remote.tcp', details });
    expect(createKey(tcp({ port: 22 }))).toBe('ok');
    expect(checkDoc(tcp({ port: 22 }) as CheckCreate, context).details).toEqual({ port: 22, ssl: false });
    expect(createKey(tcp(null))).toBe('details.port');
    expect(createKey(tcp({}))).toBe('details.port');
    for (const port of [0, 65_536, 22.5, '22']) expect(createKey(tcp({ port })), String(port)).toBe('details.port');
    expect(createKey(tcp({ port: 65_535, ssl: true, send_body: 's'.repeat(1024), banner_match: 'b'.repeat(255), body_match: '^\\+OK' }))).toBe('ok');
    expect(createKey(tcp({ port: 1, send_body: 's'.repeat(1025) }))).toBe('details.send_body');
    expect(createKey(tcp({ port: 1, send_body: '' }))).toBe('details.send_body');
    expect(createKey(tcp({ port: 1, banner_match: 'b'.repeat(256) }))).toBe('details.banner_match');
    expect(createKey(tcp({ port: 1, ssl: 'yes' }))).toBe('details.ssl');
    expect(createKey(tcp({ port: 1, url: 'https://x.example' }))).toBe('details.url');
    // Patterns that could backtrack catastrophically, or do not compile, are refused by the rules naming their key.
    expect(createKey(tcp({ port: 1, banner_match: '(a+)+$' }))).toBe('details.banner_match');
    expect(createKey(tcp({ port: 1, body_match: '([a-z]*)*x' }))).toBe('details.body_match');
    expect(createKey(tcp({ port: 1, body_match: '(unclosed' }))).toBe('details.body_match');
    const stored = checkDoc(tcp({ port: 25, banner_match: '^220' }) as CheckCreate, context);
    expect(updateKey(stored, { type: 'remote.tcp', details: { port: 25, banner_match: '(x+)+' } })).toBe('details.banner_match');
    expect(updateKey(stored, { type: 'remote.tcp', details: { port: 587, banner_match: '^220 ' } })).toBe('ok');
  });

  it('remote.ping details: count 1 to 15, 5 when left out', () => {
    const ping = (details: unknown) => http({ type: 'remote.ping', details });
    expect(checkDoc(ping(null) as CheckCreate, context).details).toEqual({ count: 5 });
    expect(checkDoc(ping(undefined) as CheckCreate, context).details).toEqual({ count: 5 });
    expect(checkDoc(ping({ count: 15 }) as CheckCreate, context).details).toEqual({ count: 15 });
    for (const count of [1, 15]) expect(createKey(ping({ count }))).toBe('ok');
    for (const count of [0, 16, 2.5, '5']) expect(createKey(ping({ count })), String(count)).toBe('details.count');
    expect(createKey(ping({ count: 3, port: 7 }))).toBe('details.port');
    expect(createKey({ ...ping({}), monitoring_zones_poll: undefined })).toBe('monitoring_zones_poll');
  });

  it('remote.dns details: a query name, a record type (A by default) and a port (53 by default)', () => {
    const dns = (details: unknown) => http({ type: 'remote.dns', details });
    expect(checkDoc(dns({ query: 'example.com' }) as CheckCreate, context).details).toEqual({ query: 'example.com', record_type: 'A', port: 53 });
    expect(createKey(dns(null))).toBe('details.query');
    for (const query of ['example.com', 'example.com.', '_sip._tcp.example.com', '4.3.2.1.in-addr.arpa', 'localhost', `${'a'.repeat(63)}.com`]) {
      expect(createKey(dns({ query })), query).toBe('ok');
    }
    for (const query of ['', 'a..b', '-a.example', 'a-.example', 'exa mple.com', 'a/b', '.', `${'a'.repeat(64)}.com`, `${'a.'.repeat(127)}ab`]) {
      expect(createKey(dns({ query })), query).toBe('details.query');
    }
    for (const record_type of ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'PTR', 'SOA', 'SRV', 'TXT']) expect(createKey(dns({ query: 'example.com', record_type }))).toBe('ok');
    for (const record_type of ['ANY', 'a', 'MB']) expect(createKey(dns({ query: 'example.com', record_type }))).toBe('details.record_type');
    expect(createKey(dns({ query: 'example.com', port: 5353 }))).toBe('ok');
    expect(createKey(dns({ query: 'example.com', port: 0 }))).toBe('details.port');
    expect(createKey(dns({ query: 'example.com', target: '192.0.2.1' }))).toBe('details.target');
  });

  it('an update keeps the type and the fields it leaves out, and is judged with the stored ones', () => {
    const stored = checkDoc(http({ period: 60, timeout: 30, label: 'web' }) as CheckCreate, context);
    expect(updateKey(stored, { type: 'agent.cpu' })).toBe('type');
    expect(updateKey(stored, { type: 'remote.http' })).toBe('ok');
    expect(updateKey(stored, { details: { url: 'https://y.example' } })).toBe('type');
    expect(updateKey(stored, { type: 'remote.http', details: { url: 'ftp://y.example' } })).toBe('details.url');
    expect(updateKey(stored, { period: 30 })).toBe('timeout');
    expect(updateKey(stored, { target_alias: null })).toBe('target_alias');
    expect(updateKey(stored, { monitoring_zones_poll: ['mziad'] })).toBe('monitoring_zones_poll');
    expect(updateKey(stored, { label: 'x', colour: 'red' })).toBe('colour');
    expect(checkDoc({ disabled: true }, context, stored)).toEqual({ ...stored, disabled: true });
    const agent = checkDoc({ type: 'agent.disk', details: { target: '/dev/sda1' } }, context);
    expect(updateKey(agent, { target_hostname: 'www.example.com' })).toBe('target_hostname');
    expect(updateKey(agent, { type: 'agent.disk', details: {} })).toBe('details.target');
  });
});

describe('entity rules', () => {
  it('labels are 1 to 255 characters; ip_addresses at most 64 valid addresses', () => {
    expect(entityKey({ label: 'x'.repeat(255) })).toBe('ok');
    expect(entityKey({ label: 'x'.repeat(256) })).toBe('label');
    expect(entityKey({ label: '' })).toBe('label');
    expect(entityKey({})).toBe('label');
    const ips = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`a${i}`, `192.0.2.${i}`]));
    expect(entityKey({ label: 'x', ip_addresses: ips(64) })).toBe('ok');
    expect(entityKey({ label: 'x', ip_addresses: ips(65) })).toBe('ip_addresses');
    expect(entityKey({ label: 'x', ip_addresses: { a: '256.0.0.1' } })).toBe('ip_addresses');
    expect(entityKey({ label: 'x', ip_addresses: { a: '2001:db8::1' } })).toBe('ok');
    expect(entityKey({ label: 'x', ip_addresses: { '': '192.0.2.1' } })).toBe('ip_addresses');
  });

  it('metadata has at most 256 entries of 1 to 255 characters', () => {
    const entries = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    const metadataKey = (metadata: unknown) => entityKey({ label: 'x', metadata });
    expect(metadataKey(entries(256))).toBe('ok');
    expect(metadataKey(entries(257))).toBe('metadata');
    expect(metadataKey({ k: 'v'.repeat(255) })).toBe('ok');
    expect(metadataKey({ k: 'v'.repeat(256) })).toBe('metadata');
    expect(metadataKey({ k: '' })).toBe('metadata');
    expect(metadataKey({ k: null })).toBe('metadata');
    expect(metadataKey({ ['k'.repeat(256)]: 'v' })).toBe('metadata');
    expect(metadataKey(null)).toBe('ok');
  });

  it('agent ids are 1 to 255 letters, digits, dashes and dots (spec 2.1)', () => {
    expect(isAgentId('a')).toBe(true);
    expect(isAgentId(`${'a'.repeat(250)}.b-c1`)).toBe(true);
    expect(isAgentId('a'.repeat(256))).toBe(false);
    expect(isAgentId('')).toBe(false);
    expect(isAgentId('host_name')).toBe(false);
    expect(isAgentId('host name')).toBe(false);
    expect(entityKey({ label: 'x', agent_id: 'a'.repeat(255) })).toBe('ok');
    expect(entityKey({ label: 'x', agent_id: 'a'.repeat(256) })).toBe('agent_id');
    expect(entityKey({ label: 'x', agent_id: 'bad id!' })).toBe('agent_id');
    expect(entityKey({ label: 'x', agent_id: '' })).toBe('agent_id');
  });

  it('an update keeps the fields it leaves out; null clears addresses and metadata', () => {
    const stored = entityDoc({ label: 'db', ip_addresses: { main: '192.0.2.1' }, metadata: { role: 'db' } });
    expect(stored).toEqual({ label: 'db', ip_addresses: { main: '192.0.2.1' }, metadata: { role: 'db' }, agent_id: null, managed: false, uri: null });
    expect(entityDoc({ agent_id: 'db.example.com' }, stored)).toEqual({ ...stored, agent_id: 'db.example.com' });
    expect(entityDoc({ ip_addresses: null, metadata: null }, stored)).toMatchObject({ ip_addresses: {}, metadata: null, label: 'db' });
  });
});
