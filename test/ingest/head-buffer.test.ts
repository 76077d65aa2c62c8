// Owns the unit tests of the head buffer: sorting, last write wins at equal timestamps, strings kept apart.
import { describe, expect, it } from 'vitest';
import { HeadBuffer } from '../../src/ingest/head-buffer.js';
import type { SampleColumns } from '../../src/model/bucket.js';

const T0 = Date.UTC(2024, 0, 10, 12);

function bufferOf(points: readonly [number, number | string][], capacityHint?: number): HeadBuffer {
  const buffer = new HeadBuffer(capacityHint);
  for (const [t, v] of points) buffer.append(t, typeof v === 'number' ? v : NaN, typeof v === 'string' ? v : undefined);
  return buffer;
}

/** Samples as plain arrays: numeric [t, v] pairs and string [t, text] pairs. */
function plain(s: SampleColumns): { numbers: [number, number][]; strings: [number, string][] } {
  const numbers = Array.from(s.timestampsMs.subarray(0, s.length), (t, i) => [t, s.values[i] as number] as [number, number]);
  const strings = s.strings === null ? [] : Array.from(s.strings.timestampsMs.subarray(0, s.strings.length), (t, i) => [t, s.strings!.values[i] as string] as [number, string]);
  expect(s.timestampsMs.length).toBe(s.length);
  expect(s.values.length).toBe(s.length);
  return { numbers, strings };
}

describe('HeadBuffer.samples', () => {
  it('returns ascending appends as they are', () => {
    const b = bufferOf([[T0, 1], [T0 + 1, 2], [T0 + 30_000, 3]]);
    expect(b.ascending).toBe(true);
    expect(plain(b.samples())).toEqual({ numbers: [[T0, 1], [T0 + 1, 2], [T0 + 30_000, 3]], strings: [] });
    expect(b.samples().strings).toBeNull();
  });

  it('sorts out-of-order appends', () => {
    const b = bufferOf([[T0 + 3, 3], [T0, 0], [T0 + 2, 2], [T0 + 1, 1]]);
    expect(b.ascending).toBe(false);
    expect(plain(b.samples()).numbers).toEqual([[T0, 0], [T0 + 1, 1], [T0 + 2, 2], [T0 + 3, 3]]);
  });

  it('keeps the last write at an equal timestamp, adjacent or not', () => {
    const b = bufferOf([[T0, 1], [T0, 2], [T0 + 5, 7], [T0 - 5, 9], [T0, 3], [T0 + 5, 8]]);
    expect(plain(b.samples()).numbers).toEqual([[T0 - 5, 9], [T0, 3], [T0 + 5, 8]]);
  });

  it('lets a string override a number at the same timestamp', () => {
    const b = bufferOf([[T0, 1], [T0 + 1, 2], [T0, 'up']]);
    expect(plain(b.samples())).toEqual({ numbers: [[T0 + 1, 2]], strings: [[T0, 'up']] });
  });

  it('lets a number override a string at the same timestamp', () => {
    const b = bufferOf([[T0, 'up'], [T0 + 1, 'down'], [T0, 4]]);
    expect(plain(b.samples())).toEqual({ numbers: [[T0, 4]], strings: [[T0 + 1, 'down']] });
  });

  it('lets a string override a string, and a number come back last', () => {
    const b = bufferOf([[T0, 'a'], [T0, 'b'], [T0 + 1, 1], [T0 + 1, 'c'], [T0 + 1, 2]]);
    expect(plain(b.samples())).toEqual({ numbers: [[T0 + 1, 2]], strings: [[T0, 'b']] });
  });

  it('splits ascending strings out of the numbers even when no sort is needed', () => {
    const b = bufferOf([[T0, 1], [T0 + 1, 'ok'], [T0 + 2, 3], [T0 + 3, '']]);
    expect(b.ascending).toBe(true);
    const s = b.samples();
    expect(plain(s)).toEqual({ numbers: [[T0, 1], [T0 + 2, 3]], strings: [[T0 + 1, 'ok'], [T0 + 3, '']] });
    expect(s.strings?.length).toBe(2);
  });

  it('keeps -0 and extreme values bit for bit', () => {
    const s = bufferOf([[T0 + 1, Number.MAX_VALUE], [T0, -0], [T0 + 2, -Number.MIN_VALUE]]).samples();
    expect(Object.is(s.values[0], -0)).toBe(true);
    expect(Array.from(s.values)).toEqual([-0, Number.MAX_VALUE, -Number.MIN_VALUE]);
  });

  it('grows past its initial capacity and past a small capacity hint', () => {
    for (const hint of [undefined, 0, 1, 1000]) {
      const pts: [number, number][] = Array.from({ length: 100 }, (_, i) => [T0 + (99 - i) * 1000, i]);
      const s = bufferOf(pts, hint).samples();
      expect(s.length).toBe(100);
      expect(Array.from(s.timestampsMs)).toEqual(Array.from({ length: 100 }, (_, i) => T0 + i * 1000));
      expect(s.values[0]).toBe(99);
    }
  });

  it('hands out copies: later appends do not change samples already taken', () => {
    const b = bufferOf([[T0, 1], [T0 + 1, 2]]);
    const before = b.samples();
    b.append(T0 + 2, 3, undefined);
    b.append(T0, 9, undefined);
    expect(plain(before).numbers).toEqual([[T0, 1], [T0 + 1, 2]]);
    expect(plain(b.samples()).numbers).toEqual([[T0, 9], [T0 + 1, 2], [T0 + 2, 3]]);
  });

  it('returns nothing for an empty buffer', () => {
    const s = new HeadBuffer().samples();
    expect(s.length).toBe(0);
    expect(s.strings).toBeNull();
  });
});

describe('HeadBuffer ordering at scale', () => {
  it('sorts a reversed buffer (the comparison-sort path) and a nearly ordered one (the insertion path) alike', () => {
    const reversed = new HeadBuffer();
    const nearly = new HeadBuffer();
    const n = 1000;
    for (let i = n - 1; i >= 0; i--) reversed.append(i * 1000, i, undefined);
    // Neighbouring pairs swapped: each swap is one out-of-order step.
    for (let i = 0; i < n; i += 2) {
      nearly.append((i + 1) * 1000, i + 1, undefined);
      nearly.append(i * 1000, i, undefined);
    }
    // A repeated timestamp written last wins in both.
    reversed.append(500_000, -1, undefined);
    nearly.append(500_000, -1, undefined);
    for (const buffer of [reversed, nearly]) {
      const s = buffer.samples();
      expect(s.length).toBe(n);
      expect(Array.from(s.timestampsMs)).toEqual(Array.from({ length: n }, (_, i) => i * 1000));
      expect(Array.from(s.values)).toEqual(Array.from({ length: n }, (_, i) => (i === 500 ? -1 : i)));
    }
  });
});
