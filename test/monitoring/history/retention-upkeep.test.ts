// Checks the retention upkeep: the runtime's tasks and their retentions, each task pruned at its own cut in bounded steps, a backlog drained step after step, a failing task logged without stopping the others; and finished outbox rows kept as long as the history.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { DAY_MS, HOUR_MS } from '../../../src/core/time.js';
import { RetentionUpkeep, retentionTasks, type PruneTask } from '../../../src/monitoring/history/retention-upkeep.js';
import { OUTBOX_PRUNE_INTERVAL_MS } from '../../../src/monitoring/monitoring-limits.js';
import { Outbox } from '../../../src/monitoring/delivery/outbox.js';
import { sampleEvent } from '../delivery/channel-jobs.js';
import { HistoryWorld, NOW_MS, record } from './history-world.js';

/** A task over a list of record times: prune deletes the oldest ones before the cut, at most max. */
function listTask(name: string, retentionMs: number, times: number[], cuts: number[]): PruneTask {
  return {
    name,
    retentionMs,
    prune(beforeMs, max) {
      cuts.push(beforeMs);
      times.sort((a, b) => a - b);
      let n = 0;
      while (n < max && times.length > 0 && (times[0] as number) < beforeMs) {
        times.shift();
        n += 1;
      }
      return n;
    },
  };
}

describe('retentionTasks', () => {
  it('prunes the history, suppression logs and ended suppressions for the history retention, the audits for theirs', () => {
    const calls: string[] = [];
    const pruner = (what: string, n: number) => (beforeMs: number, max: number) => (calls.push(`${what} ${beforeMs} ${max}`), n);
    const tasks = retentionTasks({
      history: { retentionMs: 2 * DAY_MS, prune: pruner('history', 1) },
      suppressions: { pruneLogs: pruner('logs', 2), pruneEnded: pruner('ended', 3) },
      audits: { retentionMs: 5 * DAY_MS, prune: pruner('audits', 4) },
    } as never);
    expect(tasks.map((task) => [task.name, task.retentionMs])).toEqual([
      ['notification history', 2 * DAY_MS],
      ['suppression logs', 2 * DAY_MS],
      ['ended suppressions', 2 * DAY_MS],
      ['audits', 5 * DAY_MS],
    ]);
    expect(tasks.map((task) => task.prune(7, 9))).toEqual([1, 2, 3, 4]);
    expect(calls).toEqual(['history 7 9', 'logs 7 9', 'ended 7 9', 'audits 7 9']);
  });
});

