// Owns the unit tests of the head: grouping by 2-hour window, windows per record, sealed skipping, take(), capacity hints.
import { describe, expect, it } from 'vitest';
import { Head } from '../../src/ingest/head.js';
import { LAYOUT } from '../../src/model/resolution.js';
import { batchOf, type TestPoint } from '../storage/wal-fixtures.js';

const W = 2 * 60 * 60 * 1000;
/** Start of a 2-hour window. */
const W0 = Math.floor(Date.UTC(2024, 0, 10, 12) / W) * W;
const NOW = W0 + 3 * W;

/** Every sample of the head, by window start and series id, as plain arrays. */
function dump(head: Head): Record<string, { numbers: [number, number][]; strings: [number, string][] }> {
  const out: Record<string, { numbers: [number, number][]; strings: [number, string][] }> = {};
  for (const start of head.starts()) {
    const window = head.windows.get(start)!;
    for (const [id, buffer] of window.series) {
      const s = buffer.samples();
      out[`${start}/${id}`] = {
        numbers: Array.from(s.timestampsMs, (t, i) => [t, s.values[i] as number]),
        strings: s.strings === null ? [] : Array.from(s.strings.timestampsMs, (t, i) => [t, s.strings!.values[i] as string]),
      };
    }
  }
  return out;
}

describe('Head.apply', () => {
  it('uses 2-hour windows (the FULL chunk width)', () => {
    expect(LAYOUT.FULL.chunkWidthMs).toBe(W);
  });

  it('groups points by window and series, windows aligned to 2 hours', () => {
    const head = new Head();
    const pts: TestPoint[] = [
      { id: 1, t: W0, v: 1 },
      { id: 2, t: W0 + W - 1, v: 2 },
      { id: 1, t: W0 + W, v: 3 },
      { id: 1, t: W0 + 2 * W + 5, v: 'x' },
      { id: 1, t: W0 + 10, v: 4 },
    ];
    const result = head.apply(batchOf(pts), 1, NOW);
    expect(result).toEqual({ points: 5, windows: 3 });
    expect(head.points).toBe(5);
    expect(head.starts()).toEqual([W0, W0 + W, W0 + 2 * W]);
    expect(dump(head)).toEqual({
      [`${W0}/1`]: { numbers: [[W0, 1], [W0 + 10, 4]], strings: [] },
      [`${W0}/2`]: { numbers: [[W0 + W - 1, 2]], strings: [] },
      [`${W0 + W}/1`]: { numbers: [[W0 + W, 3]], strings: [] },
      [`${W0 + 2 * W}/1`]: { numbers: [], strings: [[W0 + 2 * W + 5, 'x']] },
    });
    const first = head.windows.get(W0)!;
    expect(first.startMs).toBe(W0);
    expect(first.endMs).toBe(W0 + W);
    expect(first.points).toBe(3);
    expect(first.lastWriteMs).toBe(NOW);
  });

  it('counts each window once per record even when the batch comes back to it', () => {
    const head = new Head();
    const pts: TestPoint[] = [0, W, 1, W + 1, 2, 2 * W, 3].map((dt, i) => ({ id: i % 2, t: W0 + dt, v: i }));
    expect(head.apply(batchOf(pts), 7, NOW)).toEqual({ points: 7, windows: 3 });
    expect(head.windows.get(W0)?.seqs).toEqual([7]);
    expect(head.windows.get(W0 + W)?.seqs).toEqual([7]);
  });

  it('records the seqs of a window ascending, without repeats, across records', () => {
    const head = new Head();
    head.apply(batchOf([{ id: 1, t: W0, v: 1 }]), 1, NOW);
    head.apply(batchOf([{ id: 1, t: W0 + W, v: 1 }]), 2, NOW);
    expect(head.apply(batchOf([{ id: 1, t: W0 + 1, v: 1 }, { id: 2, t: W0 + 2, v: 1 }]), 3, NOW + 1)).toEqual({ points: 2, windows: 1 });
    expect(head.windows.get(W0)?.seqs).toEqual([1, 3]);
    expect(head.windows.get(W0 + W)?.seqs).toEqual([2]);
    expect(head.windows.get(W0)?.lastWriteMs).toBe(NOW + 1);
    expect(head.windows.get(W0 + W)?.lastWriteMs).toBe(NOW);
  });

  it('applies strings by batch position', () => {
    const head = new Head();
    head.apply(batchOf([{ id: 1, t: W0 + 1, v: 5 }, { id: 1, t: W0 + 2, v: 'up' }, { id: 2, t: W0 + 2, v: 'down' }]), 1, NOW);
    expect(dump(head)).toEqual({
      [`${W0}/1`]: { numbers: [[W0 + 1, 5]], strings: [[W0 + 2, 'up']] },
      [`${W0}/2`]: { numbers: [], strings: [[W0 + 2, 'down']] },
    });
  });

  it('the last write of a series and timestamp wins across records', () => {
    const head = new Head();
    head.apply(batchOf([{ id: 1, t: W0 + 1, v: 5 }]), 1, NOW);
    head.apply(batchOf([{ id: 1, t: W0 + 1, v: 'late' }]), 2, NOW);
    head.apply(batchOf([{ id: 1, t: W0 + 1, v: 6 }]), 3, NOW);
    expect(dump(head)[`${W0}/1`]).toEqual({ numbers: [[W0 + 1, 6]], strings: [] });
  });

  it('puts negative times in the window that contains them', () => {
    const head = new Head();
    head.apply(batchOf([{ id: 1, t: -1, v: 1 }, { id: 1, t: 0, v: 2 }]), 1, 0);
    expect(head.starts()).toEqual([-W, 0]);
  });

  it('applies an empty batch as nothing', () => {
    const head = new Head();
    expect(head.apply(batchOf([]), 1, NOW)).toEqual({ points: 0, windows: 0 });
    expect(head.starts()).toEqual([]);
  });
});

