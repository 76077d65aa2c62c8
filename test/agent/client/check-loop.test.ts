// Tests the agent's check loop on a manual clock: random first phase, period, disabled checks, schedule changes, timeouts, overlaps and failures.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { StrataError } from '../../../src/core/errors.js';
import { AGENT_CHECK_PERIOD_S_MAX } from '../../../src/agent/agent-limits.js';
import { CheckLoop } from '../../../src/agent/client/check-loop.js';
import { collectorFor, type Collected, type Collector } from '../../../src/agent/collectors/collector-registry.js';
import type { MetricsPostParams, ScheduledCheck } from '../../../src/agent/protocol/messages.js';
import { wireMetric } from '../../../src/agent/protocol/wire-metrics.js';
import { ManualScheduler } from './manual-scheduler.js';
import { recordingLogger } from './test-endpoint.js';

const START_MS = 1_700_000_000_000;

/** A collector whose outcome the test chooses; it records when it was asked. */
class ScriptedCollector implements Collector {
  readonly calls: number[] = [];
  constructor(private readonly outcome: (nowMs: number) => Promise<Collected>) {}
  collect(_details: Readonly<Record<string, unknown>>, nowMs: number): Promise<Collected> {
    this.calls.push(nowMs);
    return this.outcome(nowMs);
  }
}

function counted(nowMs: number): Promise<Collected> {
  return Promise.resolve({ available: true, status: 'success', metrics: [[null, { at: wireMetric('int64', nowMs, 'ms') }]] });
}

function check(id: string, overrides: Partial<ScheduledCheck> = {}): ScheduledCheck {
  return { id, type: 'agent.test', details: { id }, period: 10, timeout: 5, disabled: false, ...overrides };
}

function loopWith(outcome: (nowMs: number) => Promise<Collected> = counted, random = 0.25) {
  const clock = new ManualClock(START_MS);
  const scheduler = new ManualScheduler(clock);
  const results: MetricsPostParams[] = [];
  const collectors: ScriptedCollector[] = [];
  const loop = new CheckLoop({
    collectorFor: () => {
      const collector = new ScriptedCollector(outcome);
      collectors.push(collector);
      return collector;
    },
    clock,
    scheduler,
    random: () => random,
    logger: recordingLogger(),
    onResult: (result) => void results.push(result),
  });
  return { clock, scheduler, results, collectors, loop };
}

