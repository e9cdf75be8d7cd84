/**
 * The order test files start in. Vitest starts the files that took longest in its last run first
 * (its cache, in node_modules/.vite), so that no long file starts last and runs alone at the end. A
 * fresh clone, as in CI, has no cache: vitest then keeps the glob's order, and the SQLite pass ended
 * with a 60-second file started last (417 s in all). Without a cache, the files below, the longest
 * ones as measured (2026-11-28), start first, then the others, largest first. An out-of-date list
 * only costs time, never a result.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Longest first (seconds in the SQLite pass on 2 cores, 2026-11-28). */
export const LONGEST_FILES = [
  'test/rest/fixture-bodies.test.ts', // 60
  'test/e2e/api-reference-browser.test.ts', // 41
  'test/e2e/cli-tokens.test.ts', // 36
  'test/rest/error-wording.test.ts', // 30
  'test/e2e/startup-failures.test.ts', // 21
  'test/rest/ping.test.ts', // 20
  'test/worker-pool.test.ts', // 20
  'test/e2e/git-sync.test.ts', // 19
  'test/content/pathological-markdown.test.ts', // 14
  'test/e2e/signals.test.ts', // 14
  'test/schema/site-graph.test.ts', // 14
  'test/git-sync/git-client.test.ts', // 11
];

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const relativeOf = (file: TestSpecification) => path.relative(root, file.moduleId).split(path.sep).join('/');
    if (files.some((file) => this.ctx.cache.getFileTestResults(`${file.project.name}:${relativeOf(file)}`))) return super.sort(files);
    const rank = (file: TestSpecification) => {
      const listed = LONGEST_FILES.indexOf(relativeOf(file));
      return listed === -1 ? LONGEST_FILES.length : listed;
    };
    const size = (file: TestSpecification) => fs.statSync(file.moduleId).size;
    return [...files].sort((a, b) => rank(a) - rank(b) || size(b) - size(a));
  }
}
