// Test helper for the reserved-name tests: after each test, Object.prototype must be exactly as it was when the file loaded.
import { afterEach, expect } from 'vitest';

/**
 * Registers an afterEach that fails the test when a request polluted Object.prototype: a property
 * `polluted` showing through a plain object, a property added or removed, or a replaced prototype.
 */
export function guardPrototypes(): void {
  const names = Object.getOwnPropertyNames(Object.prototype).sort();
  afterEach(() => {
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(names);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
}
