import { defineConfig } from 'vitest/config';

// Integration tests spawn processes and worker threads; give them room on a 2-core machine.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
