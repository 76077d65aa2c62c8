// Tests resolving a remote check's target: an entity address by alias, a host name through the system resolver with target_resolver, and failures as words.
import { describe, expect, it } from 'vitest';
import type { EntityDoc } from '../../../src/monitoring/entity-rules.js';
import { resolveHostAddress, resolveProbeTarget } from '../../../src/monitoring/probes/probe-target.js';
import { httpCheck } from './http-probe-harness.js';

const entity: EntityDoc = {
  label: 'web',
  ip_addresses: { main: '192.0.2.10', v6: '2001:db8::10', broken: 'not-an-address' },
  metadata: null,
  agent_id: null,
  managed: false,
  uri: null,
};

describe('resolveProbeTarget', () => {
  it('gives the entity address a target_alias names, with no host name', async () => {
    expect(await resolveProbeTarget(httpCheck({ url: 'http://example.test/' }), entity)).toEqual({ address: '192.0.2.10', hostname: null });
    expect(await resolveProbeTarget(httpCheck({ url: 'http://example.test/' }, { target_alias: 'v6' }), entity)).toEqual({ address: '2001:db8::10', hostname: null });
  });

  it('reports an alias the entity no longer has, or one that is not an address', async () => {
    expect(await resolveProbeTarget(httpCheck({ url: 'http://example.test/' }, { target_alias: 'gone' }), entity)).toEqual({ error: 'target_alias "gone" names no address of the entity' });
    expect(await resolveProbeTarget(httpCheck({ url: 'http://example.test/' }, { target_alias: 'broken' }), entity)).toEqual({ error: 'target_alias "broken" is not an IP address' });
  });

  it('looks up target_hostname localhost as IPv4 when target_resolver says so', async () => {
    const check = httpCheck({ url: 'http://localhost/' }, { target_alias: null, target_hostname: 'localhost', target_resolver: 'IPv4' });
    expect(await resolveProbeTarget(check, entity)).toEqual({ address: '127.0.0.1', hostname: 'localhost' });
  });

  it('prefers IPv4 when no target_resolver is set', async () => {
    const check = httpCheck({ url: 'http://localhost/' }, { target_alias: null, target_hostname: 'localhost' });
    const target = await resolveProbeTarget(check, entity);
    expect(target).toEqual({ address: '127.0.0.1', hostname: 'localhost' });
  });

  it('reports a name that does not exist with the resolver code', async () => {
    const check = httpCheck({ url: 'http://x/' }, { target_alias: null, target_hostname: 'no-such-host.invalid', target_resolver: 'IPv4' });
    expect(await resolveProbeTarget(check, entity)).toEqual({ error: 'could not resolve no-such-host.invalid: ENOTFOUND' });
  });

  it('reports a check with no target', async () => {
    const check = httpCheck({ url: 'http://x/' }, { target_alias: null });
    expect(await resolveProbeTarget(check, entity)).toEqual({ error: 'the check has neither target_alias nor target_hostname' });
  });
});

describe('resolveHostAddress', () => {
  it('takes IP literals as they are, brackets removed, when their family fits the resolver', async () => {
    expect(await resolveHostAddress('[::1]', 'IPv6')).toEqual({ address: '::1', hostname: '::1' });
    expect(await resolveHostAddress('::1', null)).toEqual({ address: '::1', hostname: '::1' });
    expect(await resolveHostAddress('10.1.2.3', 'IPv4')).toEqual({ address: '10.1.2.3', hostname: '10.1.2.3' });
    expect(await resolveHostAddress('10.1.2.3', 'IPv6')).toEqual({ error: 'could not resolve 10.1.2.3: not an IPv6 address' });
  });

  it('stops waiting when its signal aborts', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await resolveHostAddress('localhost', 'IPv4', { signal: controller.signal })).toEqual({ error: 'could not resolve localhost: ETIMEOUT' });
  });
});
