// Tests the consensus rules one by one: runs, consistency levels, staleness, ignored verdicts, transitions and consensusParams.
import { describe, expect, it } from 'vitest';
import type { AlarmState } from '../../../src/monitoring/alarm-language/ast.js';
import {
  consensusParams,
  emptyMemory,
  requiredZones,
  stepAlarm,
  type AlarmMemory,
  type AlarmTransition,
  type ConsensusParams,
  type ZoneVerdict,
} from '../../../src/monitoring/alarms/alarm-consensus.js';
import { compileCriteria } from '../../../src/monitoring/alarms/criteria-eval.js';
import type { CheckDoc } from '../../../src/monitoring/check-rules.js';

const PERIOD_MS = 60_000;
const params = (over: Partial<ConsensusParams> = {}): ConsensusParams => ({ consecutiveCount: 1, consistencyLevel: 'QUORUM', zones: ['mzA', 'mzB', 'mzC'], periodMs: PERIOD_MS, ...over });
const v = (zoneId: string, timestampMs: number, state: AlarmState, status = `${state} from ${zoneId}`): ZoneVerdict => ({ zoneId, timestampMs, state, status });

/** Folds verdicts from `memory`; returns the final memory and every transition. */
function fold(verdicts: readonly ZoneVerdict[], p: ConsensusParams, memory: AlarmMemory = emptyMemory(null)): { memory: AlarmMemory; transitions: AlarmTransition[] } {
  const transitions: AlarmTransition[] = [];
  for (const verdict of verdicts) {
    const step = stepAlarm(memory, verdict, p);
    memory = step.memory;
    if (step.transition !== null) transitions.push(step.transition);
  }
  return { memory, transitions };
}

describe('requiredZones', () => {
  it('is 1 for ONE, floor(n/2)+1 for QUORUM and n for ALL', () => {
    expect([1, 2, 3, 4, 5].map((n) => requiredZones('QUORUM', n))).toEqual([1, 2, 2, 3, 3]);
    expect(requiredZones('ONE', 5)).toBe(1);
    expect(requiredZones('ALL', 4)).toBe(4);
    expect(requiredZones('ALL', 0)).toBe(1);
  });
});

