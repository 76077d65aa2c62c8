import { defineConfig } from 'vitest/config';

// Integration tests spawn processes and worker threads; give them room on a 2-core machine.
// One 2-shard ClickHouse cluster serves the whole run (inject('clickhouse')); see test/support/clickhouse-global-setup.ts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/clickhouse-global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
