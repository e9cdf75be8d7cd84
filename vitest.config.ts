import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // One graphql instance: our ESM imports and the CommonJS requires of Pothos/yoga must meet
  // the same module, or graphql's instanceof checks fail ("Cannot use GraphQLSchema from another module").
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // dist/ built once, before the tests that run the compiled server start it in parallel.
    globalSetup: ['test/global-setup.ts'],
    // Each test file gets its own database (a SQLite file, or a PostgreSQL schema).
    pool: 'forks',
    // At least two files at once: they wait on databases, processes and timers more than they compute,
    // and vitest's default (one fewer than the cores) ran one at a time on a 2-core machine (the
    // PostgreSQL pass took 522 s; 289 s with two).
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
