// Tests of the stored-observation reader over a real engine: results rebuilt as the sink stored them (a remote run point only where metrics do not say it), two results at one ms, runs stored before run points, slices, the series and observation bounds, and the replay's steps between turns of the event loop.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileCriteria } from '../../../src/monitoring/alarms/criteria-eval.js';
import { consensusParams } from '../../../src/monitoring/alarms/alarm-consensus.js';
import { AlarmReplay, replayInSteps } from '../../../src/monitoring/backtest/backtest-replay.js';
import { listSeries, sliceMsFor, storedObservations, type ObservationSource } from '../../../src/monitoring/backtest/stored-observations.js';
import type { CheckResult } from '../../../src/monitoring/check-result.js';
import { BACKTEST_SERIES_MAX, BACKTEST_SLICE_MS, BACKTEST_SLICE_POINTS_MAX } from '../../../src/monitoring/monitoring-limits.js';
import { BacktestWorld, T0_MS, TENANT } from './backtest-world.js';

let world: BacktestWorld;
beforeEach(async () => {
  world = await BacktestWorld.open();
});
afterEach(async () => {
  await world.close();
});

function source(entityId: string, checkId: string, zones: readonly string[] | null, periodMs = 60_000): ObservationSource {
  return { engine: world.engine, tenant: TENANT, entityId, checkId, zones, types: world.monitoring.store.changelogs.metricTypes(TENANT, entityId, checkId), periodMs };
}

async function readAll(src: ObservationSource, fromMs: number, toMs: number, max = 1_000): Promise<CheckResult[][]> {
  const slices: CheckResult[][] = [];
  for await (const slice of storedObservations(src, await listSeries(src), fromMs, toMs, max)) slices.push(slice);
  return slices;
}

const up = (zone: string, t: number, code: string, duration: number): CheckResult => ({
  monitoringZoneId: zone,
  timestampMs: t,
  available: true,
  status: `code=${code}`,
  metrics: { code: { type: 's', data: code, unit: 'unknown' }, duration: { type: 'I', data: duration, unit: 'milliseconds' } },
});

