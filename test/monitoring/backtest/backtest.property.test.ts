// The property: for any observation history, the backtest's state changes equal the changelog the live alarm runtime writes for the same observations (fed through the real ResultSink into a real engine).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangelogRow } from '../../../src/monitoring/changelog-store.js';
import type { CheckResult, ResultMetrics } from '../../../src/monitoring/check-result.js';
import { replayOrder } from '../../../src/monitoring/backtest/stored-observations.js';
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

/** One run's outcome: availability and metrics (each metric may be missing). */
const outcome = fc.record({
  present: fc.double({ min: 0, max: 1, noNaN: true }),
  available: fc.double({ min: 0, max: 1, noNaN: true }),
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
  availableRate: fc.constantFrom(0.5, 0.9, 1),
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
        metrics: metricsOf(o.code, o.value),
      });
    });
  });
  return results.sort(replayOrder);
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
    await fc.assert(
      fc.asyncProperty(history, async (h) => {
        const entityId = world.entity();
        const checkId = h.remote ? world.remoteCheck(entityId, h.zones, h.periodS) : world.agentCheck(entityId, h.periodS);
        const alarmId = world.alarm(entityId, checkId, plan, h.criteria);
        const observations = observationsOf(h);
        await world.feed(entityId, checkId, observations);
        const report = await backtests.ofAlarm(TENANT, entityId, alarmId, { fromMs: T0_MS, toMs: T0_MS + (h.rounds.length + 1) * h.periodS * 1000 });
        expect(report.totals.observations).toBe(observations.length);
        expect(report.unreplayed).toEqual([]);
        expect(replayed(report.changes)).toEqual(live(world.changelog(alarmId)));
        // The verdict texts agree too: the changelog keeps none, the committed state keeps the last one.
        const last = report.changes.at(-1);
        if (last !== undefined) expect(last.status).toBe(world.runtime.states.get(TENANT, entityId, alarmId)?.status);
      }),
      { numRuns: 25 },
    );
  });
});
