import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Integration tests spawn processes and worker threads, and mostly wait on them: two test files at a time even on a
// 2-core machine (vitest's default there is one). Measured on this 2-core box: the whole suite took 900–1,000 s of
// vitest time with one worker and 568 s with two.
// One 2-shard ClickHouse cluster serves the whole run (inject('clickhouse')); see test/support/clickhouse-global-setup.ts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/clickhouse-global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