describe('storedObservations', () => {
  it('rebuilds what the sink stored, per zone, in (timestamp, zone) order: metrics with their declared types and units, availability and the failure status', async () => {
    const entityId = world.entity();
    const checkId = world.remoteCheck(entityId, ['mzdfw', 'mzord']);
    const down: CheckResult = { monitoringZoneId: 'mzord', timestampMs: T0_MS, available: false, status: 'connection refused', metrics: {} };
    await world.feed(entityId, checkId, [up('mzdfw', T0_MS, '200', 12), down, up('mzdfw', T0_MS + 60_000, '503', 40), up('mzord', T0_MS + 60_000, '200', 8)]);
    // A zone the check no longer polls is not read.
    await world.engine.write([{ tenant: TENANT, metric: `${entityId}.${checkId}.mziad.code`, timestamp: T0_MS, value: '200' }]);
    const slices = await readAll(source(entityId, checkId, ['mzdfw', 'mzord']), T0_MS, T0_MS + 3_600_000);
    expect(slices.flat()).toEqual([
      { monitoringZoneId: 'mzdfw', timestampMs: T0_MS, available: true, status: '', metrics: up('mzdfw', T0_MS, '200', 12).metrics },
      { monitoringZoneId: 'mzord', timestampMs: T0_MS, available: false, status: 'connection refused', metrics: {} },
      { monitoringZoneId: 'mzdfw', timestampMs: T0_MS + 60_000, available: true, status: '', metrics: up('mzdfw', 0, '503', 40).metrics },
      { monitoringZoneId: 'mzord', timestampMs: T0_MS + 60_000, available: true, status: '', metrics: up('mzord', 0, '200', 8).metrics },
    ]);
  });

  it('groups by (timestamp, zone) over metric and run points: metrics without a run point are available, a down point is unavailable beside its metrics, an up point stands alone', async () => {
    const entityId = world.entity();
    const checkId = world.remoteCheck(entityId, ['mzdfw', 'mzord']);
    const bare = (zone: string, t: number, available: boolean, status: string): CheckResult => ({ monitoringZoneId: zone, timestampMs: t, available, status, metrics: {} });
    const tcpDown: CheckResult = { monitoringZoneId: 'mzord', timestampMs: T0_MS, available: false, status: 'connection refused', metrics: { duration: { type: 'I', data: 3, unit: 'milliseconds' } } };
    // Older points written without a run point (as before run points existed).
    await world.engine.write([{ tenant: TENANT, metric: `${entityId}.${checkId}.mzdfw.code`, timestamp: T0_MS - 60_000, value: '200' }]);
    await world.feed(entityId, checkId, [up('mzdfw', T0_MS, '200', 12), tcpDown, bare('mzdfw', T0_MS + 60_000, true, 'ok'), bare('mzdfw', T0_MS + 120_000, false, 'timeout')]);
    const runs = await world.engine.query({ tenant: TENANT, metric: `${entityId}.${checkId}.mzdfw.@run`, from: T0_MS - 120_000, to: T0_MS + 180_000, resolution: 'FULL' });
    expect(runs.values.map((v) => [v.timestamp, v.value])).toEqual([
      [T0_MS + 60_000, 'up'],
      [T0_MS + 120_000, 'down:timeout'],
    ]);
    const results = (await readAll(source(entityId, checkId, ['mzdfw', 'mzord']), T0_MS - 120_000, T0_MS + 180_000)).flat();
    expect(results).toEqual([
      { monitoringZoneId: 'mzdfw', timestampMs: T0_MS - 60_000, available: true, status: '', metrics: { code: { type: 's', data: '200', unit: 'unknown' } } },
      { monitoringZoneId: 'mzdfw', timestampMs: T0_MS, available: true, status: '', metrics: up('mzdfw', T0_MS, '200', 12).metrics },
      { monitoringZoneId: 'mzord', timestampMs: T0_MS, available: false, status: 'connection refused', metrics: tcpDown.metrics },
      { monitoringZoneId: 'mzdfw', timestampMs: T0_MS + 60_000, available: true, status: '', metrics: {} },
      { monitoringZoneId: 'mzdfw', timestampMs: T0_MS + 120_000, available: false, status: 'timeout', metrics: {} },
    ]);
  });

  it('reads two results of one zone at the same ms as one: each metric and the availability from the later result that has them (the engine keeps the later write of each series)', async () => {
    const entityId = world.entity();
    const checkId = world.remoteCheck(entityId, ['mzdfw']);
    const down = (t: number, metrics: CheckResult['metrics']): CheckResult => ({ monitoringZoneId: 'mzdfw', timestampMs: t, available: false, status: 'refused', metrics });
    const bytes = { bytes: { type: 'I', data: 9, unit: 'bytes' } } as const;
    await world.feed(entityId, checkId, [
      // Down then up with metrics: available, the down run's metric kept where the later one has none.
      down(T0_MS, bytes),
      up('mzdfw', T0_MS, '200', 5),
      // Up with metrics then down without: unavailable, the earlier metrics kept.
      up('mzdfw', T0_MS + 60_000, '200', 6),
      down(T0_MS + 60_000, {}),
      // Up without metrics then up with: available.
      { monitoringZoneId: 'mzdfw', timestampMs: T0_MS + 120_000, available: true, status: 'ok', metrics: {} },
      up('mzdfw', T0_MS + 120_000, '503', 7),
    ]);
    const results = (await readAll(source(entityId, checkId, ['mzdfw']), T0_MS, T0_MS + 180_000)).flat();
    expect(results).toEqual([
      { monitoringZoneId: 'mzdfw', timestampMs: T0_MS, available: true, status: '', metrics: { ...bytes, ...up('mzdfw', 0, '200', 5).metrics } },
      { monitoringZoneId: 'mzdfw', timestampMs: T0_MS + 60_000, available: false, status: 'refused', metrics: up('mzdfw', 0, '200', 6).metrics },
      { monitoringZoneId: 'mzdfw', timestampMs: T0_MS + 120_000, available: true, status: '', metrics: up('mzdfw', 0, '503', 7).metrics },
    ]);
  });

  it("reads an agent check's bare series, the zone from its run point; runs stored before run points count as available", async () => {
    const entityId = world.entity();
    const checkId = world.agentCheck(entityId);
    const load = (zone: string, t: number, value: number, available = true): CheckResult => ({ monitoringZoneId: zone, timestampMs: t, available, status: available ? 'ok' : 'agent says no', metrics: { '1m': { type: 'n', data: value, unit: 'unknown' } } });
    // Older points written without a run point (as before run points existed).
    await world.engine.write([{ tenant: TENANT, metric: `${entityId}.${checkId}.1m`, timestamp: T0_MS - 60_000, value: 0.25 }]);
    await world.feed(entityId, checkId, [load('mzdfw', T0_MS, 0.5), load('mzord', T0_MS + 60_000, 0.75, false)]);
    const results = (await readAll(source(entityId, checkId, null), T0_MS - 120_000, T0_MS + 120_000)).flat();
    expect(results.map((r) => [r.timestampMs, r.monitoringZoneId, r.available, r.status, r.metrics['1m']?.data])).toEqual([
      [T0_MS - 60_000, '', true, '', 0.25],
      [T0_MS, 'mzdfw', true, '', 0.5],
      [T0_MS + 60_000, 'mzord', false, 'agent says no', 0.75],
    ]);
  });

  it('reads in slices of at most BACKTEST_SLICE_MS, shorter for many series; each slice in order and the whole in order', async () => {
    const entityId = world.entity();
    const checkId = world.remoteCheck(entityId, ['mzdfw']);
    expect(sliceMsFor(source(entityId, checkId, ['mzdfw']), 3, T0_MS)).toBe(BACKTEST_SLICE_MS);
    expect(sliceMsFor(source(entityId, checkId, ['mzdfw']), 2_000, T0_MS)).toBeLessThan(BACKTEST_SLICE_MS);
    expect(world.engine.plan({ tenant: TENANT, metric: 'x', from: T0_MS, to: T0_MS + BACKTEST_SLICE_MS, resolution: 'FULL' }).overLimit).toBe(false);
    // A period of 60 ms makes three series fill BACKTEST_SLICE_POINTS_MAX in 4,000,000 ms (about 67 min).
    const src = source(entityId, checkId, ['mzdfw'], 60);
    expect(sliceMsFor(src, 3, T0_MS)).toBe((BACKTEST_SLICE_POINTS_MAX * 60) / 3);
    // Three series: code, duration and bytes (available runs with metrics write no run point).
    const results = Array.from({ length: 18 }, (_, i): CheckResult => {
      const run = up('mzdfw', T0_MS + i * 3_600_000, i % 2 === 0 ? '200' : '500', i);
      return { ...run, metrics: { ...run.metrics, bytes: { type: 'I', data: i, unit: 'bytes' } } };
    });
    await world.feed(entityId, checkId, results);
    expect(await listSeries(src)).toHaveLength(3);
    const slices = await readAll(src, T0_MS, T0_MS + 18 * 3_600_000);
    expect(slices.length).toBeGreaterThanOrEqual(15);
    expect(slices.flat().map((r) => [r.timestampMs, r.metrics['duration']?.data])).toEqual(results.map((r) => [r.timestampMs, r.metrics['duration']?.data]));
  });

  it('refuses more than BACKTEST_SERIES_MAX series and more observations than asked with MONITORING_BACKTEST_TOO_LARGE', async () => {
    const entityId = world.entity();
    const checkId = world.agentCheck(entityId);
    const many = Array.from({ length: BACKTEST_SERIES_MAX + 1 }, (_, i) => ({ tenant: TENANT, metric: `${entityId}.${checkId}.m${i}`, timestamp: T0_MS, value: i }));
    expect((await world.engine.write(many)).accepted).toBe(many.length);
    await expect(listSeries(source(entityId, checkId, null))).rejects.toMatchObject({ code: 'MONITORING_BACKTEST_TOO_LARGE', details: { bound: 'series', limit: BACKTEST_SERIES_MAX } });

    const other = world.remoteCheck(entityId, ['mzdfw']);
    await world.feed(entityId, other, Array.from({ length: 5 }, (_, i) => up('mzdfw', T0_MS + i * 60_000, '200', i)));
    const src = source(entityId, other, ['mzdfw']);
    await expect(readAll(src, T0_MS, T0_MS + 3_600_000, 4)).rejects.toMatchObject({ code: 'MONITORING_BACKTEST_TOO_LARGE', details: { bound: 'observations', limit: 4 } });
    expect((await readAll(src, T0_MS, T0_MS + 3_600_000, 5)).flat()).toHaveLength(5);
  });
});