describe('RetentionUpkeep', () => {
  const lines: { level: string; obj: object; msg: string }[] = [];
  const logger = { info: (obj: object, msg: string) => lines.push({ level: 'info', obj, msg }), error: (obj: object, msg: string) => lines.push({ level: 'error', obj, msg }) };

  afterEach(() => {
    vi.useRealTimers();
    lines.length = 0;
  });

  it('prunes each task before now minus its own retention, at most a batch each, and logs what it deleted', () => {
    const clock = new ManualClock(NOW_MS);
    const a = [NOW_MS - 3 * DAY_MS, NOW_MS - 3 * DAY_MS, NOW_MS - 3 * DAY_MS, NOW_MS - HOUR_MS];
    const b = [NOW_MS - 3 * DAY_MS, NOW_MS - 10 * DAY_MS];
    const cutsA: number[] = [];
    const cutsB: number[] = [];
    const upkeep = new RetentionUpkeep({ tasks: [listTask('a', DAY_MS, a, cutsA), listTask('b', 5 * DAY_MS, b, cutsB)], clock, logger, batchMax: 2 });
    expect(upkeep.step()).toEqual({ a: 2, b: 1 });
    expect(cutsA).toEqual([NOW_MS - DAY_MS]);
    expect(cutsB).toEqual([NOW_MS - 5 * DAY_MS]);
    expect(lines).toEqual([{ level: 'info', obj: { deleted: { a: 2, b: 1 } }, msg: 'pruned records past their retention' }]);
    expect(upkeep.step()).toEqual({ a: 1, b: 0 });
    expect(upkeep.step()).toEqual({ a: 0, b: 0 });
    expect(lines).toHaveLength(2);
    expect(a).toEqual([NOW_MS - HOUR_MS]);
  });

  it('refuses an interval that is not a whole number of ms of at least 1', () => {
    for (const intervalMs of [0, -5, 1.5, Number.NaN]) {
      expect(() => new RetentionUpkeep({ tasks: [], clock: new ManualClock(NOW_MS), logger, intervalMs })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    }
  });

  it('logs a failing task and still runs the others', () => {
    const clock = new ManualClock(NOW_MS);
    const failing: PruneTask = {
      name: 'broken',
      retentionMs: DAY_MS,
      prune: () => {
        throw new Error('no such table');
      },
    };
    const times = [NOW_MS - 2 * DAY_MS];
    const upkeep = new RetentionUpkeep({ tasks: [failing, listTask('ok', DAY_MS, times, [])], clock, logger });
    expect(upkeep.step()).toEqual({ ok: 1 });
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      ['error', 'retention prune failed; it is tried again at the next step'],
      ['info', 'pruned records past their retention'],
    ]);
  });

  it('runs a step at start, again at once while a batch fills, then every interval until stopped', async () => {
    vi.useFakeTimers();
    const clock = new ManualClock(NOW_MS);
    const times = Array.from({ length: 5 }, () => NOW_MS - 2 * DAY_MS);
    const cuts: number[] = [];
    const upkeep = new RetentionUpkeep({ tasks: [listTask('t', DAY_MS, times, cuts)], clock, logger, batchMax: 2 });
    upkeep.start();
    upkeep.start();
    await vi.advanceTimersByTimeAsync(10);
    // 2 + 2 + 1: the third step deleted less than a batch, so the next waits for the interval.
    expect(cuts).toHaveLength(3);
    expect(times).toEqual([]);
    await vi.advanceTimersByTimeAsync(OUTBOX_PRUNE_INTERVAL_MS - 20);
    expect(cuts).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(20);
    expect(cuts).toHaveLength(4);
    upkeep.stop();
    await vi.advanceTimersByTimeAsync(10 * OUTBOX_PRUNE_INTERVAL_MS);
    expect(cuts).toHaveLength(4);
  });

  it('prunes the real history, and the outbox keeps finished rows for the history retention', () => {
    const world = new HistoryWorld({ historyRetentionMs: 2 * DAY_MS });
    try {
      const { monitoring, clock } = world;
      world.add('t1', record('old', NOW_MS - 3 * DAY_MS), record('young', NOW_MS - DAY_MS));
      const upkeep = new RetentionUpkeep({
        tasks: [{ name: 'notification history', retentionMs: monitoring.history.retentionMs, prune: (b, m) => monitoring.history.prune(b, m) }],
        clock,
        logger,
      });
      expect(upkeep.step()).toEqual({ 'notification history': 1 });
      const outbox = new Outbox({ db: monitoring.store.db, clock, finishedRetentionMs: monitoring.history.retentionMs });
      const id = monitoring.store.transaction(() => outbox.enqueue('t1', { notificationId: 'ntA', entityId: 'enA', alarmId: 'alA', checkId: 'chA', state: 'CRITICAL', event: sampleEvent({ tenant: 't1' }) }));
      outbox.store.recordAttempt({ tenant: 't1', id }, { attempt: 1, txnId: '.t', startedMs: NOW_MS, durationMs: 1, outcome: 'delivered', detail: 'ok' }, { status: 'delivered', nextAttemptMs: NOW_MS, lastError: null, nowMs: NOW_MS });
      clock.advance(2 * DAY_MS - 1);
      expect(outbox.upkeep().pruned).toBe(0);
      clock.advance(2);
      expect(outbox.upkeep().pruned).toBe(1);
    } finally {
      world.close();
    }
  });
});
