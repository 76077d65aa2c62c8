// Owns the workloads' seeded 32-bit pseudo-random generator (mulberry32), so every run sees the same numbers.

/** A generator of uniformly distributed unsigned 32-bit integers. */
export type Uint32Source = () => number;

/** 2^32, to turn a uint32 into a fraction in [0, 1). */
export const UINT32_RANGE = 2 ** 32;

/**
 * mulberry32: a tiny, fast 32-bit generator with a full 2^32 period; good enough for workloads and
 * query picks, and identical on every platform because it uses only 32-bit integer operations.
 */
export function mulberry32(seed: number): Uint32Source {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** A seeded integer in [0, bound) drawn from `next`. */
export function uniformInt(next: Uint32Source, bound: number): number {
  return Math.floor((next() / UINT32_RANGE) * bound);
}

/** Shuffles `items[start, end)` in place (Fisher–Yates, drawing from the end down), so every order is equally likely. */
export function shuffleRange(items: Uint32Array, start: number, end: number, next: Uint32Source): void {
  for (let i = end - 1; i > start; i--) {
    const j = start + uniformInt(next, i - start + 1);
    const t = items[i] as number;
    items[i] = items[j] as number;
    items[j] = t;
  }
}
