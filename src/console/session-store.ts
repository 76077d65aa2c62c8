// Owns where the session lives: sessionStorage only, so the token lives as long as the tab and never outlives it.
import type { ConsoleSession } from './api-request.js';

/** The sessionStorage key of the session. */
export const SESSION_KEY = 'strata.console.session';

/** The part of Storage the store needs (sessionStorage in the browser, a Map-backed fake in tests). */
export interface SessionStorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** What was found: a live session, an expired one (to say so at sign-in), or none. */
export type StoredSession = { readonly kind: 'live'; readonly session: ConsoleSession } | { readonly kind: 'expired' } | { readonly kind: 'none' };

function isSession(value: unknown): value is ConsoleSession {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.token === 'string' && typeof record.tenantId === 'string' && typeof record.username === 'string' && Number.isSafeInteger(record.expiresMs);
}

/** The stored session at `nowMs`; an expired or unreadable entry is removed. */
export function loadSession(storage: SessionStorageLike, nowMs: number): StoredSession {
  const text = storage.getItem(SESSION_KEY);
  if (text === null) return { kind: 'none' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (!isSession(value)) {
    storage.removeItem(SESSION_KEY);
    return { kind: 'none' };
  }
  if (value.expiresMs <= nowMs) {
    storage.removeItem(SESSION_KEY);
    return { kind: 'expired' };
  }
  return { kind: 'live', session: value };
}

/** Keeps the session for this tab. */
export function saveSession(storage: SessionStorageLike, session: ConsoleSession): void {
  storage.setItem(SESSION_KEY, JSON.stringify(session));
}

/** Forgets the session (sign-out, expiry, a 401). */
export function clearSession(storage: SessionStorageLike): void {
  storage.removeItem(SESSION_KEY);
}
