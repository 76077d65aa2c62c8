// Tests of CheckScheduler with a manual clock: what is scheduled, stable phases, one run per period, change events, skips (queue full, overlap, behind), runNow and stop.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import { AddressGuard } from '../../../src/monitoring/probes/address-guard.js';
import type { Probe } from '../../../src/monitoring/probes/probe-types.js';
import { CheckRunner } from '../../../src/monitoring/runner/check-runner.js';
import { CheckScheduler, type CheckSchedulerOptions } from '../../../src/monitoring/runner/check-scheduler.js';
import { RunnerStats } from '../../../src/monitoring/runner/runner-stats.js';
import { dueAtOrAfter, slotKey, slotPhaseMs } from '../../../src/monitoring/runner/slot-phase.js';
import { collectingLogger, collectingSink, gatedProbe, httpCheckBody, instantProbe, monitoringWithEntity } from './runner-fixtures.js';

const T0 = 1_700_000_000_000;
const PERIOD_MS = 30_000;
const open: { monitoring: MonitoringService; schedulers: CheckScheduler[] }[] = [];

afterEach(async () => {
  for (const { monitoring, schedulers } of open.splice(0)) {
    for (const scheduler of schedulers) await scheduler.stop(0);
    monitoring.close();
  }
});

function setup(probe: Probe = instantProbe(), options: CheckSchedulerOptions = {}) {
  const clock = new ManualClock(T0);
  const { monitoring, entityId } = monitoringWithEntity(clock);
  const sink = collectingSink();
  const stats = new RunnerStats();
  const logger = collectingLogger();
  const schedulers: CheckScheduler[] = [];
  const make = (extra: CheckSchedulerOptions = {}): CheckScheduler => {
    const runner = new CheckRunner({ probes: new Map([['remote.http', probe]]), guard: new AddressGuard(), clock, logger });
    const scheduler = new CheckScheduler({ monitoring, runner, sink, stats, clock, logger, options: { ...options, ...extra } });
    schedulers.push(scheduler);
    return scheduler;
  };
  open.push({ monitoring, schedulers });
  const addCheck = (extra = {}): string => monitoring.entities.createCheck('t1', entityId, httpCheckBody('http://127.0.0.1:9/', extra));
  return { clock, monitoring, entityId, sink, stats, logger, make, addCheck };
}

/** Advances the clock in steps, ticking and letting the runs settle after each. */
async function runFor(clock: ManualClock, scheduler: CheckScheduler, totalMs: number, stepMs = 500): Promise<void> {
  for (let at = 0; at < totalMs; at += stepMs) {
    clock.advance(stepMs);
    scheduler.tick();
    await scheduler.idle();
  }
}

describe('CheckScheduler: what runs when', () => {
  it('schedules each enabled remote check once per zone it polls among the zones run here; not disabled or agent checks', () => {
    const { monitoring, entityId, make, addCheck } = setup();
    const a = addCheck();
    addCheck({ disabled: true });
    const d = addCheck({ monitoring_zones_poll: ['mzord'] });
    monitoring.entities.createCheck('t1', entityId, { type: 'agent.cpu', label: 'cpu' });
    const scheduler = make({ zones: ['mzdfw', 'mziad'] });
    scheduler.load();
    expect(scheduler.state()).toMatchObject({ checks: 1, slots: 2, running: 0, waiting: 0 });
    expect(scheduler.dueTimes('t1', entityId, d)).toEqual([]);
    const dues = scheduler.dueTimes('t1', entityId, a);
    expect(dues.map((due) => due.zoneId)).toEqual(['mzdfw', 'mziad']);
    for (const { zoneId, dueMs } of dues) {
      expect(dueMs).toBe(dueAtOrAfter(T0, PERIOD_MS, slotPhaseMs(slotKey('t1', entityId, a, zoneId), PERIOD_MS)));
    }
  });

  it('keeps phases across a restart: a second scheduler over the same checks picks the same due times', () => {
    const { entityId, make, addCheck } = setup();
    const ids = [addCheck(), addCheck(), addCheck()];
    const first = make();
    first.load();
    const second = make();
    second.load();
    for (const id of ids) expect(second.dueTimes('t1', entityId, id)).toEqual(first.dueTimes('t1', entityId, id));
    // Different slots land on different phases.
    const phases = new Set(ids.flatMap((id) => first.dueTimes('t1', entityId, id).map((due) => due.dueMs)));
    expect(phases.size).toBe(9);
  });

  it('runs every slot once per period, at its phase, and records a start lag under the tick step', async () => {
    const { clock, entityId, sink, stats, make, addCheck } = setup();
    const id = addCheck();
    const scheduler = make();
    scheduler.load();
    const dues = scheduler.dueTimes('t1', entityId, id);
    await runFor(clock, scheduler, 3 * PERIOD_MS);
    const byZone = (zone: string) => sink.results.filter((r) => r.result.monitoringZoneId === zone).map((r) => r.result.timestampMs);
    for (const { zoneId, dueMs } of dues) {
      const starts = byZone(zoneId);
      expect(starts).toHaveLength(3);
      starts.forEach((start, n) => {
        expect(start - (dueMs + n * PERIOD_MS)).toBeGreaterThanOrEqual(0);
        expect(start - (dueMs + n * PERIOD_MS)).toBeLessThan(500);
      });
    }
    expect(stats.snapshot().runs).toEqual([{ type: 'remote.http', outcome: 'available', count: 9 }]);
    expect(stats.snapshot().lag.maxMs).toBeLessThan(500);
    // The sink gets the check with secrets redacted, and the result of the zone that ran.
    expect(sink.results[0]?.check.id).toBe(id);
  });

  it('hands the sink the redacted check while the probe gets the secrets', async () => {
    const seen: string[] = [];
    const probe: Probe = async (context) => (seen.push(String(context.check.details['auth_password'])), { available: true, status: 'ok', metrics: {} });
    const { entityId, sink, make, addCheck } = setup(probe);
    const id = addCheck({ details: { url: 'http://127.0.0.1:9/', method: 'GET', auth_user: 'u', auth_password: 'hunter2' } });
    const scheduler = make();
    expect(await scheduler.runNow('t1', entityId, id)).toBe(0);
    scheduler.load();
    expect(await scheduler.runNow('t1', entityId, id)).toBe(3);
    expect(seen).toEqual(['hunter2', 'hunter2', 'hunter2']);
    expect(JSON.stringify(sink.results)).not.toContain('hunter2');
    expect(sink.results).toHaveLength(3);
  });
});

