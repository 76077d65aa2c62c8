// Tests of MonitoringRuntime's composition: runNow stores real HTTP results in a real engine, counters, option checks, start and an idempotent stop.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { openFeeds, type Feeds } from '../../src/feeds/feeds-service.js';
import { MonitoringRuntime, type RuntimeOptions } from '../../src/monitoring/monitoring-runtime.js';
import type { MonitoringService } from '../../src/monitoring/monitoring-service.js';
import { openStore } from '../../src/store.js';
import type { Store } from '../../src/store-types.js';
import { collectingLogger, httpCheckBody, monitoringWithEntity, startTarget, type LoopbackTarget } from './runner/runner-fixtures.js';

let dir: string;
let engine: Store;
let feeds: Feeds;
let monitoring: MonitoringService;
let entityId: string;
let target: LoopbackTarget;
const runtimes: MonitoringRuntime[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'strata-runtime-'));
  engine = await openStore({ dir, workers: 0, background: false });
  feeds = openFeeds({ dir: undefined, clock: systemClock, region: 'LOCAL' });
  ({ monitoring, entityId } = monitoringWithEntity(systemClock));
  target = await startTarget();
});

afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.stop();
  await target.close();
  await engine.close();
  feeds.close();
  monitoring.close();
  rmSync(dir, { recursive: true, force: true });
});

function runtime(options: RuntimeOptions = {}, logger = collectingLogger()): MonitoringRuntime {
  let n = 0;
  const made = new MonitoringRuntime({ monitoring, engine, feeds, clock: systemClock, logger, newTxnId: () => `txn-${++n}`, options });
  runtimes.push(made);
  return made;
}

describe('MonitoringRuntime', () => {
  it('runNow runs a check from each of its zones and stores its metrics before resolving', async () => {
    const checkId = monitoring.entities.createCheck('t1', entityId, httpCheckBody(target.url));
    const rt = runtime();
    expect(await rt.runNow('t1', entityId, checkId)).toBe(3);
    expect(target.requests).toBe(3);
    const names = (await engine.listMetrics('t1', { limit: 100 })).metrics.map((m) => m.name);
    for (const zone of ['mzdfw', 'mziad', 'mzord']) {
      for (const metric of ['bytes', 'code', 'duration', 'truncated', 'tt_connect', 'tt_firstbyte']) expect(names).toContain(`${entityId}.${checkId}.${zone}.${metric}`);
    }
    const stats = rt.stats();
    expect(stats.runs.runs).toEqual([{ type: 'remote.http', outcome: 'available', count: 3 }]);
    // Six metrics per zone run; an available run with metrics writes no run point.
    expect(stats.sink).toMatchObject({ pointsWritten: 18, pending: 0, writeFailures: 0 });
    expect(stats.scheduler).toMatchObject({ checks: 1, slots: 3, running: 0, waiting: 0 });
    expect(stats.alarms.observations).toBe(3);
    expect(stats.delivery).toMatchObject({ pending: 0, dead: 0 });
  });

  it('runs only the zones it is configured for', async () => {
    const checkId = monitoring.entities.createCheck('t1', entityId, httpCheckBody(target.url));
    expect(await runtime({ zones: ['mziad'] }).runNow('t1', entityId, checkId)).toBe(1);
    expect((await engine.listMetrics('t1', { limit: 100 })).metrics.every((m) => m.name.includes('.mziad.'))).toBe(true);
  });

  it('start() runs a check created afterwards by itself; stop() is idempotent and ends the runs', async () => {
    const logger = collectingLogger();
    const rt = runtime({}, logger);
    await rt.start();
    expect(logger.lines).toContainEqual(expect.objectContaining({ msg: 'monitoring runtime started' }));
    monitoring.entities.createCheck('t1', entityId, httpCheckBody(target.url));
    // The scheduler's own timer makes these runs: wait for them with a deadline a loaded machine cannot outlast.
    await vi.waitFor(() => expect(target.requests).toBeGreaterThanOrEqual(3), { timeout: 15_000, interval: 10 });
    expect(target.requests).toBe(3);
    await Promise.all([rt.stop(), rt.stop()]);
    await rt.flush();
    expect(rt.stats().sink.pointsWritten).toBe(18);
    // Stopped: a new check is no longer scheduled.
    monitoring.entities.createCheck('t1', entityId, httpCheckBody(target.url));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(target.requests).toBe(3);
  });

  it('refuses unknown zones, a concurrency out of range and a malformed deny range with CONFIG_INVALID', () => {
    expect(() => runtime({ zones: ['mzxyz'] })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => runtime({ zones: [] })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => runtime({ checkConcurrency: 0 })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => runtime({ checkDeny: ['10.0.0.0/33'] })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => runtime({ delivery: { attemptsMax: 0 } })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });

  it('applies --check-deny: a check of a denied address runs unavailable and touches nothing', async () => {
    const checkId = monitoring.entities.createCheck('t1', entityId, httpCheckBody(target.url));
    const rt = runtime({ checkDeny: ['127.0.0.0/8'] });
    await rt.runNow('t1', entityId, checkId);
    expect(target.requests).toBe(0);
    expect(rt.stats().runs.runs).toEqual([{ type: 'remote.http', outcome: 'unavailable', count: 3 }]);
  });
});
