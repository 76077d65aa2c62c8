// Properties of the monitoring pages' formatting and choices: refresh interval, durations, addresses, check metrics per zone chart, and the cap on charts per page.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addressSummary,
  ADDRESSES_SHOWN_MAX,
  capCharts,
  chartsOfCheck,
  chartZones,
  formatSeconds,
  REFRESH_MS_DEFAULT,
  REFRESH_MS_MAX,
  REFRESH_MS_MIN,
  refreshIntervalMs,
  shortMetricName,
  type CheckMetricInfo,
} from '../../src/console/monitoring-format.js';

describe('refreshIntervalMs', () => {
  it('defaults to 5000 ms, never goes below 1000 ms or above the maximum, and keeps values in between', () => {
    expect(refreshIntervalMs(null)).toBe(REFRESH_MS_DEFAULT);
    expect(refreshIntervalMs('')).toBe(REFRESH_MS_DEFAULT);
    expect(refreshIntervalMs('soon')).toBe(REFRESH_MS_DEFAULT);
    expect(refreshIntervalMs('10')).toBe(REFRESH_MS_MIN);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.integer({ min: -1e9, max: 1e9 }).map(String), fc.double().map(String)), (param) => {
        const ms = refreshIntervalMs(param);
        expect(Number.isInteger(ms)).toBe(true);
        expect(ms).toBeGreaterThanOrEqual(REFRESH_MS_MIN);
        expect(ms).toBeLessThanOrEqual(REFRESH_MS_MAX);
        const asked = Number(param);
        if (param.trim() !== '' && Number.isFinite(asked) && asked >= REFRESH_MS_MIN && asked <= REFRESH_MS_MAX) expect(ms).toBe(Math.round(asked));
      }),
    );
  });
});

describe('formatSeconds', () => {
  it('reads back the seconds it was given', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000 }), (seconds) => {
        const text = formatSeconds(seconds);
        const parts = [...text.matchAll(/(\d+) (h|min|s)/g)].map((m) => Number(m[1]) * (m[2] === 'h' ? 3600 : m[2] === 'min' ? 60 : 1));
        const total = parts.reduce((a, b) => a + b, 0);
        // Hours are shown to the minute.
        expect(Math.abs(total - seconds)).toBeLessThanOrEqual(seconds >= 3600 ? 30 : 0);
      }),
    );
    expect(formatSeconds(60)).toBe('1 min');
    expect(formatSeconds(90)).toBe('1 min 30 s');
    expect(formatSeconds(-1)).toBe('—');
  });

});

describe('addressSummary', () => {
  it('lists at most the bound and counts the rest', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.ipV4()), (addresses) => {
        const text = addressSummary(addresses);
        const count = Object.keys(addresses).length;
        if (count === 0) expect(text).toBe('—');
        for (const [name, address] of Object.entries(addresses).slice(0, ADDRESSES_SHOWN_MAX)) expect(text).toContain(`${name} ${address}`);
        if (count > ADDRESSES_SHOWN_MAX) expect(text.endsWith(`+${count - ADDRESSES_SHOWN_MAX} more`)).toBe(true);
      }),
    );
  });
});

describe('chartsOfCheck', () => {
  const zoneArb = fc.constantFrom('mzdfw', 'mzord', 'mzlon');
  const metricArb: fc.Arbitrary<CheckMetricInfo> = fc.record({
    name: fc.tuple(fc.option(zoneArb, { nil: undefined }), fc.stringMatching(/^[a-z_]{1,8}$/)).map(([zone, name]) => (zone === undefined ? name : `${zone}.${name}`)),
    unit: fc.constantFrom('ms', 'bytes', 'unknown'),
    type: fc.constantFrom('n', 'l', 'i', 's'),
  });

  it('gives remote checks one chart per zone with that zone’s numeric metrics, and other checks one chart', () => {
    fc.assert(
      fc.property(fc.uniqueArray(metricArb, { selector: (m) => m.name, maxLength: 30 }), fc.option(fc.uniqueArray(zoneArb, { maxLength: 3 }), { nil: null }), fc.integer({ min: 1, max: 8 }), (metrics, zones, perChart) => {
        const charts = chartsOfCheck(metrics, zones, perChart);
        const numeric = metrics.filter((m) => m.type !== 's');
        if (zones === null || zones.length === 0) {
          expect(charts.map((c) => c.zoneId)).toEqual([null]);
        } else {
          expect(charts.map((c) => c.zoneId)).toEqual(zones);
        }
        for (const chart of charts) {
          const mine = chart.zoneId === null ? numeric : numeric.filter((m) => m.name.startsWith(`${chart.zoneId}.`));
          expect(chart.metrics.length).toBe(Math.min(perChart, mine.length));
          expect(chart.omitted).toBe(mine.length - chart.metrics.length);
          for (const metric of chart.metrics) expect(mine).toContainEqual(metric);
          const names = chart.metrics.map((m) => m.name);
          expect(names).toEqual([...names].sort());
        }
      }),
    );
  });

  it('shortens a zone metric’s name for its chart', () => {
    expect(shortMetricName('mzdfw.duration', 'mzdfw')).toBe('duration');
    expect(shortMetricName('duration', null)).toBe('duration');
    expect(shortMetricName('mzord.duration', 'mzdfw')).toBe('mzord.duration');
  });
});

describe('capCharts', () => {
  const zonesArb = fc.option(fc.array(fc.constantFrom('mzdfw', 'mzord', 'mzlon', 'mzsyd'), { maxLength: 5 }), { nil: null });
  const checksArb = fc.array(fc.record({ id: fc.string({ maxLength: 4 }), monitoring_zones_poll: zonesArb }), { maxLength: 40 });

  it('keeps the checks’ charts in order up to the bound, a check’s first zones when it fits in part, and counts the rest', () => {
    fc.assert(
      fc.property(checksArb, fc.integer({ min: 0, max: 30 }), (checks, chartsMax) => {
        const { plotted, omitted } = capCharts(checks, chartsMax);
        const all = checks.flatMap((check) => chartZones(check.monitoring_zones_poll).map((zone) => [check, zone] as const));
        const kept = plotted.flatMap((one) => one.zones.map((zone) => [one.check, zone] as const));
        expect(kept).toEqual(all.slice(0, chartsMax));
        expect(omitted).toBe(all.length - kept.length);
        for (const one of plotted) expect(one.zones.length).toBeGreaterThan(0);
      }),
    );
  });

  it('gives an agent check one chart and a remote check one per distinct zone', () => {
    expect(chartZones(null)).toEqual([null]);
    expect(chartZones([])).toEqual([null]);
    expect(chartZones(['mzdfw', 'mzord', 'mzdfw'])).toEqual(['mzdfw', 'mzord']);
    const checks = [{ id: 'a', monitoring_zones_poll: ['mzdfw', 'mzord'] }, { id: 'b', monitoring_zones_poll: null }, { id: 'c', monitoring_zones_poll: ['mzlon'] }];
    const { plotted, omitted } = capCharts(checks, 2);
    expect(plotted.map((one) => [one.check.id, one.zones])).toEqual([['a', ['mzdfw', 'mzord']]]);
    expect(omitted).toBe(2);
  });
});
