// Properties of slot phases: the due time sits on the phase, within a period, stable for a key, and 10,000 checks spread over the period.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dueAtOrAfter, hash32, slotKey, slotPhaseMs } from '../../../src/monitoring/runner/slot-phase.js';

const periods = fc.integer({ min: 30, max: 1800 }).map((s) => s * 1000);
const times = fc.integer({ min: 0, max: 4_000_000_000_000 });

describe('slot phases', () => {
  it('puts the due time at or after now, less than a period on, on the phase', () => {
    fc.assert(
      fc.property(times, periods, fc.nat(), (nowMs, periodMs, seed) => {
        const phaseMs = seed % periodMs;
        const due = dueAtOrAfter(nowMs, periodMs, phaseMs);
        expect(due).toBeGreaterThanOrEqual(nowMs);
        expect(due - nowMs).toBeLessThan(periodMs);
        expect(((due % periodMs) + periodMs) % periodMs).toBe(phaseMs);
      }),
    );
  });

  it('gives a key the same phase every time (a restart keeps phases), inside the period', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), fc.string(), periods, (t, e, c, z, periodMs) => {
        const key = slotKey(t, e, c, z);
        const phase = slotPhaseMs(key, periodMs);
        expect(phase).toBe(slotPhaseMs(key, periodMs));
        expect(phase).toBeGreaterThanOrEqual(0);
        expect(phase).toBeLessThan(periodMs);
        expect(hash32(key)).toBe(hash32(`${t}/${e}/${c}/${z}`));
      }),
    );
  });

  it('spreads 10,000 checks x 3 zones over a 30 s period: no second holds more than twice its share', () => {
    const periodMs = 30_000;
    const perSecond = new Array<number>(30).fill(0);
    for (let c = 0; c < 10_000; c++) {
      for (const zone of ['mzdfw', 'mziad', 'mzord']) {
        const phase = slotPhaseMs(slotKey('t1', `en${c % 100}`, `ch${c}`, zone), periodMs);
        perSecond[Math.floor(phase / 1000)] = (perSecond[Math.floor(phase / 1000)] ?? 0) + 1;
      }
    }
    const share = 30_000 / 30;
    expect(Math.max(...perSecond)).toBeLessThan(2 * share);
    expect(Math.min(...perSecond)).toBeGreaterThan(share / 2);
  });
});
