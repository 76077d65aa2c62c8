// Owns a store wrapper for the protocol APIs' tests: writes fail with STORE_NOT_DURABLE while the test says so, as when the write-ahead log cannot be written.
import { StrataError } from '../../../../src/core/errors.js';
import type { Store } from '../../../../src/store-types.js';

/** A store whose writes fail while `failing` is true, and the switch. */
export interface UnreliableStore {
  readonly store: Store;
  failing: boolean;
}

/** Wraps `store`: writeColumns throws STORE_NOT_DURABLE while `failing`; everything else passes through. */
export function unreliable(store: Store): UnreliableStore {
  const switchable: UnreliableStore = {
    failing: false,
    store: {
      write: (points, options) => store.write(points, options),
      writeColumns: async (columns, options) => {
        if (switchable.failing) throw new StrataError('STORE_NOT_DURABLE', 'The write-ahead log cannot be written.');
        return store.writeColumns(columns, options);
      },
      query: (request) => store.query(request),
      plan: (request) => store.plan(request),
      listMetrics: (tenant, options) => store.listMetrics(tenant, options),
      flush: () => store.flush(),
      stats: () => store.stats(),
      timestampBounds: () => store.timestampBounds(),
      close: () => store.close(),
    },
  };
  return switchable;
}
