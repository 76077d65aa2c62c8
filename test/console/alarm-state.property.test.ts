// Properties of the console's alarm states: a total order with CRITICAL worst, worst-of as a maximum, parsing, classes, and each alarm's current state from latest-state rows.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONSOLE_ALARM_STATES,
  currentStates,
  parseAlarmState,
  stateClass,
  stateLabel,
  stateSeverity,
  worstState,
  type ConsoleAlarmState,
  type LatestStateRow,
} from '../../src/console/alarm-state.js';

const state = fc.constantFrom(...CONSOLE_ALARM_STATES);
const alarmId = fc.constantFrom('alA', 'alB', 'alC', 'alD');
const zone = fc.option(fc.constantFrom('mzdfw', 'mzord', 'mzlon'), { nil: null });
const row: fc.Arbitrary<LatestStateRow> = fc.record({
  alarm_id: alarmId,
  state: fc.oneof(state, fc.constantFrom('ok', 'critical', 'bogus', ''), fc.constant(null)),
  status: fc.string({ maxLength: 20 }),
  timestamp: fc.integer({ min: 0, max: 1_000_000 }),
  analyzed_by_monitoring_zone_id: zone,
});

describe('alarm state order', () => {
  it('ranks UNKNOWN < OK < WARNING < CRITICAL', () => {
    expect(CONSOLE_ALARM_STATES.map(stateSeverity)).toEqual([0, 1, 2, 3]);
    expect(worstState(['OK', 'CRITICAL', 'WARNING'])).toBe('CRITICAL');
    expect(worstState(['OK', 'UNKNOWN'])).toBe('OK');
    expect(worstState([])).toBe('UNKNOWN');
  });

  it('worst-of is the maximum: a member, no member is worse, and order does not matter', () => {
    fc.assert(
      fc.property(fc.array(state, { minLength: 1, maxLength: 20 }), (states) => {
        const worst = worstState(states);
        expect(states).toContain(worst);
        for (const one of states) expect(stateSeverity(one)).toBeLessThanOrEqual(stateSeverity(worst));
        expect(worstState([...states].reverse())).toBe(worst);
      }),
    );
  });

  it('worst-of is associative: the worst of two groups is the worst of their worsts', () => {
    fc.assert(
      fc.property(fc.array(state), fc.array(state), (a, b) => {
        expect(worstState([...a, ...b])).toBe(worstState([worstState(a), worstState(b)]));
      }),
    );
  });

  it('a CRITICAL anywhere makes the worst CRITICAL', () => {
    fc.assert(
      fc.property(fc.array(state), fc.nat(), (states, at) => {
        const withCritical = [...states];
        withCritical.splice(at % (states.length + 1), 0, 'CRITICAL');
        expect(worstState(withCritical)).toBe('CRITICAL');
      }),
    );
  });
});

describe('parseAlarmState', () => {
  it('keeps known names in any case and makes anything else UNKNOWN', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), state, state.map((s) => s.toLowerCase()), fc.constant(null), fc.integer()), (value) => {
        const parsed = parseAlarmState(value);
        expect(CONSOLE_ALARM_STATES).toContain(parsed);
        const known = typeof value === 'string' && (CONSOLE_ALARM_STATES as readonly string[]).includes(value.toUpperCase());
        expect(parsed).toBe(known ? (value as string).toUpperCase() : 'UNKNOWN');
      }),
    );
  });
});

describe('stateClass and stateLabel', () => {
  it('give each state its own class and a label that names it', () => {
    const classes = CONSOLE_ALARM_STATES.map(stateClass);
    expect(new Set(classes).size).toBe(CONSOLE_ALARM_STATES.length);
    for (const one of CONSOLE_ALARM_STATES) {
      expect(stateClass(one)).toMatch(/^alarm-state-[a-z]+$/);
      expect(stateLabel(one).startsWith(one)).toBe(true);
    }
  });
});

describe('currentStates', () => {
  it('has exactly the asked alarms; each is the worst of its zones, newest row per zone; UNKNOWN without rows', () => {
    fc.assert(
      fc.property(fc.uniqueArray(alarmId), fc.array(row, { maxLength: 30 }), (ids, rows) => {
        const result = currentStates(ids, rows);
        expect([...result.keys()].sort()).toEqual([...ids].sort());
        for (const id of ids) {
          const current = result.get(id);
          const mine = rows.filter((r) => r.alarm_id === id);
          const zones = new Set(mine.map((r) => r.analyzed_by_monitoring_zone_id ?? null));
          expect(current?.zones.length).toBe(zones.size);
          const expected: ConsoleAlarmState[] = [];
          for (const z of zones) {
            const newest = Math.max(...mine.filter((r) => (r.analyzed_by_monitoring_zone_id ?? null) === z).map((r) => r.timestamp));
            const shown = current?.zones.find((entry) => entry.zoneId === z);
            expect(shown?.timestampMs).toBe(newest);
            expected.push(shown?.state as ConsoleAlarmState);
          }
          expect(current?.state).toBe(mine.length === 0 ? 'UNKNOWN' : worstState(expected));
          const times = current?.zones.map((entry) => entry.timestampMs) ?? [];
          expect(times).toEqual([...times].sort((a, b) => b - a));
        }
      }),
    );
  });

  it('shows a zone that is CRITICAL while another is OK as CRITICAL, with both zones in the detail', () => {
    const result = currentStates(
      ['al1'],
      [
        { alarm_id: 'al1', state: 'OK', status: 'fine', timestamp: 10, analyzed_by_monitoring_zone_id: 'mzdfw' },
        { alarm_id: 'al1', state: 'CRITICAL', status: 'down', timestamp: 9, analyzed_by_monitoring_zone_id: 'mzord' },
      ],
    );
    expect(result.get('al1')?.state).toBe('CRITICAL');
    expect(result.get('al1')?.zones.map((z) => `${z.zoneId}:${z.state}:${z.status}`)).toEqual(['mzdfw:OK:fine', 'mzord:CRITICAL:down']);
  });
});
