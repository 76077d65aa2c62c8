// Properties of the alarm consensus: consecutiveCount N needs N agreeing observations, QUORUM a majority, ALL every zone; a pure fold of the history.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALARM_STATES, CONSISTENCY_LEVELS, type AlarmState } from '../../../src/monitoring/alarm-language/ast.js';
import {
  emptyMemory,
  requiredZones,
  stepAlarm,
  type AlarmMemory,
  type AlarmTransition,
  type ConsensusParams,
  type ZoneVerdict,
} from '../../../src/monitoring/alarms/alarm-consensus.js';

const PERIOD_MS = 60_000;
const ZONES = ['mzA', 'mzB', 'mzC', 'mzD', 'mzE'];
const SEVERITY: readonly AlarmState[] = ['CRITICAL', 'WARNING', 'OK'];
const state = fc.constantFrom(...ALARM_STATES);

interface Folded {
  memory: AlarmMemory;
  /** The alarm state after each verdict. */
  states: (AlarmState | null)[];
  transitions: (AlarmTransition | null)[];
}

function fold(verdicts: readonly ZoneVerdict[], params: ConsensusParams, memory: AlarmMemory = emptyMemory(null)): Folded {
  const states: (AlarmState | null)[] = [];
  const transitions: (AlarmTransition | null)[] = [];
  for (const verdict of verdicts) {
    const step = stepAlarm(memory, verdict, params);
    memory = step.memory;
    states.push(memory.state);
    transitions.push(step.transition);
  }
  return { memory, states, transitions };
}

/** Verdicts with strictly increasing timestamps, `gapMs` apart at most, from the first `zoneCount` zones. */
function increasing(zoneCount: number, gapMs: number, maxLength = 60): fc.Arbitrary<ZoneVerdict[]> {
  return fc
    .array(fc.tuple(fc.integer({ min: 0, max: zoneCount - 1 }), fc.integer({ min: 1, max: gapMs }), state), { maxLength })
    .map((steps) => {
      let t = 1_000_000;
      return steps.map(([zone, gap, s]) => {
        t += gap;
        return { zoneId: ZONES[zone] as string, timestampMs: t, state: s, status: `${s}@${t}` };
      });
    });
}

/** Any verdicts: unknown zones, repeated and backward timestamps, long gaps. */
const anyVerdicts = fc.array(
  fc.record({
    zoneId: fc.constantFrom(...ZONES, 'mzUnknown'),
    timestampMs: fc.integer({ min: 0, max: 20 * PERIOD_MS }),
    state,
    status: fc.constantFrom('a', 'b', 'c'),
  }),
  { maxLength: 60 },
);
const anyParams = fc.record({
  consecutiveCount: fc.integer({ min: 1, max: 5 }),
  consistencyLevel: fc.constantFrom(...CONSISTENCY_LEVELS),
  zones: fc.subarray(ZONES),
  periodMs: fc.constantFrom(PERIOD_MS, 30_000),
});

/** The state a majority-style rule picks from each zone's latest state, or the state before. */
function expectedFromLatest(latest: ReadonlyMap<string, AlarmState>, required: number, before: AlarmState | null): AlarmState | null {
  for (const s of SEVERITY) if ([...latest.values()].filter((x) => x === s).length >= required) return s;
  return before;
}