describe('CheckScheduler: changes', () => {
  it('schedules a created check at once (then on its phase), reschedules a new period, keeps slots on other updates, drops disabled and deleted checks', async () => {
    const { clock, monitoring, entityId, sink, make, addCheck } = setup();
    const scheduler = make();
    scheduler.load();
    const id = addCheck();
    expect(scheduler.dueTimes('t1', entityId, id).map((d) => d.dueMs)).toEqual([T0, T0, T0]);
    scheduler.tick();
    await scheduler.idle();
    expect(sink.results).toHaveLength(3);
    for (const { zoneId, dueMs } of scheduler.dueTimes('t1', entityId, id)) {
      expect(dueMs).toBe(dueAtOrAfter(T0 + PERIOD_MS / 2, PERIOD_MS, slotPhaseMs(slotKey('t1', entityId, id, zoneId), PERIOD_MS)));
    }
    const kept = scheduler.dueTimes('t1', entityId, id);
    monitoring.entities.updateCheck('t1', entityId, id, { label: 'renamed' });
    expect(scheduler.dueTimes('t1', entityId, id)).toEqual(kept);
    // Every next due is within 1.5 periods of the first run.
    clock.advance(1.5 * PERIOD_MS);
    scheduler.tick();
    await scheduler.idle();
    expect(sink.results.at(-1)?.check.doc.label).toBe('renamed');
    monitoring.entities.updateCheck('t1', entityId, id, { period: 60, monitoring_zones_poll: ['mzdfw'] });
    expect(scheduler.dueTimes('t1', entityId, id)).toEqual([{ zoneId: 'mzdfw', dueMs: clock.now() }]);
    monitoring.entities.updateCheck('t1', entityId, id, { disabled: true });
    expect(scheduler.state()).toMatchObject({ checks: 0, slots: 0 });
    monitoring.entities.updateCheck('t1', entityId, id, { disabled: false });
    expect(scheduler.state().slots).toBe(1);
    monitoring.entities.deleteCheck('t1', entityId, id);
    expect(scheduler.state()).toMatchObject({ checks: 0, slots: 0 });
    // Removed slots never run again.
    const before = sink.results.length;
    await runFor(clock, scheduler, 2 * 60_000, 5_000);
    expect(sink.results).toHaveLength(before);
  });

  it('gives the checks of an updated entity its new addresses', async () => {
    const addresses: string[] = [];
    const { monitoring, entityId, make, addCheck } = setup(instantProbe(addresses));
    const id = addCheck({ monitoring_zones_poll: ['mzdfw'] });
    const scheduler = make();
    scheduler.load();
    await scheduler.runNow('t1', entityId, id);
    monitoring.entities.updateEntity('t1', entityId, { ip_addresses: { web: '127.0.0.2' } });
    await scheduler.runNow('t1', entityId, id);
    expect(addresses).toEqual(['127.0.0.1', '127.0.0.2']);
  });

  it('a check created after start() is run by the timer without a tick from outside', async () => {
    const { entityId, sink, make, addCheck } = setup();
    const scheduler = make();
    scheduler.start();
    addCheck();
    // The scheduler's own timer makes these runs: wait for them with a deadline a loaded machine cannot outlast.
    await vi.waitFor(() => expect(sink.results.length).toBeGreaterThanOrEqual(3), { timeout: 15_000, interval: 10 });
    expect(sink.results.map((r) => r.result.monitoringZoneId).sort()).toEqual(['mzdfw', 'mziad', 'mzord']);
    expect(sink.results.every((r) => r.check.entityId === entityId)).toBe(true);
  });
});