describe('Head.apply with isSealed (replay)', () => {
  it('skips the points of sealed windows and does not count those windows', () => {
    const head = new Head();
    const asked: [number, number][] = [];
    const isSealed = (w: number, seq: number): boolean => {
      asked.push([w, seq]);
      return w === W0 + W;
    };
    const pts: TestPoint[] = [
      { id: 1, t: W0, v: 1 },
      { id: 1, t: W0 + W, v: 2 },
      { id: 2, t: W0 + W + 1, v: 3 },
      { id: 1, t: W0 + 2 * W, v: 4 },
      { id: 1, t: W0 + W + 2, v: 5 },
    ];
    expect(head.apply(batchOf(pts), 9, NOW, isSealed)).toEqual({ points: 2, windows: 2 });
    expect(head.points).toBe(2);
    expect(head.starts()).toEqual([W0, W0 + 2 * W]);
    expect(head.windows.has(W0 + W)).toBe(false);
    expect(asked.every(([, seq]) => seq === 9)).toBe(true);
    expect(new Set(asked.map(([w]) => w))).toEqual(new Set([W0, W0 + W, W0 + 2 * W]));
  });

  it('applies nothing when every window is sealed', () => {
    const head = new Head();
    expect(head.apply(batchOf([{ id: 1, t: W0, v: 1 }, { id: 1, t: W0 + W, v: 1 }]), 1, NOW, () => true)).toEqual({ points: 0, windows: 0 });
    expect(head.points).toBe(0);
    expect(head.starts()).toEqual([]);
  });
});

describe('Head.take and starts', () => {
  it('removes a window, returns it and lowers the point count', () => {
    const head = new Head();
    head.apply(batchOf([{ id: 1, t: W0 + W, v: 1 }, { id: 1, t: W0, v: 2 }, { id: 2, t: W0 + 1, v: 3 }]), 1, NOW);
    expect(head.starts()).toEqual([W0, W0 + W]);
    const taken = head.take(W0);
    expect(taken?.startMs).toBe(W0);
    expect(taken?.points).toBe(2);
    expect([...taken!.series.keys()].sort()).toEqual([1, 2]);
    expect(head.points).toBe(1);
    expect(head.starts()).toEqual([W0 + W]);
    expect(head.take(W0)).toBeUndefined();
    expect(head.take(W0 + 12345)).toBeUndefined();
  });

  it('starts a fresh window when points arrive after the window was taken', () => {
    const head = new Head();
    head.apply(batchOf([{ id: 1, t: W0, v: 1 }]), 1, NOW);
    head.take(W0);
    expect(head.apply(batchOf([{ id: 1, t: W0 + 5, v: 2 }]), 2, NOW)).toEqual({ points: 1, windows: 1 });
    expect(head.windows.get(W0)?.seqs).toEqual([2]);
    expect(dump(head)).toEqual({ [`${W0}/1`]: { numbers: [[W0 + 5, 2]], strings: [] } });
  });
});

