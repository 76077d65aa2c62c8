// Tests the hash routes: parseHash and hashOf, each the other's inverse.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashOf, parseHash } from '../../src/console/router.js';

describe('parseHash', () => {
  it('splits path segments, decodes them, and reads the parameters', () => {
    const route = parseHash('#/entities/en%201?refresh=5000&m=a&m=b');
    expect(route.segments).toEqual(['entities', 'en 1']);
    expect(route.params.get('refresh')).toBe('5000');
    expect(route.params.getAll('m')).toEqual(['a', 'b']);
  });

  it('reads an empty hash as no segments and keeps bad percent-encoding as written', () => {
    expect(parseHash('').segments).toEqual([]);
    expect(parseHash('#/').segments).toEqual([]);
    expect(parseHash('#//metrics//').segments).toEqual(['metrics']);
    expect(parseHash('#/entities/%E0%A4%A').segments).toEqual(['entities', '%E0%A4%A']);
  });

  it('is the inverse of hashOf for any non-empty segments and parameters', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1 }), { maxLength: 4 }), fc.array(fc.tuple(fc.string({ minLength: 1 }), fc.string()), { maxLength: 5 }), (segments, pairs) => {
        const params = new URLSearchParams(pairs);
        const route = parseHash(hashOf(segments, params));
        expect(route.segments).toEqual(segments);
        expect([...route.params]).toEqual([...params]);
        expect(hashOf(route.segments, route.params)).toBe(hashOf(segments, params));
      }),
    );
  });

  it('formats paths as the navigation links spell them', () => {
    expect(hashOf('/metrics')).toBe('#/metrics');
    expect(hashOf('/entities/en1', { refresh: '5000' })).toBe('#/entities/en1?refresh=5000');
    expect(hashOf('/entities', new URLSearchParams([['q', 'a b'], ['q', 'c']]))).toBe('#/entities?q=a+b&q=c');
  });

  it('encodes each segment of an array once, so an id may hold any text', () => {
    expect(hashOf(['entities', 'en 1/x'])).toBe('#/entities/en%201%2Fx');
    expect(parseHash(hashOf(['entities', 'a%b'])).segments).toEqual(['entities', 'a%b']);
  });
});