describe('CheckScheduler: loading', () => {
  it('start() loads the checks in chunks, yielding to the event loop between them', async () => {
    const { monitoring, make } = setup();
    monitoring.store.transaction(() => {
      for (let e = 0; e < 11; e++) {
        const entityId = monitoring.entities.createEntity('t2', { label: `host-${e}`, ip_addresses: { web: '127.0.0.1' } });
        for (let c = 0; c < 100; c++) monitoring.entities.createCheck('t2', entityId, httpCheckBody('http://127.0.0.1:9/', { monitoring_zones_poll: ['mzdfw'] }));
      }
    });
    const scheduler = make();
    let seenWhileLoading: number | undefined;
    setImmediate(() => (seenWhileLoading = scheduler.state().checks));
    await scheduler.start();
    expect(seenWhileLoading).toBeGreaterThan(0);
    expect(seenWhileLoading).toBeLessThan(1_100);
    expect(scheduler.state()).toMatchObject({ checks: 1_100, slots: 1_100 });
  });
});

describe('CheckScheduler: bounds', () => {
  it('skips and counts runs due while the queue is full, never queueing beyond its bound', async () => {
    const gate = gatedProbe();
    const { clock, stats, make, addCheck } = setup(gate.probe, { concurrency: 1, queueMax: 2 });
    const scheduler = make();
    scheduler.load();
    for (let i = 0; i < 5; i++) addCheck({ monitoring_zones_poll: ['mzdfw'] });
    scheduler.tick();
    expect(scheduler.state()).toMatchObject({ running: 1, waiting: 2, slots: 5, oldestWaitingMs: 0 });
    // The age of the oldest waiting run grows while it waits (it feeds the lag gauge's maximum).
    clock.advance(2_000);
    expect(scheduler.state().oldestWaitingMs).toBe(2_000);
    expect(stats.snapshot().skipped).toEqual({ queue_full: 2, overlap: 0, behind: 0 });
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      gate.release();
    }
    await scheduler.idle();
    expect(gate.started).toBe(3);
  });

  it('skips a slot whose previous run is still going (overlap)', async () => {
    const gate = gatedProbe();
    const { clock, entityId, stats, make, addCheck } = setup(gate.probe, { promptFirstRun: false });
    const id = addCheck({ monitoring_zones_poll: ['mzdfw'] });
    const scheduler = make();
    scheduler.load();
    const [due] = scheduler.dueTimes('t1', entityId, id);
    clock.set(due?.dueMs ?? T0);
    scheduler.tick();
    clock.advance(PERIOD_MS);
    scheduler.tick();
    expect(stats.snapshot().skipped.overlap).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    gate.release();
    await scheduler.idle();
    expect(gate.started).toBe(1);
  });

  it('after a stall of several periods runs once, late, and counts the missed runs as behind', async () => {
    const { clock, entityId, sink, stats, make, addCheck } = setup();
    const id = addCheck({ monitoring_zones_poll: ['mzdfw'] });
    const scheduler = make();
    scheduler.load();
    const [due] = scheduler.dueTimes('t1', entityId, id);
    const dueMs = due?.dueMs ?? T0;
    clock.set(dueMs + 3.5 * PERIOD_MS);
    scheduler.tick();
    await scheduler.idle();
    expect(sink.results).toHaveLength(1);
    expect(stats.snapshot().skipped.behind).toBe(3);
    expect(stats.snapshot().lag.maxMs).toBe(3.5 * PERIOD_MS);
    expect(scheduler.dueTimes('t1', entityId, id)[0]?.dueMs).toBe(dueMs + 4 * PERIOD_MS);
  });

  it('stop() drops waiting runs, waits for the running ones up to its bound, then aborts them without recording them', async () => {
    const probe: Probe = (context) => new Promise((resolve) => context.signal.addEventListener('abort', () => resolve({ available: false, status: 'aborted', metrics: {} })));
    const { sink, stats, make, addCheck } = setup(probe, { concurrency: 2 });
    const scheduler = make();
    scheduler.load();
    addCheck();
    addCheck();
    scheduler.tick();
    expect(scheduler.state()).toMatchObject({ running: 2, waiting: 4 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const started = performance.now();
    await scheduler.stop(100);
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(scheduler.state()).toMatchObject({ running: 0, waiting: 0 });
    // A run cut short by the shutdown says nothing about its target: no alarm may see it.
    expect(sink.results).toEqual([]);
    expect(stats.snapshot().runs).toEqual([]);
  });

  it('stop() lets runs that finish within its bound record their results', async () => {
    const gate = gatedProbe();
    const { sink, make, addCheck } = setup(gate.probe);
    const scheduler = make();
    scheduler.load();
    addCheck({ monitoring_zones_poll: ['mzdfw'] });
    scheduler.tick();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const stopping = scheduler.stop(5_000);
    gate.release();
    await stopping;
    expect(sink.results.map((r) => r.result.status)).toEqual(['ok']);
  });
});