describe('consecutiveCount', () => {
  it('with one zone and ONE, the state becomes S exactly when the last N observations all say S', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), increasing(1, PERIOD_MS), (n, verdicts) => {
        const params: ConsensusParams = { consecutiveCount: n, consistencyLevel: 'ONE', zones: ['mzA'], periodMs: PERIOD_MS };
        const { states } = fold(verdicts, params);
        let expected: AlarmState | null = null;
        verdicts.forEach((verdict, i) => {
          const lastN = verdicts.slice(Math.max(0, i - n + 1), i + 1);
          if (lastN.length === n && lastN.every((x) => x.state === verdict.state)) expected = verdict.state;
          expect(states[i]).toBe(expected);
        });
      }),
      { numRuns: 400 },
    );
  });

  it('every change to S follows at least N agreeing observations from the zones that decide it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.constantFrom(...CONSISTENCY_LEVELS), increasing(3, PERIOD_MS), (n, level, verdicts) => {
        const params: ConsensusParams = { consecutiveCount: n, consistencyLevel: level, zones: ZONES.slice(0, 3), periodMs: PERIOD_MS };
        const { transitions } = fold(verdicts, params);
        transitions.forEach((transition, i) => {
          if (transition === null) return;
          const ofZone = verdicts.slice(0, i + 1).filter((x) => x.zoneId === transition.zoneId);
          expect(ofZone.length).toBeGreaterThanOrEqual(n);
          expect(ofZone.slice(-n).every((x) => x.state === transition.state)).toBe(true);
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('consistency levels (consecutiveCount 1, every verdict fresh)', () => {
  it.each(CONSISTENCY_LEVELS)('%s follows the most severe state held by enough zones, else keeps the state', (level) => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), (zoneCount) => {
        fc.assert(
          fc.property(increasing(zoneCount, 100), (verdicts) => {
            const zones = ZONES.slice(0, zoneCount);
            const params: ConsensusParams = { consecutiveCount: 1, consistencyLevel: level, zones, periodMs: PERIOD_MS };
            const { states, transitions } = fold(verdicts, params);
            const latest = new Map<string, AlarmState>();
            let expected: AlarmState | null = null;
            verdicts.forEach((verdict, i) => {
              latest.set(verdict.zoneId, verdict.state);
              expected = expectedFromLatest(latest, requiredZones(level, zoneCount), expected);
              expect(states[i]).toBe(expected);
              const transition = transitions[i];
              // A change needs the level's number of zones agreeing: a majority for QUORUM, all for ALL.
              if (transition != null) expect([...latest.values()].filter((s) => s === transition.state).length).toBeGreaterThanOrEqual(requiredZones(level, zoneCount));
            });
          }),
          { numRuns: 40 },
        );
      }),
      { numRuns: 10 },
    );
  });
});

describe('purity', () => {
  it('folding the same history twice gives identical memories and transitions', () => {
    fc.assert(
      fc.property(anyParams, anyVerdicts, (params, verdicts) => {
        expect(fold(verdicts, params)).toEqual(fold(verdicts, params));
      }),
      { numRuns: 300 },
    );
  });

  it('the result does not depend on how the history is split into calls (memory persisted as JSON between them)', () => {
    fc.assert(
      fc.property(anyParams, anyVerdicts, fc.array(fc.nat(), { maxLength: 5 }), (params, verdicts, cuts) => {
        const whole = fold(verdicts, params);
        const points = [...new Set(cuts.map((c) => c % (verdicts.length + 1)))].sort((a, b) => a - b);
        let memory = emptyMemory(null);
        const transitions: (AlarmTransition | null)[] = [];
        let from = 0;
        for (const to of [...points, verdicts.length]) {
          const part = fold(verdicts.slice(from, to), params, JSON.parse(JSON.stringify(memory)) as AlarmMemory);
          memory = part.memory;
          transitions.push(...part.transitions);
          from = to;
        }
        expect(memory).toEqual(whole.memory);
        expect(transitions).toEqual(whole.transitions);
      }),
      { numRuns: 300 },
    );
  });

  it('never repeats the current state: each transition changes the state, and transitions chain', () => {
    fc.assert(
      fc.property(anyParams, fc.option(state, { nil: null }), anyVerdicts, (params, start, verdicts) => {
        const { transitions, states } = fold(verdicts, params, emptyMemory(start));
        let current: AlarmState | null = start;
        transitions.forEach((transition, i) => {
          if (transition === null) {
            expect(states[i]).toBe(current);
            return;
          }
          expect(transition.previousState).toBe(current);
          expect(transition.state).not.toBe(current);
          current = transition.state;
          expect(states[i]).toBe(current);
        });
      }),
      { numRuns: 400 },
    );
  });

  it('verdicts from zones the check does not poll, or not newer than their zone, change nothing', () => {
    fc.assert(
      fc.property(anyParams, anyVerdicts, (params, verdicts) => {
        fc.pre(params.zones.length > 0);
        let memory = emptyMemory(null);
        for (const verdict of verdicts) {
          const last = memory.zones[verdict.zoneId];
          const step = stepAlarm(memory, verdict, params);
          if (!params.zones.includes(verdict.zoneId) || (last !== undefined && verdict.timestampMs <= last.timestampMs)) {
            expect(step).toEqual({ memory, transition: null });
          }
          memory = step.memory;
        }
      }),
      { numRuns: 300 },
    );
  });
});
