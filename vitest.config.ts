import os from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/sequencer.ts';

/**
 * Test files that replace a module for themselves (`vi.mock`): they need a module graph of their own.
 * Every other file shares its worker's modules with the files that ran there before it.
 */
const OWN_MODULES = ['test/storage/remote-fetch-pinning.test.ts'];
const ALL = ['test/**/*.test.ts', 'src/**/*.test.ts'];
/**
 * Files that open no database: pure code (Markdown, merges, the worker pool, the Git client) and the
 * browser tests, whose subject is what Chromium draws. They run in the SQLite pass; the PostgreSQL
 * pass (TEST_DATABASE_URL set) leaves them out, since running them again there proves nothing more
 * and cost CI a minute. Only a file that opens no database belongs here: one that does would then
 * be tested on SQLite alone.
 */
const DATABASE_INDEPENDENT = [
  'test/worker-pool.test.ts',
  'test/git-sync/git-client.test.ts',
  'test/git-sync/layout.test.ts',
  'test/content/pathological-markdown.test.ts',
  'test/content/markdown-limits.test.ts',
  'test/content/document/**/*.test.ts',
  'test/content/merge.test.ts',
  'test/content/pdf.test.ts',
  'test/translation/segments.test.ts',
  'test/openapi/**/*.test.ts',
  'test/insights/**/*.test.ts',
  'test/e2e/api-reference-browser.test.ts',
  'test/e2e/graphiql-browser.test.ts',
];
// As test/helpers/database.ts decides: any TEST_DATABASE_URL is a PostgreSQL database.
const ON_POSTGRESQL = Boolean(process.env.TEST_DATABASE_URL);

export default defineConfig({
  // One graphql instance: our ESM imports and the CommonJS requires of Pothos/yoga must meet
  // the same module, or graphql's instanceof checks fail ("Cannot use GraphQLSchema from another module").
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
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
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      // Not isolated: importing the app's modules again for every file was half of the suite's CPU
      // (the SQLite pass: 372 s isolated, 191 s not, on 2 cores). Each file still makes its own
      // server and database; nothing of ours keeps module-level state between files.
      { extends: true, test: { name: 'shared-modules', isolate: false, include: ALL, exclude: [...configDefaults.exclude, ...OWN_MODULES, ...(ON_POSTGRESQL ? DATABASE_INDEPENDENT : [])] } },
      { extends: true, test: { name: 'own-modules', include: OWN_MODULES } },
    ],
  },
});
