import { afterAll, describe, expect, it } from 'vitest';
import { createConversions } from '../src/content/conversions.ts';
import { DEFAULT_MARKDOWN_LIMITS } from '../src/content/document/markdown-limits.ts';
import { createWorkerPool } from '../src/worker-pool.ts';

describe('worker pool', () => {
  const pool = createWorkerPool({ threads: 1, maxQueue: 4, taskTimeoutMs: 5000 });
  const conversions = createConversions({ pool, limits: DEFAULT_MARKDOWN_LIMITS, storage: { dir: '/tmp/x' } });
  afterAll(() => pool.close());
  it('converts on a thread under vitest', async () => {
    const { title } = await conversions.markdownToDocument('# Hello\n\ntext');
    expect(title).toBe('Hello');
    expect(pool.threads).toBe(1);
  });
});
