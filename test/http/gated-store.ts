// Owns a store wrapper for admission tests: writes wait at a gate the test opens, so requests stay in flight on demand.
import type { Store } from '../../src/store-types.js';

/** A store whose writes wait at a gate, and how to see and open it. */
export interface GatedStore {
  readonly store: Store;
  /** Lets every waiting and later write through. */
  open(): void;
  /** Writes that reached the gate so far. */
  entered(): number;
}

/** Wraps `store`: write and writeColumns count themselves and wait for `open()`; everything else passes through. */
export function gated(store: Store): GatedStore {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let entered = 0;
  const wrapper: Store = {
    write: async (points, options) => {
      entered += 1;
      await gate;
      return store.write(points, options);
    },
    writeColumns: async (columns, options) => {
      entered += 1;
      await gate;
      return store.writeColumns(columns, options);
    },
    query: (request) => store.query(request),
    plan: (request) => store.plan(request),
    listMetrics: (tenant, options) => store.listMetrics(tenant, options),
    flush: () => store.flush(),
    stats: () => store.stats(),
    timestampBounds: () => store.timestampBounds(),
    close: () => store.close(),
  };
  return { store: wrapper, open: () => release(), entered: () => entered };
}
