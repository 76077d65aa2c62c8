// Tests the agent as a whole against real TLS endpoints on 127.0.0.1: schedules, results posted once each, buffering, restarts.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import { StrataError } from '../../../src/core/errors.js';
import { AGENT_CHECK_PERIOD_S_MAX, AGENT_LINE_BYTES_MAX, AGENT_POST_ATTEMPTS_MAX } from '../../../src/agent/agent-limits.js';
import { AgentFleet, type AgentFleetOptions } from '../../../src/agent/client/agent-fleet.js';
import { loadOrCreateGuid } from '../../../src/agent/client/agent-state.js';
import { collectorFor, type Collector } from '../../../src/agent/collectors/collector-registry.js';
import { loadAgentTls, type AgentTlsMaterial } from '../../../src/agent/endpoint/agent-ca.js';
import type { MetricsPostParams, ScheduledCheck } from '../../../src/agent/protocol/messages.js';
import { wireMetric } from '../../../src/agent/protocol/wire-metrics.js';
import { generateUpdateKeys, signBundle } from '../../../src/agent/update/bundle-signature.js';
import { UpdateStore } from '../../../src/agent/update/update-store.js';
import { fastTime } from './fast-time.js';
import { recordingLogger, TestEndpoint, waitFor, type RecordedRequest, type TestEndpointSettings } from './test-endpoint.js';

const TOKEN = 'f'.repeat(64) + ':1234';
const GUID = '11111111-2222-4333-8444-555555555555';

/** The fleets run on a time this many times faster than the wall clock, so that whole-second periods pass quickly. */
const SPEEDUP = 5;

/** A load-average check every second (200 ms of real time; period and timeout are whole seconds on the wire). */
function loadCheck(id: string, overrides: Partial<ScheduledCheck> = {}): ScheduledCheck {
  return { id, type: 'agent.load_average', details: {}, period: 1, timeout: 1, disabled: false, ...overrides };
}

let tls: AgentTlsMaterial;
let dir: string;
let procRoot: string;
const endpoints: TestEndpoint[] = [];
const fleets: AgentFleet[] = [];

beforeAll(() => {
  tls = loadAgentTls({ dataDir: undefined, hosts: ['127.0.0.1', 'localhost'], clock: systemClock });
  dir = mkdtempSync(join(tmpdir(), 'strata-agent-fleet-'));
  procRoot = join(dir, 'proc');
  mkdirSync(procRoot);
  writeFileSync(join(procRoot, 'loadavg'), '0.50 0.25 0.10 1/123 4567\n');
});

