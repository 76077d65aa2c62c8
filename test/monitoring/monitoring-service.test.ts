// Checks the monitoring service over a real data directory: persistence across reopen, the token key, limits, agent retention.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { isStrataError } from '../../src/core/errors.js';
import { DAY_MS } from '../../src/core/time.js';
import { CHECKS_PER_ENTITY_MAX } from '../../src/monitoring/monitoring-limits.js';
import { openMonitoring } from '../../src/monitoring/monitoring-service.js';
import { TOKEN_KEY_FILE_NAME } from '../../src/monitoring/token-key.js';

const START_MS = 1_790_000_000_000;

describe('MonitoringService on disk', () => {
  let dir: string;
  let clock: ManualClock;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-monitoring-'));
    clock = new ManualClock(START_MS);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps objects and agent token values across a reopen; the key file is private', () => {
    const first = openMonitoring({ dir, clock });
    const entity = first.entities.createEntity('t1', { label: 'e', ip_addresses: { web: '192.0.2.1' } });
    const token = first.agents.createToken('t1', { label: 'x' });
    const value = first.agents.token('t1', token).token;
    first.close();
    expect(statSync(join(dir, TOKEN_KEY_FILE_NAME)).mode & 0o777).toBe(0o600);
    const second = openMonitoring({ dir, clock });
    try {
      expect(second.entities.entity('t1', entity).doc.label).toBe('e');
      expect(second.agents.token('t1', token).token).toBe(value);
      expect(second.agents.tokenOf(value)).toEqual({ tenant: 't1', tokenId: token });
      expect(second.agents.tokenOf(`${value.slice(0, -2)}t2`)).toBeUndefined();
    } finally {
      second.close();
    }
  });

  it('refuses the check past CHECKS_PER_ENTITY_MAX with MONITORING_LIMIT_REACHED', () => {
    const monitoring = openMonitoring({ dir, clock });
    try {
      const entity = monitoring.entities.createEntity('t1', { label: 'e' });
      for (let i = 0; i < CHECKS_PER_ENTITY_MAX; i++) monitoring.entities.createCheck('t1', entity, { type: 'agent.cpu' });
      let code = '';
      try {
        monitoring.entities.createCheck('t1', entity, { type: 'agent.cpu' });
      } catch (error) {
        code = isStrataError(error) ? error.code : 'other';
      }
      expect(code).toBe('MONITORING_LIMIT_REACHED');
    } finally {
      monitoring.close();
    }
  });

  it('drops an agent from the list exactly 30 days after its last connection', () => {
    const monitoring = openMonitoring({ dir, clock });
    try {
      const connection = monitoring.agents.connect('t1', { agentId: 'a.example', guid: 'g', processVersion: '1', bundleVersion: '1', agentIp: '10.0.0.1', zoneId: 'mzdfw' });
      monitoring.agents.disconnect('t1', 'a.example', connection);
      clock.advance(30 * DAY_MS);
      expect(monitoring.agents.listAgents('t1', { limit: 10 }).values.map((a) => a.id)).toEqual(['a.example']);
      clock.advance(1);
      expect(monitoring.agents.listAgents('t1', { limit: 10 }).values).toEqual([]);
    } finally {
      monitoring.close();
    }
  });

  it('keeps last_connected across a reopen but no live connection: connections exist only while connected', () => {
    const first = openMonitoring({ dir, clock });
    const connection = first.agents.connect('t1', { agentId: 'a.example', guid: 'g', processVersion: '1', bundleVersion: '1', agentIp: '10.0.0.1', zoneId: 'mzdfw' });
    expect(first.agents.connection('t1', 'a.example', connection).connectedMs).toBe(START_MS);
    clock.advance(5_000);
    first.agents.touch('t1', 'a.example');
    first.close();
    const second = openMonitoring({ dir, clock });
    try {
      expect(second.agents.agent('t1', 'a.example')).toEqual({ id: 'a.example', lastConnectedMs: START_MS + 5_000 });
      expect(second.agents.listConnections('t1', 'a.example', { limit: 10 })).toEqual({ values: [], nextMarker: null });
      expect(() => second.agents.connection('t1', 'a.example', connection)).toThrow(expect.objectContaining({ code: 'MONITORING_OBJECT_NOT_FOUND' }));
    } finally {
      second.close();
    }
  });

  it('rejects a zone configuration with bad or duplicate ids', () => {
    const zone = { id: 'mzlon', label: 'London', country_code: 'GB', source_ips: [] };
    expect(openMonitoring({ dir: undefined, clock, zones: [zone] }).zones.map((z) => z.id)).toEqual(['mzlon']);
    expect(() => openMonitoring({ dir: undefined, clock, zones: [zone, zone] })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => openMonitoring({ dir: undefined, clock, zones: [{ ...zone, id: 'mz.lon' }] })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => openMonitoring({ dir: undefined, clock, zones: [] })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});