describe('capacity hints', () => {
  /** Writes several windows in order, sealing (taking) some, with many series ids (past the initial hint table). */
  function scenario(head: Head): unknown[] {
    const seen: unknown[] = [];
    let seq = 0;
    for (let w = 0; w < 4; w++) {
      const pts: TestPoint[] = [];
      for (const id of [0, 1, 5, 2000, 70_000]) {
        const count = (id % 7) * 10 + w * 13 + 1;
        for (let i = 0; i < count; i++) pts.push({ id, t: W0 + w * W + ((i * 7919) % count) * 1000, v: i * id });
      }
      head.apply(batchOf(pts), ++seq, NOW);
      seen.push(dump(head));
      if (w % 2 === 1) {
        const taken = head.take(W0 + (w - 1) * W);
        seen.push(taken === undefined ? null : [...taken.series].map(([id, b]) => [id, b.length, Array.from(b.samples().values)]));
      }
    }
    return seen;
  }

  it('do not change what the head holds or hands out', () => {
    // A head whose hints were set by an earlier seal: large for some series, tiny for others.
    const hinted = new Head();
    const warm: TestPoint[] = [];
    for (const id of [0, 1, 5, 2000, 70_000]) {
      const count = id === 5 || id === 70_000 ? 3000 : 1;
      for (let i = 0; i < count; i++) warm.push({ id, t: W0 - 4 * W + i, v: -1 });
    }
    hinted.apply(batchOf(warm), 100, NOW);
    expect(hinted.take(W0 - 4 * W)?.points).toBe(warm.length);
    expect(hinted.points).toBe(0);
    expect(scenario(hinted)).toEqual(scenario(new Head()));
  });

  it('a large hint from a previous window still yields exactly the points written', () => {
    const head = new Head();
    const big: TestPoint[] = Array.from({ length: 500 }, (_, i) => ({ id: 3, t: W0 + i * 1000, v: i }));
    head.apply(batchOf(big), 1, NOW);
    head.take(W0);
    head.apply(batchOf([{ id: 3, t: W0 + W + 1, v: 1 }, { id: 3, t: W0 + W, v: 0 }]), 2, NOW);
    expect(dump(head)).toEqual({ [`${W0 + W}/3`]: { numbers: [[W0 + W, 0], [W0 + W + 1, 1]], strings: [] } });
    expect(head.windows.get(W0 + W)?.series.get(3)?.length).toBe(2);
  });
});

describe('the last-buffer memo', () => {
  it('never hands a taken window’s buffer to a later write, even to a window with the same start', () => {
    const head = new Head();
    head.apply(batchOf([{ id: 3, t: W0 + 1, v: 1 }, { id: 4, t: W0 + W + 1, v: 2 }]), 1, NOW);
    const taken = head.take(W0)!;
    head.apply(batchOf([{ id: 3, t: W0 + 2, v: 5 }, { id: 4, t: W0 + W + 2, v: 6 }, { id: 3, t: W0 + 3, v: 7 }]), 2, NOW);
    expect(Array.from(taken.series.get(3)!.samples().values)).toEqual([1]);
    expect(dump(head)).toEqual({
      [`${W0}/3`]: { numbers: [[W0 + 2, 5], [W0 + 3, 7]], strings: [] },
      [`${W0 + W}/4`]: { numbers: [[W0 + W + 1, 2], [W0 + W + 2, 6]], strings: [] },
    });
    expect(head.points).toBe(4);
  });

  it('keeps series apart when a batch alternates between windows', () => {
    const head = new Head();
    const pts: TestPoint[] = Array.from({ length: 12 }, (_, i) => ({ id: i % 2, t: W0 + (i % 3) * W + i, v: i }));
    head.apply(batchOf(pts), 1, NOW);
    const expected: Record<string, { numbers: [number, number][]; strings: [number, string][] }> = {};
    for (const p of pts) (expected[`${Math.floor(p.t / W) * W}/${p.id}`] ??= { numbers: [], strings: [] }).numbers.push([p.t, p.v as number]);
    for (const entry of Object.values(expected)) entry.numbers.sort((a, b) => a[0] - b[0]);
    expect(dump(head)).toEqual(expected);
  });
});

