// The property: for any observation history, the backtest's state changes equal the changelog the live alarm runtime writes for the same observations (fed through the real ResultSink into a real engine, whose remote run series is sparse).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangelogRow } from '../../../src/monitoring/changelog-store.js';
import type { CheckResult, ResultMetrics } from '../../../src/monitoring/check-result.js';
import { replayOrder } from '../../../src/monitoring/backtest/stored-observations.js';
import { runSeries } from '../../../src/monitoring/backtest/run-series.js';
import type { BacktestChange } from '../../../src/monitoring/backtest/backtest-service.js';
import { BacktestWorld, T0_MS, TENANT, ZONES } from './backtest-world.js';

const CRITERIA_BODIES = [
  "if (metric['code'] != '200') { return new AlarmStatus(CRITICAL, 'HTTP #{code}'); } return new AlarmStatus(OK, 'fine');",
  "if (metric['value'] > 80) { return new AlarmStatus(CRITICAL, 'high #{value}'); } if (metric['value'] > 50) { return new AlarmStatus(WARNING); } return new AlarmStatus(OK);",
  "if (previous(metric['code']) != metric['code']) { return new AlarmStatus(WARNING, 'changed to #{code}'); } return new AlarmStatus(OK);",
  "if (rate(metric['value']) > 0.5) { return new AlarmStatus(CRITICAL, 'rising'); } if (rate(metric['value']) < -0.5) { return new AlarmStatus(WARNING, 'falling'); } return new AlarmStatus(OK);",
  "if (percentage(metric['value'], 200) >= 25) { return new AlarmStatus(WARNING, 'quarter'); } return new AlarmStatus(OK);",
  "if (metric['code'] regex '^5') { return new AlarmStatus(CRITICAL); }",
];

/** Criteria: none (availability), or a body with optional consecutiveCount and consistencyLevel. */
const criteria = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  {
    weight: 5,
    arbitrary: fc
      .record({ body: fc.constantFrom(...CRITERIA_BODIES), count: fc.option(fc.integer({ min: 1, max: 3 })), level: fc.option(fc.constantFrom('ONE', 'QUORUM', 'ALL')) })
      .map(({ body, count, level }) => [count === null ? '' : `:set consecutiveCount=${count}\n`, level === null ? '' : `:set consistencyLevel=${level}\n`, body].join('')),
  },
);

/**
 * One run's outcome: availability and metrics (each metric may be missing, and all of them are
 * when `bare` is below the history's bareRate). The sink writes a remote check's run point only for
 * an unavailable run or one without metrics, so both come often: `available` and `bare` are
 * unbiased percentiles (a double in [0, 1] is mostly near 0, which made nearly every run available).
 */
const outcome = fc.record({
  present: fc.double({ min: 0, max: 1, noNaN: true }),
  available: fc.noBias(fc.integer({ min: 0, max: 99 })),
  bare: fc.noBias(fc.integer({ min: 0, max: 99 })),
  status: fc.constantFrom('code=200,rt=0.010s', 'connection refused', 'timeout: no answer within 10 s', ''),
  code: fc.option(fc.constantFrom('200', '500', '404', '503')),
  value: fc.option(fc.oneof(fc.integer({ min: 0, max: 200 }), fc.double({ min: -1e3, max: 1e3, noNaN: true, noDefaultInfinity: true }))),
  jitterMs: fc.integer({ min: 0, max: 29_999 }),
});

const history = fc.record({
  remote: fc.boolean(),
  zones: fc.subarray([...ZONES], { minLength: 1 }),
  periodS: fc.constantFrom(30, 60),
  criteria,
  presentRate: fc.constantFrom(0.6, 0.9, 1),
  /** Percent of runs available. */
  availableRate: fc.constantFrom(20, 50, 90, 100),
  /** Percent of runs without any metric. */
  bareRate: fc.constantFrom(0, 25, 50),
  rounds: fc.array(fc.array(outcome, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 40 }),
});

type History = typeof history extends fc.Arbitrary<infer T> ? T : never;

function metricsOf(code: string | null, value: number | null): ResultMetrics {
  const metrics: Record<string, ResultMetrics[string]> = {};
  if (code !== null) metrics['code'] = { type: 's', data: code, unit: 'unknown' };
  if (value !== null) metrics['value'] = { type: Number.isInteger(value) ? 'l' : 'n', data: value, unit: 'percent' };
  return metrics;
}

