// Test helper: opens stores in temporary directories with a manual clock, and cleans up.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../src/core/clock.js';
import { openStore } from '../src/store.js';
import type { Store, StoreOptions } from '../src/store-types.js';

/** A fixed start time: 2026-11-22T12:00:00Z, on every bucket boundary up to a day. */
export const T_NOON = Date.UTC(2026, 10, 22, 12);

/** A store in a fresh temporary directory with a manual clock and no background timer. */
export interface TestStore {
  readonly store: Store;
  readonly clock: ManualClock;
  readonly dir: string;
  reopen(options?: Partial<StoreOptions>): Promise<Store>;
  cleanup(): Promise<void>;
}

/** Opens a store for a test; call cleanup() in afterEach. */
export async function openTestStore(options: Partial<StoreOptions> = {}, startMs = T_NOON): Promise<TestStore> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-test-'));
  const clock = new ManualClock(startMs);
  const base = { dir, clock, background: false, workers: 0, ...options };
  let store = await openStore(base);
  return {
    get store() {
      return store;
    },
    clock,
    dir,
    async reopen(more = {}) {
      await store.close();
      store = await openStore({ ...base, ...more });
      return store;
    },
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
