// Owns the head buffer's properties: samples() equals a last-write-wins map sorted by time, numbers and strings apart.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DoubleSlabs } from '../../src/ingest/double-slabs.js';
import { HeadBuffer } from '../../src/ingest/head-buffer.js';

const T0 = Date.UTC(2024, 0, 10, 12);

const write = fc.record({
  // A narrow range so equal timestamps are common.
  t: fc.integer({ min: T0, max: T0 + 40 }),
  v: fc.oneof(
    { weight: 3, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  ),
});

describe('HeadBuffer properties', () => {
  it('samples() is the last write per timestamp, ascending, strings split out', () => {
    fc.assert(
      fc.property(fc.array(write, { maxLength: 120 }), fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }), (writes, hint) => {
        const buffer = new HeadBuffer(hint);
        const model = new Map<number, number | string>();
        for (const { t, v } of writes) {
          buffer.append(t, typeof v === 'number' ? v : NaN, typeof v === 'string' ? v : undefined);
          model.set(t, v);
        }
        const sorted = [...model].sort((a, b) => a[0] - b[0]);
        const numbers = sorted.filter((e): e is [number, number] => typeof e[1] === 'number');
        const strings = sorted.filter((e): e is [number, string] => typeof e[1] === 'string');
        const s = buffer.samples();
        expect(s.length).toBe(numbers.length);
        expect(Array.from(s.timestampsMs)).toEqual(numbers.map((e) => e[0]));
        // toEqual tells -0 from 0, so the values are kept bit for bit.
        expect(Array.from(s.values)).toEqual(numbers.map((e) => e[1]));
        if (strings.length === 0) {
          expect(s.strings).toBeNull();
        } else {
          expect(s.strings?.length).toBe(strings.length);
          expect(Array.from(s.strings!.timestampsMs)).toEqual(strings.map((e) => e[0]));
          expect(s.strings?.values).toEqual(strings.map((e) => e[1]));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('samplesView() holds what samples() holds, sharing the columns only when they need no sort', () => {
    fc.assert(
      fc.property(fc.array(write, { maxLength: 120 }), fc.boolean(), (writes, slabs) => {
        const buffer = new HeadBuffer(undefined, slabs ? new DoubleSlabs() : undefined);
        for (const { t, v } of writes) buffer.append(t, typeof v === 'number' ? v : NaN, typeof v === 'string' ? v : undefined);
        const view = buffer.samplesView();
        // toEqual tells -0 from 0 and compares typed arrays element by element.
        expect(view).toEqual(buffer.samples());
        const shared = view.values.buffer === buffer.values.buffer;
        expect(shared).toBe(buffer.ascending && buffer.strings === null);
        expect(view.timestampsMs.buffer === buffer.timestampsMs.buffer).toBe(shared);
      }),
      { numRuns: 500 },
    );
  });

  it('samples() is the same whether asked once at the end or also in between', () => {
    fc.assert(
      fc.property(fc.array(write, { maxLength: 60 }), fc.nat(), (writes, cut) => {
        const a = new HeadBuffer();
        const b = new HeadBuffer();
        writes.forEach(({ t, v }, i) => {
          for (const buffer of [a, b]) buffer.append(t, typeof v === 'number' ? v : NaN, typeof v === 'string' ? v : undefined);
          if (i === cut % Math.max(1, writes.length)) a.samples();
        });
        expect(a.samples()).toEqual(b.samples());
      }),
    );
  });

  it('keeps buffers apart while many grow at once (their columns share slabs)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.double({ noNaN: true })), { maxLength: 3000 }), fc.integer({ min: 1, max: 3 }), (writes, rounds) => {
        const buffers = new Map<number, HeadBuffer>();
        const model = new Map<number, number[]>();
        const slabs = new DoubleSlabs();
        // Enough rounds of appends that the slab in use runs out while buffers still grow.
        for (let round = 0; round < rounds; round++) {
          writes.forEach(([id, v], k) => {
            let buffer = buffers.get(id);
            if (buffer === undefined) buffers.set(id, (buffer = new HeadBuffer(k % 7 === 0 ? 2000 : undefined, slabs)));
            const list = model.get(id) ?? [];
            model.set(id, list);
            buffer.append(T0 + list.length, v, undefined);
            list.push(v);
          });
        }
        for (const [id, list] of model) {
          const s = buffers.get(id)!.samples();
          expect(Array.from(s.values)).toEqual(list);
          expect(Array.from(s.timestampsMs)).toEqual(list.map((_, i) => T0 + i));
        }
      }),
      { numRuns: 60 },
    );
  });
});

