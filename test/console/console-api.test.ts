// Tests the console's reading of search text as a metric glob.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { searchGlob } from '../../src/console/console-api.js';

describe('searchGlob', () => {
  it('uses text with * or ? as the glob and searches plain text as a substring', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const glob = searchGlob(text);
        const trimmed = text.trim();
        if (/[*?]/.test(trimmed)) expect(glob).toBe(trimmed);
        else expect(glob).toBe(`*${trimmed}*`);
      }),
    );
    expect(searchGlob(' cpu ')).toBe('*cpu*');
  });
});
