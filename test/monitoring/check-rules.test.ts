// Checks the check and entity rules at their edges: period, timeout, zones, targets, ids and metadata.
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/core/errors.js';
import { isAgentId } from '../../src/monitoring/agent-rules.js';
import { parseCheck, type CheckContext } from '../../src/monitoring/check-rules.js';
import { parseEntity } from '../../src/monitoring/entity-rules.js';
import { metadata } from '../../src/monitoring/field-rules.js';

const context: CheckContext = { zoneIds: ['mzdfw', 'mzord'], addressNames: ['web'] };
const http = (extra: Record<string, unknown>) => ({ type: 'remote.http', details: { url: 'https://x.example' }, monitoring_zones_poll: ['mzdfw'], target_alias: 'web', ...extra });

function key(run: () => unknown): string {
  try {
    run();
    return 'ok';
  } catch (error) {
    if (isStrataError(error)) return String(error.details['key']);
    throw error;
  }
}

describe('check rules', () => {
  it('period is 30 to 1800 seconds', () => {
    expect(key(() => parseCheck(http({ period: 30, timeout: 29 }), context))).toBe('ok');
    expect(key(() => parseCheck(http({ period: 1800 }), context))).toBe('ok');
    expect(key(() => parseCheck(http({ period: 29 }), context))).toBe('period');
    expect(key(() => parseCheck(http({ period: 1801 }), context))).toBe('period');
    expect(key(() => parseCheck(http({ period: 60.5 }), context))).toBe('period');
  });

  it('timeout is at least 2 seconds and below the period', () => {
    expect(key(() => parseCheck(http({ period: 60, timeout: 59 }), context))).toBe('ok');
    expect(key(() => parseCheck(http({ period: 60, timeout: 60 }), context))).toBe('timeout');
    expect(key(() => parseCheck(http({ timeout: 2 }), context))).toBe('ok');
    expect(key(() => parseCheck(http({ timeout: 1 }), context))).toBe('timeout');
  });

  it('remote checks need known zones and exactly one target', () => {
    expect(key(() => parseCheck(http({ monitoring_zones_poll: [] }), context))).toBe('monitoring_zones_poll');
    expect(key(() => parseCheck(http({ monitoring_zones_poll: ['mziad'] }), context))).toBe('monitoring_zones_poll');
    expect(key(() => parseCheck(http({ monitoring_zones_poll: undefined }), context))).toBe('monitoring_zones_poll');
    expect(key(() => parseCheck(http({ target_alias: undefined, target_hostname: 'www.example.com' }), context))).toBe('ok');
    expect(key(() => parseCheck(http({ target_alias: undefined }), context))).toBe('target_alias');
    expect(key(() => parseCheck(http({ target_hostname: 'www.example.com' }), context))).toBe('target_alias');
    expect(key(() => parseCheck(http({ target_alias: 'db' }), context))).toBe('target_alias');
    expect(key(() => parseCheck(http({ target_resolver: 'IPv5' }), context))).toBe('target_resolver');
    expect(parseCheck(http({ monitoring_zones_poll: ['mzord', 'mzord'] }), context).monitoring_zones_poll).toEqual(['mzord']);
  });

  it('agent checks take no remote fields and need their detail keys', () => {
    expect(key(() => parseCheck({ type: 'agent.cpu' }, context))).toBe('ok');
    expect(key(() => parseCheck({ type: 'agent.cpu', target_alias: 'web' }, context))).toBe('target_alias');
    expect(key(() => parseCheck({ type: 'agent.filesystem', details: {} }, context))).toBe('details.target');
    expect(key(() => parseCheck({ type: 'agent.filesystem', details: { target: '/' } }, context))).toBe('ok');
    expect(key(() => parseCheck({ type: 'agent.cpu', details: { nested: { a: 1 } } }, context))).toBe('details.nested');
  });

  it('remote.http details: headers and body_matches are bounded', () => {
    const headers = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`h${i}`, 'v']));
    expect(key(() => parseCheck(http({ details: { url: 'https://x.example', headers: headers(10) } }), context))).toBe('ok');
    expect(key(() => parseCheck(http({ details: { url: 'https://x.example', headers: headers(11) } }), context))).toBe('details.headers');
    expect(key(() => parseCheck(http({ details: { url: 'https://x.example', body_matches: headers(4) } }), context))).toBe('ok');
    expect(key(() => parseCheck(http({ details: { url: 'https://x.example', body_matches: headers(5) } }), context))).toBe('details.body_matches');
    expect(key(() => parseCheck(http({ details: { url: 'https://x.example', payload: 'p'.repeat(1024) } }), context))).toBe('ok');
    expect(key(() => parseCheck(http({ details: { url: 'https://x.example', payload: 'p'.repeat(1025) } }), context))).toBe('details.payload');
  });
});

describe('entity rules', () => {
  it('labels are 1 to 255 characters; ip_addresses at most 64 valid addresses', () => {
    expect(key(() => parseEntity({ label: 'x'.repeat(255) }))).toBe('ok');
    expect(key(() => parseEntity({ label: 'x'.repeat(256) }))).toBe('label');
    const ips = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`a${i}`, `192.0.2.${i}`]));
    expect(key(() => parseEntity({ label: 'x', ip_addresses: ips(64) }))).toBe('ok');
    expect(key(() => parseEntity({ label: 'x', ip_addresses: ips(65) }))).toBe('ip_addresses');
    expect(key(() => parseEntity({ label: 'x', ip_addresses: { a: '256.0.0.1' } }))).toBe('ip_addresses');
  });

  it('metadata has at most 256 entries of 1 to 255 characters', () => {
    const entries = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    expect(key(() => metadata(entries(256)))).toBe('ok');
    expect(key(() => metadata(entries(257)))).toBe('metadata');
    expect(key(() => metadata({ k: 'v'.repeat(255) }))).toBe('ok');
    expect(key(() => metadata({ k: 'v'.repeat(256) }))).toBe('metadata');
    expect(key(() => metadata({ k: '' }))).toBe('metadata');
  });

  it('agent ids are 1 to 255 letters, digits, dashes and dots (spec 2.1)', () => {
    expect(isAgentId('a')).toBe(true);
    expect(isAgentId(`${'a'.repeat(250)}.b-c1`)).toBe(true);
    expect(isAgentId('a'.repeat(256))).toBe(false);
    expect(isAgentId('')).toBe(false);
    expect(isAgentId('host_name')).toBe(false);
    expect(isAgentId('host name')).toBe(false);
    expect(key(() => parseEntity({ label: 'x', agent_id: 'a'.repeat(255) }))).toBe('ok');
    expect(key(() => parseEntity({ label: 'x', agent_id: 'a'.repeat(256) }))).toBe('agent_id');
  });
});
