/**
 * The worker pool (src/worker-pool.ts) under vitest, whose worker modules are
 * TypeScript: threads start with the first task, a task past its deadline
 * fails with a 400 naming the setting and its thread is replaced, the deadline
 * counts from when a thread takes the task, a full queue answers 503, a
 * task's input errors come back as themselves, and close() stops everything.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { markdownToDocumentTask } from '../src/content/conversion-worker.ts';
import { DEFAULT_MARKDOWN_LIMITS } from '../src/content/document/markdown-limits.ts';
import { InvalidInputError, LimitExceededError, ServiceUnavailableError } from '../src/errors/index.ts';
import { createWorkerPool, taskRef, workerModule, type WorkerPool, type WorkerPoolConfig } from '../src/worker-pool.ts';

const CONVERT = taskRef<typeof markdownToDocumentTask>(workerModule(new URL('../src/content/conversions.ts', import.meta.url).href, 'conversion-worker'), 'markdownToDocumentTask');
/** About 75 KB of ordinary Markdown: a few hundred milliseconds of work. */
const LONG = 'Lorem *ipsum* dolor [sit](./x.md) amet `code`, consectetur.\n\n'.repeat(1_200);

const pools: WorkerPool[] = [];
function pool(config: Partial<WorkerPoolConfig> = {}): WorkerPool {
  const created = createWorkerPool({ threads: 1, maxQueue: 8, taskTimeoutMs: 60_000, ...config });
  pools.push(created);
  return created;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

const convert = (workers: WorkerPool, markdown: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
  workers.run(CONVERT, { markdown, hrefs: null, limits: DEFAULT_MARKDOWN_LIMITS }, { what: 'Converting the Markdown', ...options });

describe('worker pool', () => {
  it('starts its first thread with its first task, and runs a TypeScript worker module', async () => {
    const workers = pool({ threads: 2 });
    expect(workers.threads).toBe(0);
    const { title, document } = await convert(workers, '# Hello\n\nSome *text*');
    expect(title).toBe('Hello');
    expect(document.nodes[0]!.type).toBe('paragraph');
    expect(workers.threads).toBeGreaterThanOrEqual(1);
    expect(workers.threads).toBeLessThanOrEqual(2);
  });

  it('fails a task past its deadline with a 400 naming the setting, then runs the next one on a new thread', async () => {
    const workers = pool();
    await convert(workers, 'warm');
    const started = Date.now();
    const error = await convert(workers, LONG, { timeoutMs: 20 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LimitExceededError);
    expect((error as LimitExceededError).status).toBe(400);
    expect((error as LimitExceededError).message).toBe('Converting the Markdown took longer than 20 ms (WORKER_TASK_TIMEOUT_MS)');
    // Stopped, not left to finish.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await convert(workers, '# Again')).title).toBe('Again');
  });

  it('counts the deadline from when a thread takes the task, not while it waits', async () => {
    const workers = pool({ threads: 1 });
    await convert(workers, 'warm');
    const long = convert(workers, LONG);
    // Waits behind the long one for longer than its own deadline, then runs well within it.
    const short = convert(workers, '# Short', { timeoutMs: 100 });
    const [a, b] = await Promise.all([long, short]);
    expect(a.document.nodes).toHaveLength(1_200);
    expect(b.title).toBe('Short');
  });

  it('answers 503 with Retry-After past its threads and queue', async () => {
    const workers = pool({ threads: 1, maxQueue: 1 });
    // Counted as they are submitted: the third and fourth are refused at once.
    const results = await Promise.allSettled(['# 1', '# 2', '# 3', '# 4'].map((markdown) => convert(workers, markdown)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected']);
    for (const result of results.slice(2)) {
      const error = (result as PromiseRejectedResult).reason;
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect(error.status).toBe(503);
      expect(error.headers['Retry-After']).toBe('5');
      expect(error.message).toBe('Too many conversions are waiting (1, WORKER_MAX_QUEUE); try again shortly');
    }
    // Room again once they finished.
    expect((await convert(workers, '# Next')).title).toBe('Next');
  });

  it('gives back the input errors of a task as they were thrown', async () => {
    const workers = pool();
    const error = await convert(workers, '*a'.repeat(5_000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LimitExceededError);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as LimitExceededError).setting).toBe('MARKDOWN_MAX_INLINE_DELIMITERS');
    expect((error as LimitExceededError).message).toMatch(/^at most 500 inline delimiters/);
  });

  it("stops a task when the caller's signal aborts, with the signal's reason", async () => {
    const workers = pool();
    await convert(workers, 'warm');
    const controller = new AbortController();
    const running = convert(workers, LONG, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('cancelled')), 10);
    await expect(running).rejects.toThrow('cancelled');
    expect((await convert(workers, '# After')).title).toBe('After');
  });

  it('stops its threads on close, and refuses tasks after', async () => {
    const workers = pool({ threads: 2 });
    await Promise.all([convert(workers, 'a'), convert(workers, 'b')]);
    expect(workers.threads).toBeGreaterThanOrEqual(1);
    await workers.close();
    expect(workers.threads).toBe(0);
    await expect(convert(workers, 'c')).rejects.toBeInstanceOf(ServiceUnavailableError);
  });
});
