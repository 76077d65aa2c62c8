// Checks the endpoint over the real monitoring backend (service, runtime, engine, update store) through real TLS: connection visible while connected, schedule, metrics stored under bare names, a check change pushed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_CERT_HOSTS_DEFAULT, loadAgentTls } from '../../../src/agent/endpoint/agent-ca.js';
import { monitoringBackend } from '../../../src/agent/endpoint/monitoring-backend.js';
import { UpdateStore } from '../../../src/agent/update/update-store.js';
import { ManualClock } from '../../../src/core/clock.js';
import { HOUR_MS } from '../../../src/core/time.js';
import { openFeeds, type Feeds } from '../../../src/feeds/feeds-service.js';
import { MonitoringRuntime } from '../../../src/monitoring/monitoring-runtime.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import { openStore } from '../../../src/store.js';
import type { Store } from '../../../src/store-types.js';
import { connectAgent, helloOf, quietLogger, startEndpoint, until, type RunningEndpoint } from './endpoint-fixtures.js';

/** A whole hour near now: the engine takes points near its clock only, and TLS checks certificates against the real time. */
const START_MS = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
const AGENT_ID = 'web-1.example.com';

describe('AgentEndpoint over the monitoring backend', () => {
  let dir: string;
  let clock: ManualClock;
  let engine: Store;
  let feeds: Feeds;
  let monitoring: MonitoringService;
  let runtime: MonitoringRuntime;
  let started: RunningEndpoint;
  let rootCert: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-endpoint-monitoring-'));
    clock = new ManualClock(START_MS);
    engine = await openStore({ dir: join(dir, 'engine'), clock, workers: 0, background: false });
    feeds = openFeeds({ dir: undefined, clock, region: 'LOCAL' });
    monitoring = openMonitoring({ dir: undefined, clock });
    let txn = 0;
    runtime = new MonitoringRuntime({ monitoring, engine, feeds, clock, logger: quietLogger, newTxnId: () => `txn-${++txn}` });
    const backend = monitoringBackend({ monitoring, runtime, updates: new UpdateStore(dir) });
    const tls = loadAgentTls({ dataDir: undefined, hosts: AGENT_CERT_HOSTS_DEFAULT, clock });
    rootCert = tls.rootCert;
    started = await startEndpoint(backend, tls, clock, { zones: ['mzord'] });
  });

  afterEach(async () => {
    await started.endpoint.stop();
    await runtime.stop();
    await engine.close();
    feeds.close();
    monitoring.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers the connection, serves the schedule, stores posted metrics and pushes a check change', async () => {
    const token = monitoring.agents.token('t1', monitoring.agents.createToken('t1', { label: 'hosts' })).token;
    const entityId = monitoring.entities.createEntity('t1', { label: 'web-1', agent_id: AGENT_ID });
    const checkId = monitoring.entities.createCheck('t1', entityId, { type: 'agent.cpu', period: 30, timeout: 10 });
    const client = await connectAgent(started.port(), rootCert, 'guid-real');
    try {
      expect(await client.peer.request('handshake.hello', helloOf(token, AGENT_ID))).toEqual({ heartbeat_interval: 30_000, entity_id: entityId, channel: 'stable' });
      const connections = monitoring.agents.listConnections('t1', AGENT_ID, { limit: 10 }).values;
      expect(connections).toEqual([expect.objectContaining({ agentId: AGENT_ID, guid: 'guid-real', agentIp: '127.0.0.1', zoneId: 'mzord', processVersion: '1.0.0', bundleVersion: '1.0.1' })]);
      expect(monitoring.agents.agent('t1', AGENT_ID).lastConnectedMs).toBe(START_MS);

      expect(await client.peer.request('check_schedule.get', {})).toEqual({ checks: [{ id: checkId, type: 'agent.cpu', details: {}, period: 30, timeout: 10, disabled: false }] });
      const metrics = [[null, { usage_average: { t: 'double', v: '42.5', u: 'percent' } }], ['cpu0', { usage: { t: 'double', v: '40', u: 'percent' } }]];
      const post = { check_id: checkId, check_type: 'agent.cpu', state: 'available', status: 'ok', timestamp: START_MS, metrics };
      expect(await client.peer.request('check_metrics.post', post)).toEqual({});
      await runtime.flush();
      const names = (await engine.listMetrics('t1', { limit: 100 })).metrics.map((m) => m.name).sort();
      expect(names).toEqual([`${entityId}.${checkId}.@run`, `${entityId}.${checkId}.cpu0.usage`, `${entityId}.${checkId}.usage_average`]);

      const memoryId = monitoring.entities.createCheck('t1', entityId, { type: 'agent.memory' });
      await client.receivedAtLeast(1);
      expect(client.received).toEqual([{ method: 'check_schedule.changed', params: {} }]);
      expect(await client.peer.request('check_metrics.post', { ...post, check_id: memoryId, check_type: 'agent.memory' })).toEqual({});
    } finally {
      client.socket.destroy();
    }
    await until(() => monitoring.agents.listConnections('t1', AGENT_ID, { limit: 10 }).values.length === 0);
  });
});