afterEach(async () => {
  await Promise.all(fleets.splice(0).map((fleet) => fleet.stop()));
  await Promise.all(endpoints.splice(0).map((endpoint) => endpoint.stop()));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function endpoint(settings: Partial<TestEndpointSettings> = {}): Promise<TestEndpoint> {
  // A heartbeat every 500 ms of the fleets' time: 100 ms of real time.
  const started = await TestEndpoint.start(tls, { heartbeatIntervalMs: 500, ...settings });
  endpoints.push(started);
  return started;
}

function fleetOf(targets: readonly TestEndpoint[], options: Partial<AgentFleetOptions> = {}): AgentFleet {
  const time = fastTime(SPEEDUP);
  const fleet = new AgentFleet({
    endpoints: targets.map((target) => ({ host: '127.0.0.1', port: target.port })),
    ca: tls.rootCert,
    token: TOKEN,
    agentId: 'agent.example.com',
    guid: GUID,
    processVersion: '0.1.0',
    bundleVersion: '0.1.0',
    collectorFor: (type) => collectorFor(type, { procRoot }),
    clock: time.clock,
    scheduler: time.scheduler,
    random: () => 0.5,
    logger: recordingLogger(),
    reconnectBaseMs: 20,
    reconnectMaxMs: 200,
    ...options,
  });
  fleets.push(fleet);
  fleet.start();
  return fleet;
}

function posts(...targets: TestEndpoint[]): MetricsPostParams[] {
  return targets.flatMap((target) => target.of('check_metrics.post').map((request: RecordedRequest) => request.params as unknown as MetricsPostParams));
}

function keysOf(results: readonly MetricsPostParams[]): string[] {
  return results.map((result) => `${result.check_id}@${result.timestamp}`);
}

describe('AgentFleet', () => {
  it('fetches the schedule after hello and posts each result with its check id, type, timestamp and metrics', async () => {
    const target = await endpoint({ checks: [loadCheck('chLoad')] });
    const before = Date.now();
    const fleet = fleetOf([target]);
    await waitFor(() => posts(target).length >= 3, 'three results');
    expect(target.of('check_schedule.get')).toHaveLength(1);
    const results = posts(target);
    for (const result of results) {
      expect(result).toEqual({
        check_id: 'chLoad',
        check_type: 'agent.load_average',
        state: 'available',
        status: 'success',
        metrics: [[null, { '1m': wireMetric('double', 0.5, 'unknown'), '5m': wireMetric('double', 0.25, 'unknown'), '15m': wireMetric('double', 0.1, 'unknown') }]],
        timestamp: expect.any(Number),
      });
      expect(result.timestamp).toBeGreaterThanOrEqual(before);
    }
    expect(new Set(keysOf(results)).size).toBe(results.length);
    expect(fleet.status()).toMatchObject({ schedules: 1, dropped: 0, refused: 0 });
  });

  it('fetches no schedule and runs nothing when the endpoint names no entity', async () => {
    const target = await endpoint({ entityId: null, checks: [loadCheck('chLoad')] });
    const fleet = fleetOf([target]);
    await waitFor(() => target.of('heartbeat.post').length >= 2, 'two heartbeats');
    expect(target.of('check_schedule.get')).toEqual([]);
    expect(posts(target)).toEqual([]);
    expect(fleet.status().checks.checks).toBe(0);
  });

  it('runs no disabled check', async () => {
    const target = await endpoint({ checks: [loadCheck('chOff', { disabled: true }), loadCheck('chOn')] });
    fleetOf([target]);
    await waitFor(() => posts(target).length >= 3, 'three results');
    expect(new Set(posts(target).map((result) => result.check_id))).toEqual(new Set(['chOn']));
  });

  it('re-fetches the schedule on check_schedule.changed and runs the new one', async () => {
    const target = await endpoint({ checks: [loadCheck('chOld')] });
    const fleet = fleetOf([target]);
    await waitFor(() => posts(target).length >= 1, 'a result of the first schedule');
    target.settings.checks = [loadCheck('chNew')];
    const session = [...target.sessions.values()][0];
    expect(await session?.request('check_schedule.changed', {})).toEqual({});
    await waitFor(() => posts(target).some((result) => result.check_id === 'chNew'), 'a result of the new schedule');
    expect(target.of('check_schedule.get')).toHaveLength(2);
    expect(fleet.status()).toMatchObject({ schedules: 2, checks: { checks: 1, enabled: 1 } });
  });

  it('posts each result once over one connection, taking the connections in turn', async () => {
    const first = await endpoint({ checks: [loadCheck('chLoad')] });
    const second = await endpoint({ checks: [loadCheck('chLoad')] });
    const fleet = fleetOf([first, second]);
    await waitFor(() => posts(first).length >= 3 && posts(second).length >= 3, 'results at both endpoints');
    const all = keysOf(posts(first, second));
    expect(new Set(all).size).toBe(all.length);
    expect(fleet.status().connections.map((connection) => connection.state)).toEqual(['ready', 'ready']);
  });

  it('buffers results while disconnected, dropping and counting the oldest beyond its bound, and posts the rest after reconnecting', async () => {
    const target = await endpoint({ checks: [loadCheck('chLoad')] });
    const fleet = fleetOf([target], { bufferResultsMax: 3 });
    await waitFor(() => posts(target).length >= 2, 'results while connected');
    target.settings.refuseConnections = true;
    target.closeSessions();
    await waitFor(() => fleet.status().connections[0]?.state !== 'ready', 'the disconnect');
    const postedBefore = posts(target).length;
    await waitFor(() => fleet.status().dropped >= 3, 'dropped results');
    expect(fleet.status().buffered).toBe(3);
    expect(posts(target)).toHaveLength(postedBefore);
    target.settings.refuseConnections = false;
    await waitFor(() => posts(target).length >= postedBefore + 4, 'results after the reconnect');
    const all = keysOf(posts(target));
    expect(new Set(all).size).toBe(all.length);
    expect(fleet.status().connections[0]?.hellos).toBe(2);
  });

  it('drops a result the endpoint refuses with 400 instead of posting it again', async () => {
    const target = await endpoint({ checks: [loadCheck('chLoad')], refusePosts: new StrataError('AGENT_CHECK_UNKNOWN', 'no such check') });
    const fleet = fleetOf([target]);
    await waitFor(() => fleet.status().refused >= 3, 'three refusals');
    const all = keysOf(posts(target));
    expect(new Set(all).size).toBe(all.length);
    expect(fleet.status()).toMatchObject({ requeued: 0, posted: 0 });
  });

  it(`drops a result after ${AGENT_POST_ATTEMPTS_MAX} failed posts: one the endpoint always refuses as AGENT_BUSY (closing the connection) blocks nothing`, async () => {
    const target = await endpoint({ checks: [loadCheck('chLoad')], refusePosts: new StrataError('AGENT_BUSY', 'the metrics queue is full') });
    const fleet = fleetOf([target]);
    await waitFor(() => fleet.status().abandoned >= 2, 'two abandoned results');
    const attempts = new Map<string, number>();
    for (const key of keysOf(posts(target))) attempts.set(key, (attempts.get(key) ?? 0) + 1);
    expect(Math.max(...attempts.values())).toBeLessThanOrEqual(AGENT_POST_ATTEMPTS_MAX);
    expect(fleet.status()).toMatchObject({ posted: 0, refused: 0, oversized: 0 });
    expect(fleet.status().requeued).toBeGreaterThanOrEqual(2 * (AGENT_POST_ATTEMPTS_MAX - 1));
    // Each refusal (503) closed the connection, and the agent came back for the next attempt.
    expect(fleet.status().connections[0]?.hellos).toBeGreaterThanOrEqual(AGENT_POST_ATTEMPTS_MAX);
    target.settings.refusePosts = undefined;
    await waitFor(() => fleet.status().posted >= 2, 'results posted once the endpoint takes them');
  });

  it('drops a result too long to post, counting it, and keeps the connection for the others', async () => {
    const big: Collector = {
      collect: () => Promise.resolve({ available: true, status: 'success', metrics: [[null, { blob: wireMetric('string', 'x'.repeat(AGENT_LINE_BYTES_MAX), '') }]] }),
    };
    const target = await endpoint({ checks: [loadCheck('chBig', { type: 'agent.big' }), loadCheck('chLoad')] });
    const fleet = fleetOf([target], { collectorFor: (type) => (type === 'agent.big' ? big : collectorFor(type, { procRoot })) });
    await waitFor(() => fleet.status().oversized >= 2 && posts(target).length >= 2, 'two oversized results and two posted');
    expect(new Set(posts(target).map((result) => result.check_id))).toEqual(new Set(['chLoad']));
    expect(fleet.status().connections[0]).toMatchObject({ state: 'ready', hellos: 1, failures: 0 });
    expect(fleet.status()).toMatchObject({ requeued: 0, abandoned: 0 });
  });

  it('refuses a schedule with a period beyond AGENT_CHECK_PERIOD_S_MAX as a whole, logging the field, and keeps running the one it has', async () => {
    const target = await endpoint({ checks: [loadCheck('chLoad')] });
    const logger = recordingLogger();
    const fleet = fleetOf([target], { logger });
    await waitFor(() => posts(target).length >= 1, 'a result of the first schedule');
    target.settings.checks = [loadCheck('chNew'), loadCheck('chHuge', { period: AGENT_CHECK_PERIOD_S_MAX + 1 })];
    const session = [...target.sessions.values()][0];
    expect(await session?.request('check_schedule.changed', {})).toEqual({});
    await waitFor(() => logger.lines.some((line) => line.msg.startsWith('check schedule answer invalid')), 'the refusal');
    expect(logger.lines.find((line) => line.msg.startsWith('check schedule answer invalid'))?.obj).toMatchObject({ code: 'AGENT_PARAMS_INVALID', field: 'checks[1].period' });
    const postedBefore = posts(target).length;
    await waitFor(() => posts(target).length >= postedBefore + 2, 'results of the schedule kept');
    expect(new Set(posts(target).map((result) => result.check_id))).toEqual(new Set(['chLoad']));
    expect(fleet.status()).toMatchObject({ schedules: 1, checks: { checks: 1, enabled: 1 } });
  });

  it('says hello with the guid kept in the state directory, the same after a restart', async () => {
    const target = await endpoint();
    const stateDir = join(dir, 'state-restart');
    const firstGuid = loadOrCreateGuid(stateDir);
    const first = fleetOf([target], { guid: firstGuid });
    await waitFor(() => target.of('handshake.hello').length === 1, 'the first hello');
    await first.stop();
    const secondGuid = loadOrCreateGuid(stateDir);
    fleetOf([target], { guid: secondGuid });
    await waitFor(() => target.of('handshake.hello').length === 2, 'the hello after the restart');
    const hellos = target.of('handshake.hello');
    expect(hellos.map((hello) => hello.source)).toEqual([firstGuid, firstGuid]);
    expect(hellos.map((hello) => hello.connection)).toEqual([1, 2]);
    expect(hellos[1]?.params).toMatchObject({ token: TOKEN, agent_id: 'agent.example.com', features: [{ name: 'upgrades', version: '1.0.0' }] });
  });

  describe('updates', () => {
    const bundle = Buffer.from('the 0.2.0 agent bundle');

    function publishedStore(name: string, signingKeyPem: string): UpdateStore {
      const store = new UpdateStore(join(dir, name));
      store.publish('stable', '0.2.0', bundle, signBundle(bundle, signingKeyPem));
      return store;
    }

    it('stages a newer bundle that verifies with the pinned key, fetches it once, and keeps announcing the bundle it runs', async () => {
      const keys = generateUpdateKeys();
      const target = await endpoint({ updates: publishedStore('data-good', keys.privateKeyPem) });
      const stateDir = join(dir, 'state-update-good');
      const fleet = fleetOf([target], { update: { publicKeyPem: keys.publicKeyPem, stateDir } });
      await waitFor(() => fleet.status().stagedVersion === '0.2.0', 'the staged update');
      expect(readFileSync(join(stateDir, 'updates', '0.2.0', 'bundle'))).toEqual(bundle);
      expect(target.of('bundle_upgrade.get_version')).toHaveLength(1);
      // A staged bundle is not run: the hello after it still names the running bundle, and asking
      // again (upgrade.request) finds nothing newer than what is staged, so nothing is fetched twice.
      const session = [...target.sessions.values()][0];
      expect(await session?.request('upgrade.request', {})).toEqual({});
      await waitFor(() => target.of('bundle_upgrade.get_version').length === 2, 'the second version check');
      target.closeSessions();
      await waitFor(() => target.of('handshake.hello').length === 2, 'the hello after the update');
      expect(target.of('handshake.hello').map((hello) => hello.params.bundle_version)).toEqual(['0.1.0', '0.1.0']);
      expect(fleet.status()).toMatchObject({ bundleVersion: '0.1.0', stagedVersion: '0.2.0' });
    });

    it('stages nothing and logs the reason when the signature does not verify; upgrade.request asks again', async () => {
      const pinned = generateUpdateKeys();
      const other = generateUpdateKeys();
      const target = await endpoint({ updates: publishedStore('data-bad', other.privateKeyPem) });
      const stateDir = join(dir, 'state-update-bad');
      const logger = recordingLogger();
      const fleet = fleetOf([target], { update: { publicKeyPem: pinned.publicKeyPem, stateDir }, logger });
      await waitFor(() => logger.lines.some((line) => line.msg === 'agent update refused'), 'the refusal');
      expect(logger.lines.find((line) => line.msg === 'agent update refused')?.obj).toMatchObject({ code: 'AGENT_UPDATE_SIGNATURE_INVALID' });
      expect(existsSync(join(stateDir, 'updates', '0.2.0'))).toBe(false);
      expect(fleet.status()).toMatchObject({ bundleVersion: '0.1.0', stagedVersion: '0.1.0' });
      const session = [...target.sessions.values()][0];
      expect(await session?.request('upgrade.request', {})).toEqual({});
      await waitFor(() => target.of('bundle_upgrade.get_version').length === 2, 'the second version check');
    });

    it('asks for no update without an update key', async () => {
      const keys = generateUpdateKeys();
      const target = await endpoint({ updates: publishedStore('data-off', keys.privateKeyPem) });
      fleetOf([target]);
      await waitFor(() => target.of('heartbeat.post').length >= 2, 'two heartbeats');
      expect(target.of('bundle_upgrade.get_version')).toEqual([]);
    });
  });
});
