// Tests the session store: a live session is kept, an expired or unreadable one is dropped and reported.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clearSession, loadSession, saveSession, SESSION_KEY, type SessionStorageLike } from '../../src/console/session-store.js';

function memoryStorage(): SessionStorageLike & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v), removeItem: (k) => void map.delete(k) };
}

const session = fc.record({ token: fc.string(), tenantId: fc.string(), username: fc.string(), expiresMs: fc.integer({ min: 0, max: 2 ** 45 }) });

describe('session store', () => {
  it('loads a saved session while it lives, reports it expired after, and forgets it then', () => {
    fc.assert(
      fc.property(session, fc.integer({ min: 0, max: 2 ** 45 }), (s, now) => {
        const storage = memoryStorage();
        saveSession(storage, s);
        const loaded = loadSession(storage, now);
        if (now < s.expiresMs) {
          expect(loaded).toEqual({ kind: 'live', session: s });
          expect(storage.map.has(SESSION_KEY)).toBe(true);
        } else {
          expect(loaded).toEqual({ kind: 'expired' });
          expect(storage.map.has(SESSION_KEY)).toBe(false);
        }
      }),
    );
  });

  it('reports none for every stored text that is not a session, and removes it', () => {
    // Text that is not JSON, JSON that is not an object, and objects with a field missing or mistyped.
    const broken = fc.oneof(
      fc.string(),
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc
        .tuple(session, fc.constantFrom('token', 'tenantId', 'username', 'expiresMs'), fc.oneof(fc.constant(undefined), fc.integer(), fc.double(), fc.boolean(), fc.constant(null)))
        .filter(([, field, value]) => !(field === 'expiresMs' && Number.isSafeInteger(value)))
        .map(([s, field, value]) => JSON.stringify({ ...s, [field]: value })),
    );
    const isSessionText = (text: string): boolean => {
      try {
        const value = JSON.parse(text) as Record<string, unknown> | null;
        return typeof value === 'object' && value !== null && typeof value.token === 'string' && typeof value.tenantId === 'string' && typeof value.username === 'string' && Number.isSafeInteger(value.expiresMs);
      } catch {
        return false;
      }
    };
    fc.assert(
      fc.property(
        broken.filter((text) => !isSessionText(text)),
        (text) => {
          const storage = memoryStorage();
          storage.setItem(SESSION_KEY, text);
          expect(loadSession(storage, 0)).toEqual({ kind: 'none' });
          expect(storage.map.has(SESSION_KEY)).toBe(false);
        },
      ),
    );
  });

  it('clear forgets the session', () => {
    const storage = memoryStorage();
    saveSession(storage, { token: 't', tenantId: 'x', username: 'u', expiresMs: 10 });
    clearSession(storage);
    expect(loadSession(storage, 0)).toEqual({ kind: 'none' });
    expect(storage.map.size).toBe(0);
  });
});