describe('CheckLoop', () => {
  it('runs a check first at its random phase, then every period on that phase', async () => {
    const { scheduler, results, loop } = loopWith(counted, 0.25);
    loop.setSchedule([check('chA')]);
    await scheduler.advance(2_499);
    expect(results).toEqual([]);
    await scheduler.advance(1);
    await scheduler.advance(20_000);
    expect(results.map((r) => r.timestamp - START_MS)).toEqual([2_500, 12_500, 22_500]);
  });

  it('reports each run as check_metrics.post params: id, type, state, status, metrics and the start time', async () => {
    const { scheduler, results, loop } = loopWith(counted, 0);
    loop.setSchedule([check('chA')]);
    await scheduler.advance(0);
    expect(results).toEqual([
      { check_id: 'chA', check_type: 'agent.test', state: 'available', status: 'success', metrics: [[null, { at: wireMetric('int64', START_MS, 'ms') }]], timestamp: START_MS },
    ]);
  });

  it('never runs a disabled check', async () => {
    const { scheduler, results, loop } = loopWith();
    loop.setSchedule([check('chOff', { disabled: true })]);
    await scheduler.advance(60_000);
    expect(results).toEqual([]);
    expect(loop.status()).toMatchObject({ checks: 1, enabled: 0, runs: 0 });
  });

  it('keeps the collector and phase of a check a new schedule leaves unchanged, restarts a changed one, stops a removed one', async () => {
    const { scheduler, results, collectors, loop } = loopWith(counted, 0.5);
    loop.setSchedule([check('chSame'), check('chChanged'), check('chGone')]);
    await scheduler.advance(6_000);
    expect(collectors).toHaveLength(3);
    loop.setSchedule([check('chSame'), check('chChanged', { period: 20 })]);
    expect(collectors).toHaveLength(4);
    await scheduler.advance(30_000);
    const runsOf = (id: string) => results.filter((r) => r.check_id === id).map((r) => r.timestamp - START_MS);
    expect(runsOf('chSame')).toEqual([5_000, 15_000, 25_000, 35_000]);
    // Re-phased from the change at 6 s: half of 20 s later, then every 20 s.
    expect(runsOf('chChanged')).toEqual([5_000, 16_000, 36_000]);
    expect(runsOf('chGone')).toEqual([5_000]);
    expect(collectors[0]?.calls).toHaveLength(4);
  });

  it('reports a run that passes its timeout as unavailable and counts it', async () => {
    const { scheduler, results, loop } = loopWith(() => new Promise<Collected>(() => undefined), 0);
    loop.setSchedule([check('chHang', { timeout: 2 })]);
    await scheduler.advance(1_999);
    expect(results).toEqual([]);
    await scheduler.advance(1);
    expect(results).toMatchObject([{ check_id: 'chHang', state: 'unavailable', status: 'check timed out after 2000 ms', metrics: [], timestamp: START_MS }]);
    expect(loop.status().timeouts).toBe(1);
  });

  it('runs no check whose period or timeout makes a timer beyond AGENT_CHECK_PERIOD_S_MAX, or none', async () => {
    const { scheduler, results, loop } = loopWith(counted, 0);
    loop.setSchedule([
      check('chLong', { period: AGENT_CHECK_PERIOD_S_MAX + 1 }),
      check('chLongTimeout', { timeout: 2 ** 31 }),
      check('chZero', { period: 0.0001 }),
      check('chOk', { period: AGENT_CHECK_PERIOD_S_MAX, timeout: AGENT_CHECK_PERIOD_S_MAX }),
    ]);
    expect(loop.status()).toMatchObject({ checks: 4, enabled: 1 });
    expect(scheduler.pending).toBe(1);
    await scheduler.advance(0);
    expect(results.map((r) => r.check_id)).toEqual(['chOk']);
  });

  it('skips a due run while the previous one is still in flight', async () => {
    const { scheduler, collectors, loop } = loopWith(() => new Promise<Collected>(() => undefined), 0);
    loop.setSchedule([check('chSlow', { period: 1, timeout: 5 })]);
    await scheduler.advance(2_500);
    expect(collectors[0]?.calls).toEqual([START_MS]);
    expect(loop.status()).toMatchObject({ running: 1, skipped: 2, runs: 1 });
  });

  it('reports a collector failure as unavailable: a StrataError by its message, anything else by a fixed text', async () => {
    const failing = [new StrataError('CONFIG_INVALID', 'mount point is not mounted'), new Error('secret path /x/y')];
    const { scheduler, results, loop } = loopWith(() => Promise.reject(failing.shift()), 0);
    loop.setSchedule([check('chFail', { period: 1 })]);
    await scheduler.advance(1_000);
    expect(results.map((r) => [r.state, r.status])).toEqual([
      ['unavailable', 'mount point is not mounted'],
      ['unavailable', 'the collector failed'],
    ]);
  });

  it('drops the result of a run whose check was removed while it ran', async () => {
    let finish: (collected: Collected) => void = () => undefined;
    const { scheduler, results, loop } = loopWith(() => new Promise<Collected>((resolve) => (finish = resolve)), 0);
    loop.setSchedule([check('chA')]);
    await scheduler.advance(0);
    loop.setSchedule([]);
    finish({ available: true, status: 'success', metrics: [] });
    await scheduler.advance(0);
    expect(results).toEqual([]);
  });

  it('stops every timer on stop', async () => {
    const { scheduler, results, loop } = loopWith();
    loop.setSchedule([check('chA'), check('chB')]);
    expect(scheduler.pending).toBe(2);
    loop.stop();
    expect(scheduler.pending).toBe(0);
    loop.setSchedule([check('chC')]);
    await scheduler.advance(60_000);
    expect(results).toEqual([]);
  });

  it('runs a type no collector supports and reports it unavailable (the real registry)', async () => {
    const clock = new ManualClock(START_MS);
    const scheduler = new ManualScheduler(clock);
    const results: MetricsPostParams[] = [];
    const loop = new CheckLoop({ collectorFor: (type) => collectorFor(type), clock, scheduler, random: () => 0, logger: recordingLogger(), onResult: (r) => void results.push(r) });
    loop.setSchedule([check('chX', { type: 'agent.plugin' })]);
    await scheduler.advance(0);
    await scheduler.advance(0);
    expect(results).toMatchObject([{ check_id: 'chX', check_type: 'agent.plugin', state: 'unavailable', status: 'check type agent.plugin is not supported by this agent', metrics: [] }]);
  });
});
