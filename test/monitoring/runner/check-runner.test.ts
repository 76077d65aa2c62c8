// Tests of CheckRunner: real HTTP runs from several zones, the timeout honoured, a throwing or hanging probe made an unavailable result, unresolvable targets, stop.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import type { CheckDoc } from '../../../src/monitoring/check-rules.js';
import type { StoredDoc } from '../../../src/monitoring/doc-store.js';
import type { EntityDoc } from '../../../src/monitoring/entity-rules.js';
import type { MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import { AddressGuard } from '../../../src/monitoring/probes/address-guard.js';
import { httpProbe } from '../../../src/monitoring/probes/http-probe.js';
import type { Probe } from '../../../src/monitoring/probes/probe-types.js';
import { CheckRunner } from '../../../src/monitoring/runner/check-runner.js';
import { CHECK_PROBE_GRACE_MS } from '../../../src/monitoring/monitoring-limits.js';
import { collectingLogger, httpCheckBody, monitoringWithEntity, startTarget, type LoopbackTarget } from './runner-fixtures.js';

/** Generous slack over a timeout that still proves a run did not hang. */
const HANG_SLACK_MS = 5_000;

let target: LoopbackTarget;
let monitoring: MonitoringService;
let entity: StoredDoc<EntityDoc>;

beforeEach(async () => {
  target = await startTarget();
  const made = monitoringWithEntity(systemClock);
  monitoring = made.monitoring;
  entity = monitoring.entities.entity('t1', made.entityId);
});

afterEach(async () => {
  await target.close();
  monitoring.close();
});

function runner(probes: Record<string, Probe>, logger = collectingLogger(), guard = new AddressGuard()): CheckRunner {
  return new CheckRunner({ probes: new Map(Object.entries(probes)), guard, clock: systemClock, logger });
}

/** A stored check with secrets, as the scheduler hands it over; the timeout may be fractional here (seconds). */
function check(extra: Partial<CheckDoc> = {}): CheckDoc {
  const id = monitoring.entities.createCheck('t1', entity.id, httpCheckBody(target.url));
  return { ...monitoring.entities.checkWithSecrets('t1', entity.id, id).doc, ...extra };
}

describe('CheckRunner.runOnce', () => {
  it('runs a real remote.http check from each zone, one result per zone stamped with its start', async () => {
    const before = Date.now();
    const results = await runner({ 'remote.http': httpProbe }).runOnce('t1', entity, check());
    expect(results.map((r) => r.monitoringZoneId)).toEqual(['mzdfw', 'mziad', 'mzord']);
    expect(target.requests).toBe(3);
    for (const result of results) {
      expect(result.available).toBe(true);
      expect(result.metrics['code']).toMatchObject({ data: '200' });
      expect(Object.keys(result.metrics)).toEqual(expect.arrayContaining(['bytes', 'code', 'duration', 'truncated', 'tt_connect', 'tt_firstbyte']));
      expect(result.timestampMs).toBeGreaterThanOrEqual(before);
      expect(result.timestampMs).toBeLessThanOrEqual(Date.now());
    }
  });

  it('runs only the zones asked for', async () => {
    const results = await runner({ 'remote.http': httpProbe }).runOnce('t1', entity, check(), ['mziad']);
    expect(results.map((r) => r.monitoringZoneId)).toEqual(['mziad']);
    expect(target.requests).toBe(1);
  });

  it('reports a target that is down as unavailable, not as an error', async () => {
    await target.close();
    const [result] = await runner({ 'remote.http': httpProbe }).runOnce('t1', entity, check(), ['mzdfw']);
    expect(result?.available).toBe(false);
    expect(result?.status).toMatch(/refused|ECONNREFUSED/i);
  });

  it('gives a target_alias that names no address an unavailable result saying so, without running the probe', async () => {
    let ran = 0;
    const probe: Probe = async () => (ran++, { available: true, status: 'ok', metrics: {} });
    const results = await runner({ 'remote.http': probe }).runOnce('t1', entity, check({ target_alias: 'gone' }));
    expect(ran).toBe(0);
    expect(results).toHaveLength(3);
    for (const result of results) expect(result).toMatchObject({ available: false, status: expect.stringContaining('gone'), metrics: {} });
  });

  it('reports a type without a probe as unavailable', async () => {
    const [result] = await runner({}).runOnce('t1', entity, check(), ['mzdfw']);
    expect(result).toMatchObject({ available: false, status: 'no probe runs remote.http checks' });
  });
});

describe('CheckRunner.runZone', () => {
  it('aborts the probe at the check timeout; a probe that honours the signal reports promptly', async () => {
    let aborted = false;
    let givenMs = Number.NaN;
    const probe: Probe = (context) =>
      new Promise((resolve) => {
        givenMs = context.timeoutMs;
        context.signal.addEventListener('abort', () => {
          aborted = true;
          resolve({ available: false, status: `timed out (${context.timeoutMs} ms)`, metrics: {} });
        });
      });
    const started = performance.now();
    const run = await runner({ 'remote.http': probe }).runZone('t1', entity, check({ timeout: 0.1 }), 'mzdfw');
    const tookMs = performance.now() - started;
    expect(aborted).toBe(true);
    expect(run.outcome).toBe('unavailable');
    // The probe is given the time left of the 100 ms after resolving its target (99 on a loaded
    // machine), and its own status is what comes back.
    expect(givenMs).toBeGreaterThanOrEqual(1);
    expect(givenMs).toBeLessThanOrEqual(100);
    expect(run.result).toMatchObject({ available: false, status: `timed out (${givenMs} ms)`, monitoringZoneId: 'mzdfw' });
    // Not before the timeout; "promptly" is the probe's own status above (the runner's grace
    // fallback would say otherwise), not a wall-clock bound, which a loaded machine breaks.
    expect(tookMs).toBeGreaterThanOrEqual(95);
  });

  it('gives up on a probe that never settles one grace period after the timeout', async () => {
    const probe: Probe = () => new Promise(() => {});
    const started = performance.now();
    const run = await runner({ 'remote.http': probe }).runZone('t1', entity, check({ timeout: 0.05 }), 'mzord');
    const tookMs = performance.now() - started;
    expect(run.outcome).toBe('unavailable');
    expect(run.result).toMatchObject({ available: false, status: 'timed out after 50 ms', metrics: {} });
    expect(tookMs).toBeGreaterThanOrEqual(50 + CHECK_PROBE_GRACE_MS - 5);
    // The runner's own status above proves it gave up (the probe never settles); this generous
    // bound only proves it did not hang, as timers run late on a loaded machine.
    expect(tookMs).toBeLessThan(50 + CHECK_PROBE_GRACE_MS + HANG_SLACK_MS);
  });

  it('turns a throwing probe into an unavailable result and logs the bug without its message', async () => {
    const logger = collectingLogger();
    const secretUrl = 'http://user:hunter2@127.0.0.1/';
    const throwing: Probe = async () => {
      throw new TypeError(`boom at ${secretUrl}`);
    };
    const syncThrowing = (() => {
      throw new RangeError(`sync boom ${secretUrl}`);
    }) as unknown as Probe;
    for (const probe of [throwing, syncThrowing]) {
      const run = await runner({ 'remote.http': probe }, logger).runZone('t1', entity, check(), 'mzdfw');
      expect(run.outcome).toBe('error');
      expect(run.result).toMatchObject({ available: false, status: 'internal error: the probe failed', metrics: {} });
    }
    expect(logger.lines.filter((line) => line.level === 'error')).toHaveLength(2);
    expect(JSON.stringify(logger.lines)).not.toContain('hunter2');
    expect(logger.lines[0]?.obj).toMatchObject({ tenant: 't1', checkType: 'remote.http', errName: 'TypeError' });
  });

  it('stop() aborts runs in flight and makes later runs return at once', async () => {
    const probe: Probe = (context) => new Promise((resolve) => context.signal.addEventListener('abort', () => resolve({ available: false, status: 'aborted', metrics: {} })));
    const r = runner({ 'remote.http': probe });
    const running = r.runZone('t1', entity, check(), 'mzdfw');
    await new Promise((resolve) => setTimeout(resolve, 20));
    r.stop();
    expect((await running).result.status).toBe('aborted');
    const later = await r.runZone('t1', entity, check(), 'mzdfw');
    expect(later.result).toMatchObject({ available: false, status: 'the check runner stopped' });
  });

  it('passes the guard to the probe: a denied address is refused by the real probe', async () => {
    const [result] = await runner({ 'remote.http': httpProbe }, collectingLogger(), new AddressGuard(['127.0.0.0/8'])).runOnce('t1', entity, check(), ['mzdfw']);
    expect(result?.available).toBe(false);
    expect(target.requests).toBe(0);
  });
});
