// Owns the ClickHouse tests' shared helpers: a per-test registry of fresh databases and their stores on the run's cluster, the StrataError a function throws; it passes on the tests' closed loopback port.
import { randomBytes } from 'node:crypto';
import { afterEach, expect, inject } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import type { Store } from '../../src/store-types.js';
import { clickhouseStatement } from '../support/clickhouse-cluster.js';

/** The databases and stores of the running test, cleaned up after each test by {@link clickhouseDatabases}. */
export interface ClickHouseDatabases {
  /** A fresh database name `<prefix>_<hex>` (not created), dropped on every shard after the test. */
  fresh(): string;
  /** Registers `store` to be closed after the test (before its databases are dropped); returns it. */
  track(store: Store): Store;
}

/**
 * A registry of the databases and stores each test uses on the run's cluster. Call it at the top level of a
 * test file: it registers an afterEach that closes every tracked store, then drops every fresh database on every shard.
 */
export function clickhouseDatabases(prefix: string): ClickHouseDatabases {
  const { urls } = inject('clickhouse');
  const databases: string[] = [];
  const stores: Store[] = [];

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    for (const database of databases.splice(0)) for (const url of urls) await clickhouseStatement(url, `DROP DATABASE IF EXISTS ${database}`);
  });

  return {
    fresh(): string {
      const database = `${prefix}_${randomBytes(6).toString('hex')}`;
      databases.push(database);
      return database;
    },
    track(store: Store): Store {
      stores.push(store);
      return store;
    },
  };
}

/** The error `run` throws, asserted to be a StrataError (fails the test when it returns or throws anything else). */
export function thrownStrataError(run: () => unknown): StrataError {
  let error: unknown;
  try {
    run();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(StrataError);
  return error as StrataError;
}

export { closedPort } from '../support/closed-ports.js';
