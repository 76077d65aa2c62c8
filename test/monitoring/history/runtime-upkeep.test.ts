// Checks the runtime's retention wiring: its upkeep prunes the history, suppression logs and audits for their retentions, every (injected) interval from start to stop and never after, and its outbox keeps finished rows as long as the history.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { DAY_MS, HOUR_MS } from '../../../src/core/time.js';
import { openFeeds, type Feeds } from '../../../src/feeds/feeds-service.js';
import { MonitoringRuntime } from '../../../src/monitoring/monitoring-runtime.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import { openStore } from '../../../src/store.js';
import type { Store } from '../../../src/store-types.js';
import { sampleEvent } from '../delivery/channel-jobs.js';
import { collectingLogger } from '../runner/runner-fixtures.js';
import { eventually } from '../delivery/webhook-receiver.js';
import { NOW_MS, record } from './history-world.js';

/** The upkeep interval the runtime is built with here: short, so a test sees several steps. */
const UPKEEP_INTERVAL_MS = 20;

describe('MonitoringRuntime retention upkeep', () => {
  let dir: string;
  let engine: Store;
  let feeds: Feeds;
  let monitoring: MonitoringService;
  let runtime: MonitoringRuntime;
  let clock: ManualClock;
  const scope = { entityId: 'enA', alarmId: 'alA', checkId: 'chA' };

  beforeEach(async () => {
    clock = new ManualClock(NOW_MS);
    dir = mkdtempSync(join(tmpdir(), 'strata-runtime-upkeep-'));
    engine = await openStore({ dir, workers: 0, background: false });
    feeds = openFeeds({ dir: undefined, clock, region: 'LOCAL' });
    monitoring = openMonitoring({ dir: undefined, clock, historyRetentionMs: 2 * DAY_MS, auditRetentionMs: 5 * DAY_MS });
    runtime = new MonitoringRuntime({ monitoring, engine, feeds, clock, logger: collectingLogger(), newTxnId: () => '.txn', options: { upkeepIntervalMs: UPKEEP_INTERVAL_MS } });
  });

  afterEach(async () => {
    await runtime.stop();
    await engine.close();
    feeds.close();
    monitoring.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ids = () => monitoring.history.list('t1', scope, { limit: 10, fromMs: 0, toMs: clock.now() + 1 }).values.map((entry) => entry.record.id);

  it('prunes each kind for its own retention in one step', () => {
    monitoring.store.transaction(() => {
      monitoring.history.record('t1', record('old', clock.now() - 3 * DAY_MS));
      monitoring.history.record('t1', record('young', clock.now() - DAY_MS));
    });
    expect(runtime.upkeep.step()).toEqual({ 'notification history': 1, 'suppression logs': 0, 'ended suppressions': 0, audits: 0 });
    expect(ids()).toEqual(['young']);
  });

  it('prunes the suppressions that ended before the history retention cut, and keeps the others', () => {
    const body = (endMs: number) => ({ start_time: 0, end_time: endMs, entities: ['enA'] });
    const ended = monitoring.suppressions.create('t1', body(clock.now() + HOUR_MS));
    const later = monitoring.suppressions.create('t1', body(clock.now() + 2 * DAY_MS));
    const running = monitoring.suppressions.create('t2', body(clock.now() + 30 * DAY_MS));
    // The history retention is 2 days: the cut passes the first one's end by 1 ms, not the others'.
    clock.advance(2 * DAY_MS + HOUR_MS + 1);
    expect(runtime.upkeep.step()).toMatchObject({ 'ended suppressions': 1 });
    expect(() => monitoring.suppressions.suppression('t1', ended)).toThrow(expect.objectContaining({ code: 'MONITORING_OBJECT_NOT_FOUND' }));
    expect(monitoring.suppressions.suppression('t1', later).id).toBe(later);
    expect(monitoring.suppressions.suppression('t2', running).id).toBe(running);
    expect(runtime.upkeep.step()).toMatchObject({ 'ended suppressions': 0 });
  });

  it('runs a step at start, then one every interval, and none once the runtime stopped', async () => {
    monitoring.store.transaction(() => monitoring.history.record('t1', record('old', clock.now() - 3 * DAY_MS)));
    await runtime.start();
    await eventually('the first upkeep step', () => ids().length === 0);
    // Written after the first step: only a later step (the timer at the injected interval) prunes it.
    monitoring.store.transaction(() => monitoring.history.record('t1', record('later', clock.now() - 3 * DAY_MS)));
    await eventually('a step one interval later', () => ids().length === 0);
    await runtime.stop();
    monitoring.store.transaction(() => monitoring.history.record('t1', record('older', clock.now() - 4 * DAY_MS)));
    // Ten intervals: an upkeep still running would have pruned it, as it pruned 'later' above.
    await new Promise((resolve) => setTimeout(resolve, 10 * UPKEEP_INTERVAL_MS));
    expect(ids()).toEqual(['older']);
  });

  it('keeps finished outbox rows as long as the history', () => {
    const id = monitoring.store.transaction(() => runtime.outbox.enqueue('t1', { notificationId: 'ntA', entityId: 'enA', alarmId: 'alA', checkId: 'chA', state: 'OK', event: sampleEvent({ tenant: 't1' }) }));
    runtime.outbox.store.recordAttempt({ tenant: 't1', id }, { attempt: 1, txnId: '.t', startedMs: clock.now(), durationMs: 1, outcome: 'delivered', detail: 'ok' }, { status: 'delivered', nextAttemptMs: clock.now(), lastError: null, nowMs: clock.now() });
    clock.advance(2 * DAY_MS - 1);
    expect(runtime.outbox.upkeep().pruned).toBe(0);
    clock.advance(2);
    expect(runtime.outbox.upkeep().pruned).toBe(1);
  });
});