describe('replayInSteps', () => {
  it('evaluates at most a step of observations between two turns of the event loop', async () => {
    const entityId = world.entity();
    const checkId = world.remoteCheck(entityId, ['mzdfw']);
    const check = world.monitoring.entities.check(TENANT, entityId, checkId);
    const compiled = compileCriteria("if (metric['code'] != '200') { return new AlarmStatus(CRITICAL); } return new AlarmStatus(OK);");
    const replay = new AlarmReplay(compiled, consensusParams(compiled, check.doc), true);
    const results = Array.from({ length: 2_000 }, (_, i) => up('mzdfw', T0_MS + i * 60_000, i % 100 < 50 ? '200' : '500', i));
    async function* slices() {
      yield results.slice(0, 1_500);
      yield results.slice(1_500);
    }
    // Another task counts the observations folded each time it gets a turn.
    const seen: number[] = [];
    let done = false;
    const ticker = (async () => {
      while (!done) {
        seen.push(replay.observations());
        await nextTurn();
      }
    })();
    const changes: number[] = [];
    await replayInSteps(replay, slices(), (transition) => changes.push(transition.timestampMs), 500);
    done = true;
    await ticker;
    expect(replay.observations()).toBe(2_000);
    expect(changes).toHaveLength(40);
    const gaps = seen.slice(1).map((n, i) => n - (seen[i] as number));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(500);
    expect(seen.filter((n) => n > 0 && n < 2_000).length).toBeGreaterThanOrEqual(3);
  });
});
