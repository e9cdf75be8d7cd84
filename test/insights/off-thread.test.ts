/**
 * The engine on the worker pool (TypeScript threads under vitest) answers as
 * it does on the caller's thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractConversationIssues, placeIssues, processConversationBatch } from '../../src/insights/batch.ts';
import { describeCluster } from '../../src/insights/describe.ts';
import { describeClustersOffThread, extractIssuesOffThread, placeIssuesOffThread } from '../../src/insights/off-thread.ts';
import type { Conversation } from '../../src/insights/types.ts';
import { emptyCorpus } from '../../src/insights/vectors.ts';
import { createWorkerPool, type WorkerPool } from '../../src/worker-pool.ts';

const conversations: Conversation[] = [
  {
    id: 'one',
    subject: 'Webhook retries',
    parts: [
      { type: 'message', role: 'user', body: 'How often are webhook deliveries retried? The webhooks page does not say.' },
      { type: 'message', role: 'team-member', body: 'Up to 12 times over 3 days. You are right, the docs should explain the retry schedule; I have asked for it.' },
    ],
  },
  {
    id: 'two',
    parts: [
      { type: 'message', role: 'user', body: '<p>What is the header for the API key?</p>' },
      { type: 'message', role: 'assistant', body: '<p>Use <code>Authorization: Bearer</code>, as the Authentication page shows.</p>' },
      { type: 'message', role: 'user', body: '<p>works, thanks</p>' },
    ],
  },
];

let workers: WorkerPool;
beforeAll(() => {
  workers = createWorkerPool({ threads: 1, maxQueue: 4, taskTimeoutMs: 60_000 });
});
afterAll(async () => {
  await workers.close();
});

describe('insights off the caller thread', () => {
  it('processes a batch and describes clusters as on the caller thread', async () => {
    const input = { conversations, clusters: [], corpus: emptyCorpus() };
    const perConversation = await extractIssuesOffThread(workers, conversations);
    expect(workers.threads).toBe(1);
    expect(perConversation).toEqual(extractConversationIssues(conversations));
    const embeddings = { model: 'm', similarity: 0.5, vectors: perConversation.flatMap((c) => c.issues.map(() => [1, 0.5, 0.25])) };
    expect(await placeIssuesOffThread(workers, { perConversation, clusters: [], corpus: input.corpus, embeddings })).toEqual(placeIssues({ perConversation, clusters: [], corpus: input.corpus, embeddings }));
    const result = await placeIssuesOffThread(workers, { perConversation, clusters: [], corpus: input.corpus });
    expect(result).toEqual(processConversationBatch(input));
    expect(result.perConversation.map(({ key, issues }) => [key, issues.length])).toEqual([
      ['one', 1],
      ['two', 0],
    ]);
    const issues = result.perConversation.flatMap(({ issues }) => issues);
    expect(await describeClustersOffThread(workers, { clusters: [issues], corpus: result.corpus })).toEqual([describeCluster(issues, result.corpus)]);
  });
});
