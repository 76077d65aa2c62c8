// Owns the list of storage backends the store's conformance tests run against.

/** Every backend the conformance tests run on: the embedded SQLite partitions and a ClickHouse cluster. */
export const STORE_BACKENDS = ['sqlite', 'clickhouse'] as const;

/** The name of one backend under test. */
export type BackendName = (typeof STORE_BACKENDS)[number];