/** The observations of a history in replay order: one per present (round, zone) of a remote check, one per present round of an agent check (its zone varies). */
function observationsOf(h: History): CheckResult[] {
  const periodMs = h.periodS * 1000;
  const results: CheckResult[] = [];
  h.rounds.forEach((round, i) => {
    const zones = h.remote ? h.zones : [h.zones[i % h.zones.length] as string];
    zones.forEach((zone, z) => {
      const o = round[z % round.length] as (typeof round)[number];
      if (o.present >= h.presentRate) return;
      const available = o.available < h.availableRate;
      results.push({
        monitoringZoneId: zone,
        timestampMs: T0_MS + i * periodMs + (o.jitterMs % periodMs),
        available,
        status: available ? `code=${o.code ?? '200'}` : o.status,
        metrics: o.bare < h.bareRate ? {} : metricsOf(o.code, o.value),
      });
    });
  });
  return results.sort(replayOrder);
}

/** What kind of stored result an observation is: remote ones by availability and metrics (which decide their run point), agent ones all alike (they always write it). */
function kindOf(remote: boolean, result: CheckResult): string {
  if (!remote) return 'agent';
  const metrics = Object.keys(result.metrics).length > 0 ? 'metrics' : 'bare';
  return `${result.available ? 'up' : 'down'} ${metrics}`;
}

/** The run points stored for a check over the history's range, by zone (null: an agent check). */
async function storedRunPoints(world: BacktestWorld, entityId: string, checkId: string, zones: readonly (string | null)[], toMs: number): Promise<number> {
  let count = 0;
  for (const zone of zones) {
    const result = await world.engine.query({ tenant: TENANT, metric: runSeries(entityId, checkId, zone), from: T0_MS, to: toMs, resolution: 'FULL' });
    count += result.values.length;
  }
  return count;
}

const live = (rows: readonly ChangelogRow[]) => rows.map((row) => [row.timestampMs, row.state, row.previousState, row.zoneId]);
const replayed = (changes: readonly BacktestChange[]) => changes.map((change) => [change.timestampMs, change.state, change.previousState, change.zoneId]);

describe('the backtest replays what the live runtime decided', () => {
  let world: BacktestWorld;
  beforeAll(async () => {
    world = await BacktestWorld.open();
  });
  afterAll(async () => {
    await world.close();
  });

  it('for any observation history, its state changes equal the live changelog (timestamp, state, previous state, zone)', async () => {
    const { plan } = world.plan();
    const backtests = world.backtests();
    const kinds = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(history, async (h) => {
        const entityId = world.entity();
        const checkId = h.remote ? world.remoteCheck(entityId, h.zones, h.periodS) : world.agentCheck(entityId, h.periodS);
        const alarmId = world.alarm(entityId, checkId, plan, h.criteria);
        const observations = observationsOf(h);
        await world.feed(entityId, checkId, observations);
        for (const result of observations) kinds.set(kindOf(h.remote, result), (kinds.get(kindOf(h.remote, result)) ?? 0) + 1);
        const toMs = T0_MS + (h.rounds.length + 1) * h.periodS * 1000;
        // The run series is sparse for a remote check (a run point only for an unavailable run or one without metrics), whole for an agent check.
        const runPoints = h.remote ? observations.filter((result) => !result.available || Object.keys(result.metrics).length === 0).length : observations.length;
        expect(await storedRunPoints(world, entityId, checkId, h.remote ? h.zones : [null], toMs)).toBe(runPoints);
        const report = await backtests.ofAlarm(TENANT, entityId, alarmId, { fromMs: T0_MS, toMs });
        expect(report.totals.observations).toBe(observations.length);
        expect(report.unreplayed).toEqual([]);
        expect(replayed(report.changes)).toEqual(live(world.changelog(alarmId)));
        // The verdict texts agree too: the changelog keeps none, the committed state keeps the last one.
        const last = report.changes.at(-1);
        if (last !== undefined) expect(last.status).toBe(world.runtime.states.get(TENANT, entityId, alarmId)?.status);
      }),
      { numRuns: 50 },
    );
    // The histories held every kind of stored result.
    expect([...kinds.keys()].sort()).toEqual(['agent', 'down bare', 'down metrics', 'up bare', 'up metrics']);
  });
});