describe('stepAlarm', () => {
  it('takes its first state from null with a transition whose previousState is null', () => {
    const { memory, transitions } = fold([v('mzA', 1, 'OK'), v('mzB', 2, 'OK')], params());
    expect(memory.state).toBe('OK');
    expect(transitions).toEqual([{ state: 'OK', previousState: null, status: 'OK from mzB', zoneId: 'mzB', timestampMs: 2 }]);
  });

  it('with consecutiveCount N (one zone) changes only at the Nth agreeing verdict', () => {
    const p = params({ consecutiveCount: 3, consistencyLevel: 'ONE', zones: ['mzA'] });
    const start = fold([v('mzA', 1, 'OK'), v('mzA', 2, 'OK'), v('mzA', 3, 'OK')], p).memory;
    const { transitions } = fold([v('mzA', 4, 'CRITICAL'), v('mzA', 5, 'CRITICAL'), v('mzA', 6, 'OK'), v('mzA', 7, 'CRITICAL'), v('mzA', 8, 'CRITICAL'), v('mzA', 9, 'CRITICAL')], p, start);
    expect(transitions).toEqual([{ state: 'CRITICAL', previousState: 'OK', status: 'CRITICAL from mzA', zoneId: 'mzA', timestampMs: 9 }]);
  });

  it('QUORUM needs a majority of the polling zones', () => {
    const start = fold([v('mzA', 1, 'OK'), v('mzB', 1, 'OK'), v('mzC', 1, 'OK')], params()).memory;
    const one = fold([v('mzA', 10, 'CRITICAL')], params(), start);
    expect(one.transitions).toEqual([]);
    const two = fold([v('mzB', 11, 'CRITICAL')], params(), one.memory);
    expect(two.transitions.map((t) => [t.previousState, t.state])).toEqual([['OK', 'CRITICAL']]);
  });

  it('ALL needs every polling zone; ONE any', () => {
    const all = params({ consistencyLevel: 'ALL' });
    const start = fold([v('mzA', 1, 'OK'), v('mzB', 1, 'OK'), v('mzC', 1, 'OK')], all).memory;
    expect(fold([v('mzA', 10, 'WARNING'), v('mzB', 10, 'WARNING')], all, start).transitions).toEqual([]);
    expect(fold([v('mzA', 10, 'WARNING'), v('mzB', 10, 'WARNING'), v('mzC', 10, 'WARNING')], all, start).transitions).toHaveLength(1);
    expect(fold([v('mzC', 10, 'WARNING')], params({ consistencyLevel: 'ONE' }), start).transitions.map((t) => t.state)).toEqual(['WARNING']);
  });

  it('the most severe qualifying state wins', () => {
    const one = params({ consistencyLevel: 'ONE' });
    const { memory } = fold([v('mzA', 1, 'WARNING'), v('mzB', 2, 'CRITICAL'), v('mzC', 3, 'OK')], one);
    expect(memory.state).toBe('CRITICAL');
    // mzB recovers: WARNING (mzA) is now the most severe, quoted from mzA, decided at the new verdict's time.
    const after = stepAlarm(memory, v('mzB', 4, 'OK'), one);
    expect(after.transition).toEqual({ state: 'WARNING', previousState: 'CRITICAL', status: 'WARNING from mzA', zoneId: 'mzA', timestampMs: 4 });
  });

  it('ignores verdicts older than 1.5 × consecutiveCount × period', () => {
    const p = params({ consecutiveCount: 2 }); // window 180 s
    const start = fold([v('mzA', 0, 'OK'), v('mzA', 1, 'OK'), v('mzB', 0, 'OK'), v('mzB', 1, 'OK')], p).memory;
    expect(start.state).toBe('OK');
    const stale = fold([v('mzA', 1_000, 'CRITICAL'), v('mzA', 2_000, 'CRITICAL'), v('mzB', 100_000, 'CRITICAL'), v('mzB', 400_000, 'CRITICAL')], p, start);
    // mzB confirms CRITICAL at 400 s, but mzA's last CRITICAL (2 s) is 398 s old: no quorum.
    expect(stale.transitions).toEqual([]);
    const fresh = fold([v('mzA', 1_000, 'CRITICAL'), v('mzA', 2_000, 'CRITICAL'), v('mzB', 100_000, 'CRITICAL'), v('mzB', 182_000, 'CRITICAL')], p, start);
    expect(fresh.transitions.map((t) => t.state)).toEqual(['CRITICAL']);
  });

  it('ignores verdicts from zones the check does not poll, and out-of-order verdicts', () => {
    const p = params({ consistencyLevel: 'ONE' });
    const start = fold([v('mzA', 10, 'OK')], p).memory;
    expect(stepAlarm(start, v('mzZ', 20, 'CRITICAL'), p)).toEqual({ memory: start, transition: null });
    expect(stepAlarm(start, v('mzA', 5, 'CRITICAL'), p)).toEqual({ memory: start, transition: null });
    expect(stepAlarm(start, v('mzA', 10, 'CRITICAL'), p)).toEqual({ memory: start, transition: null });
  });

  it('treats a check without zones as one pseudo-zone that takes every verdict', () => {
    const p = params({ zones: [], consecutiveCount: 2 });
    const { memory, transitions } = fold([v('agent', 1, 'WARNING'), v('other', 2, 'WARNING')], p);
    expect(transitions).toEqual([{ state: 'WARNING', previousState: null, status: 'WARNING from other', zoneId: 'other', timestampMs: 2 }]);
    expect(Object.keys(memory.zones)).toHaveLength(1);
  });

  it('keeps the persisted state it starts from and reports no transition while the state holds', () => {
    const { transitions } = fold([v('mzA', 1, 'CRITICAL'), v('mzB', 2, 'CRITICAL')], params(), emptyMemory('CRITICAL'));
    expect(transitions).toEqual([]);
  });

  it('forgets zones the check no longer polls', () => {
    const { memory } = fold([v('mzA', 1, 'OK'), v('mzB', 1, 'OK')], params());
    const next = stepAlarm(memory, v('mzA', 2, 'OK'), params({ zones: ['mzA'] }));
    expect(Object.keys(next.memory.zones)).toEqual(['mzA']);
  });
});

describe('consensusParams', () => {
  const check = (over: Partial<CheckDoc>): CheckDoc => ({
    label: null,
    type: 'remote.http',
    details: {},
    monitoring_zones_poll: ['mzA', 'mzB'],
    target_alias: null,
    target_hostname: 'example.com',
    target_resolver: null,
    period: 60,
    timeout: 30,
    disabled: false,
    metadata: null,
    ...over,
  });
  it('reads :set values, the zones and the period', () => {
    expect(consensusParams(compileCriteria(':set consecutiveCount=4 :set consistencyLevel=ALL return OK'), check({}))).toEqual({
      consecutiveCount: 4,
      consistencyLevel: 'ALL',
      zones: ['mzA', 'mzB'],
      periodMs: 60_000,
    });
  });
  it('defaults to consecutiveCount 1 (3 for remote.ping) and QUORUM; agent checks have no zones', () => {
    expect(consensusParams(compileCriteria(null), check({ period: 30 }))).toEqual({ consecutiveCount: 1, consistencyLevel: 'QUORUM', zones: ['mzA', 'mzB'], periodMs: 30_000 });
    expect(consensusParams(compileCriteria('return OK'), check({ type: 'remote.ping' })).consecutiveCount).toBe(3);
    expect(consensusParams(compileCriteria(null), check({ type: 'agent.cpu', monitoring_zones_poll: null })).zones).toEqual([]);
  });
  it('counts only the polling zones this process runs (--zones), so ALL and QUORUM can still be reached', () => {
    const params = consensusParams(compileCriteria(':set consistencyLevel=ALL return OK'), check({ monitoring_zones_poll: ['mzA', 'mzB', 'mzC'] }), ['mzB', 'mzZ']);
    expect(params.zones).toEqual(['mzB']);
    const first = stepAlarm(emptyMemory(null), { zoneId: 'mzB', timestampMs: 1_000, state: 'CRITICAL', status: 'down' }, params);
    expect(first.transition).toMatchObject({ state: 'CRITICAL', previousState: null, zoneId: 'mzB' });
  });
});
