// Tests glob matching by example: literal characters, wildcards at the edges, and adversarial globs that made the old regular expression backtrack for seconds.
import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../src/model/glob.js';

/**
 * A bound on the CPU time (user + system, all threads of this process) each case below may use.
 * Each takes well under a millisecond; the old regexp took 7.8 s at 200 characters and minutes at
 * 10,000, so 2 s is thousands of times normal and still well below the old bug. CPU time, not wall
 * time: a loaded machine that preempts this process stretches wall time, not the CPU it uses.
 */
const FAST_CPU_MS = 2_000;

/** `run`'s result and the CPU time this process spent on it (the matching is synchronous). */
function timed<T>(run: () => T): { result: T; cpuMs: number } {
  const started = process.cpuUsage();
  const result = run();
  const used = process.cpuUsage(started);
  return { result, cpuMs: (used.user + used.system) / 1000 };
}

describe('compileGlob by example', () => {
  it('matches `*` any run (empty too), `?` exactly one unit, and everything else literally', () => {
    const web = compileGlob('web.*');
    expect(['web.', 'web.cpu', 'web.a.b'].map((n) => web.matches(n))).toEqual([true, true, true]);
    expect(['web', 'webxcpu', 'db.web.cpu'].map((n) => web.matches(n))).toEqual([false, false, false]);
    expect(compileGlob('?b.cpu').matches('db.cpu')).toBe(true);
    expect(compileGlob('?b.cpu').matches('b.cpu')).toBe(false);
    expect(compileGlob('a+b(c)[d]$^|\\').matches('a+b(c)[d]$^|\\')).toBe(true);
    expect(compileGlob('a.c').matches('abc')).toBe(false);
    expect(compileGlob('*').matches('')).toBe(true);
    expect(compileGlob('').matches('')).toBe(true);
    expect(compileGlob('').matches('a')).toBe(false);
    expect(compileGlob('a**b').matches('ab')).toBe(true);
  });

  it('lets wildcards cross newlines, and counts UTF-16 code units as the old regexp did', () => {
    expect(compileGlob('a*b').matches('a\n\nb')).toBe(true);
    expect(compileGlob('a?b').matches('a\nb')).toBe(true);
    // A character outside the BMP is two code units: `??` matches it, `?` alone does not.
    expect(compileGlob('x??').matches('x😀')).toBe(true);
    expect(compileGlob('x?').matches('x😀')).toBe(false);
    expect(compileGlob('*😀*').matches('a😀b')).toBe(true);
  });

  it('keeps the first and last pieces from overlapping', () => {
    expect(compileGlob('ab*ba').matches('aba')).toBe(false);
    expect(compileGlob('ab*ba').matches('abba')).toBe(true);
    expect(compileGlob('a?*?a').matches('a?a')).toBe(false);
  });

  it('reports the code units before the first wildcard as the literal prefix', () => {
    expect(compileGlob('web.*.cpu').literalPrefix).toBe('web.');
    expect(compileGlob('we?b*').literalPrefix).toBe('we');
    expect(compileGlob('*web').literalPrefix).toBe('');
    expect(compileGlob('web').literalPrefix).toBe('web');
  });
});

describe('adversarial globs finish in milliseconds', () => {
  it.each([200, 10_000])('*a*a*a*a*b against %i a characters (7.8 s with the regexp at 200)', (length) => {
    const matcher = compileGlob('*a*a*a*a*b');
    const { result, cpuMs } = timed(() => matcher.matches('a'.repeat(length)));
    expect(result).toBe(false);
    expect(compileGlob('*a*a*a*a*b').matches(`${'a'.repeat(length)}b`)).toBe(true);
    expect(cpuMs).toBeLessThan(FAST_CPU_MS);
  });

  it.each([200, 10_000])('a 1,024-character glob of *a against %i characters', (length) => {
    const glob = '*a'.repeat(512);
    expect(glob).toHaveLength(1024);
    const { result, cpuMs } = timed(() => [compileGlob(glob).matches('a'.repeat(length)), compileGlob(`${glob}b`).matches('a'.repeat(length))]);
    // 512 a's are needed: the 200-character name is too short, the 10,000-character one is not.
    expect(result).toEqual([length >= 512, false]);
    expect(cpuMs).toBeLessThan(FAST_CPU_MS);
  });

  it.each([200, 10_000])('long `?` pieces against %i characters', (length) => {
    const name = 'a'.repeat(length);
    const globs = [`*${'a?'.repeat(60)}b*`, `*${'?'.repeat(500)}b`, `*${'a?'.repeat(341)}`, `${'*a?'.repeat(341)}*`];
    const { result, cpuMs } = timed(() => globs.map((glob) => compileGlob(glob).matches(name)));
    expect(result).toEqual([false, false, length >= 682, length >= 682]);
    expect(cpuMs).toBeLessThan(FAST_CPU_MS);
  });
});
