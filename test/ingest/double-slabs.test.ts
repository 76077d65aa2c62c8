// Owns the unit tests of the slab allocator: zeroed pieces that never overlap, big requests apart, a new slab when one is used up.
import { describe, expect, it } from 'vitest';
import { DoubleSlabs, OWN_ARRAYS } from '../../src/ingest/double-slabs.js';

describe('DoubleSlabs', () => {
  it('hands out zeroed, disjoint pieces, across slabs, and big requests as arrays of their own', () => {
    const slabs = new DoubleSlabs();
    const pieces = Array.from({ length: 400 }, (_, k) => slabs.take(1000 + (k % 7)));
    pieces.forEach((piece, k) => {
      expect(piece.length).toBe(1000 + (k % 7));
      expect(piece.every((x) => x === 0)).toBe(true);
      piece.fill(k + 1);
    });
    // Writing each piece with its own mark left every other piece untouched.
    pieces.forEach((piece, k) => expect(piece.every((x) => x === k + 1)).toBe(true));
    // 400 pieces of about 1000 doubles need several 131,072-double slabs.
    expect(new Set(pieces.map((p) => p.buffer)).size).toBeGreaterThan(2);
    const big = slabs.take(100_000);
    expect(big.byteOffset).toBe(0);
    expect(big.buffer.byteLength).toBe(800_000);
    expect(OWN_ARRAYS.take(5).buffer.byteLength).toBe(40);
  });
});
