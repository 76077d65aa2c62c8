// Tests the head's side of a stepped seal: freezing a window keeps its points counted; thawing merges it back under fresher writes.
import { describe, expect, it } from 'vitest';
import { Head } from '../../src/ingest/head.js';
import { batchOf } from '../storage/wal-fixtures.js';

const W = 2 * 60 * 60 * 1000;
const W0 = Math.floor(Date.UTC(2024, 0, 10, 12) / W) * W;
const NOW = W0 + 3 * W;

function samplesOf(head: Head, start: number, id: number): [number, number | string][] {
  const s = head.windows.get(start)?.series.get(id)?.samples();
  if (s === undefined) return [];
  const out: [number, number | string][] = Array.from(s.timestampsMs, (t, i) => [t, s.values[i] as number]);
  if (s.strings !== null) for (let i = 0; i < s.strings.length; i++) out.push([s.strings.timestampsMs[i] as number, s.strings.values[i] as string]);
  return out.sort((a, b) => a[0] - b[0]);
}

describe('Head.freeze, release and thaw', () => {
  it('freezes a window out of the head while its points stay counted until released', () => {
    const head = new Head();
    head.apply(batchOf([{ id: 1, t: W0, v: 1 }, { id: 2, t: W0 + 1, v: 2 }, { id: 1, t: W0 + W, v: 3 }]), 1, NOW);
    const frozen = head.freeze(W0)!;
    expect(head.starts()).toEqual([W0 + W]);
    expect(head.points).toBe(3);
    // A write after the freeze starts a fresh window of the same start.
    head.apply(batchOf([{ id: 1, t: W0 + 5, v: 9 }]), 2, NOW);
    expect(head.windows.get(W0)?.seqs).toEqual([2]);
    expect(head.points).toBe(4);
    head.release(frozen);
    expect(head.points).toBe(2);
  });

  it('thaws a frozen window back under the fresh one: fresh writes win, seqs stay ascending, counts add up', () => {
    const head = new Head();
    head.apply(batchOf([{ id: 1, t: W0, v: 1 }, { id: 1, t: W0 + 1, v: 1 }, { id: 2, t: W0, v: 5 }]), 1, NOW);
    const frozen = head.freeze(W0)!;
    head.apply(batchOf([{ id: 1, t: W0 + 1, v: 7 }, { id: 1, t: W0 + 2, v: 'up' }, { id: 3, t: W0, v: 8 }]), 2, NOW + 1);
    // The fresh buffer of series 1 is the one the head remembers as its last: later appends must still land.
    head.thaw(frozen);
    head.apply(batchOf([{ id: 1, t: W0 + 3, v: 4 }]), 3, NOW + 2);
    expect(head.points).toBe(7);
    const window = head.windows.get(W0)!;
    expect(window).toBe(frozen);
    expect(window.points).toBe(7);
    expect(window.seqs).toEqual([1, 2, 3]);
    expect(window.lastWriteMs).toBe(NOW + 2);
    expect(samplesOf(head, W0, 1)).toEqual([[W0, 1], [W0 + 1, 7], [W0 + 2, 'up'], [W0 + 3, 4]]);
    expect(samplesOf(head, W0, 2)).toEqual([[W0, 5]]);
    expect(samplesOf(head, W0, 3)).toEqual([[W0, 8]]);
  });

  it('thaws a frozen window straight back when nothing was written since', () => {
    const head = new Head();
    head.apply(batchOf([{ id: 1, t: W0, v: 1 }]), 1, NOW);
    const frozen = head.freeze(W0)!;
    head.thaw(frozen);
    expect(head.windows.get(W0)).toBe(frozen);
    expect(head.points).toBe(1);
  });
});
