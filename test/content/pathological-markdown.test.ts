/**
 * The CommonMark project's pathological inputs (test/helpers/pathological-markdown.ts)
 * against markdownToDocument, at 10 KB and 100 KB: each is refused with a
 * limit error, or both sizes convert and the 100 KB one costs at most 25
 * times the 10 KB one (linear is 10 times, quadratic 100 times). Costs are
 * the process's CPU time (min of two runs), which other processes on the
 * machine do not inflate as they do wall time.
 */
import { describe, expect, it } from 'vitest';
import { markdownToDocument } from '../../src/content/document/markdown-parse.ts';
import { LimitExceededError } from '../../src/errors/index.ts';
import { PATHOLOGICAL_CASES } from '../helpers/pathological-markdown.ts';

/** How much more 100 KB may cost than 10 KB. */
const MAX_RATIO = 25;
/** Below this, a 10 KB conversion's CPU time is too small to compare with: the floor it is taken to be. */
const FLOOR_MS = 20;
/** Generous bound on one 100 KB conversion (the benchmark has the real numbers). */
const MAX_100KB_MS = 10_000;

/** The CPU time (ms) of converting `markdown`, the least of `runs`; or the limit error it is refused with. */
function cost(markdown: string, runs = 2): number | LimitExceededError {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const before = process.cpuUsage();
    try {
      markdownToDocument(markdown);
    } catch (error) {
      if (error instanceof LimitExceededError) return error;
      throw error;
    }
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

describe('pathological Markdown', () => {
  // Warm the parser up, so the first case does not pay for compiling it.
  for (const { make } of PATHOLOGICAL_CASES) cost(make(2_000), 1);

  for (const { name, make } of PATHOLOGICAL_CASES) {
    // A shared machine may make the slowest (tables: about 1 s of CPU per 100 KB run) take a while.
    it(`${name}: refused with a limit, or linear from 10 KB to 100 KB`, { timeout: 120_000 }, () => {
      const large = cost(make(100_000));
      if (large instanceof LimitExceededError) {
        expect(large.status).toBe(400);
        expect(large.message).toMatch(/\(MARKDOWN_MAX_[A-Z_]+\)/);
        return;
      }
      const small = cost(make(10_000));
      expect(small, `10 KB refused (${small instanceof Error ? small.message : ''}) but 100 KB converts`).not.toBeInstanceOf(LimitExceededError);
      const ratio = large / Math.max(small as number, FLOOR_MS);
      expect(ratio, `10 KB: ${(small as number).toFixed(1)} ms, 100 KB: ${large.toFixed(1)} ms of CPU`).toBeLessThan(MAX_RATIO);
      expect(large).toBeLessThan(MAX_100KB_MS);
    });
  }
});
