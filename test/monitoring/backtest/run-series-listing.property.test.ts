// Property of operation 5 with run series stored: walking its pages lists every metric of the check exactly once, in order, and never a run series, whatever the page size.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMetricSeries, isRunMetricName, listCheckMetrics } from '../../../src/monitoring/check-metrics.js';
import { BacktestWorld, NOW_MS, TENANT } from './backtest-world.js';

const metricName = fc.oneof(
  fc.constantFrom('@run', 'mzdfw.@run', 'mziad.@run', 'mzord.@run', 'mzdfw.code', 'mzdfw.duration', 'mziad.code', 'mzord.bytes', 'cpu0.@run', '@runs', 'a', 'z'),
  fc.stringMatching(/^[a-z@.]{1,8}$/),
);

describe('operation 5 with run series', () => {
  let world: BacktestWorld;
  beforeAll(async () => {
    world = await BacktestWorld.open();
  });
  afterAll(async () => {
    await world.close();
  });

  it('pages over every metric but the run series, each once, in name order', async () => {
    const entityId = world.entity();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(metricName, { maxLength: 30 }), fc.integer({ min: 1, max: 7 }), async (names, limit) => {
        const checkId = `chP${++n}`;
        if (names.length > 0) await world.engine.write(names.map((name) => ({ tenant: TENANT, metric: checkMetricSeries(entityId, checkId, name), timestamp: NOW_MS - 60_000, value: 1 })));
        const listed: string[] = [];
        let marker: string | undefined;
        for (let pages = 0; pages <= names.length + 1; pages++) {
          const page = await listCheckMetrics(world.engine, world.monitoring.store.changelogs, { tenant: TENANT, entityId, checkId, nowMs: NOW_MS }, marker === undefined ? { limit } : { limit, marker });
          expect(page.values.length).toBeLessThanOrEqual(limit);
          listed.push(...page.values.map((metric) => metric.name));
          if (page.nextMarker === null) break;
          expect(page.values).toHaveLength(limit);
          marker = page.nextMarker;
        }
        expect(listed).toEqual(names.filter((name) => !isRunMetricName(name)).sort());
      }),
      { numRuns: 60 },
    );
  });
});
