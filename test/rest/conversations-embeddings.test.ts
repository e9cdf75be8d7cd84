/**
 * Docs insights placing issues by the model engine's embeddings (INSIGHTS_EMBEDDING_MODEL) over
 * real HTTP: the local stand-in (test/insights/model-stand-in.ts) embeds each issue in one of two
 * directions that cut across the conversations' topics, so clusters that follow those directions
 * can only come from the embeddings; the clusters' embedding centroids are stored, so the next
 * job's issues join them; when embedding fails, the round's issues are placed by their terms among
 * the same clusters, nothing lost, and the job's result says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestAndRead, issuesOf, labelledConversations } from '../helpers/conversations.ts';
import { startTestServer, type TestServer, type TestUser } from '../helpers/server.ts';
import { adjustedRandIndex } from '../insights/adjusted-rand-index.ts';
import { groupEmbedding, startModelStandIn, type ModelStandIn } from '../insights/model-stand-in.ts';

let standIn: ModelStandIn;
let server: TestServer;
let ada: TestUser;
let org: string;

const topics = ['webhooks', 'custom-domains', 'rate-limits'];
const all = labelledConversations(topics, 6);
// Two groups across the three topics: even and odd positions in `all`.
const groupOf = (index: number) => index % 2;
const first = all.filter((_, i) => i < 12);
const later = all.filter((_, i) => i >= 12 && i < 16);
const whileFailing = all.filter((_, i) => i >= 16);

beforeAll(async () => {
  standIn = await startModelStandIn();
  standIn.embedText = groupEmbedding(all, groupOf, 2);
  server = await startTestServer({
    INSIGHTS_PROVIDER: 'openai',
    INSIGHTS_URL: standIn.url,
    INSIGHTS_MODEL: 'stand-in-model',
    INSIGHTS_EMBEDDING_MODEL: 'stand-in-embedding',
    INSIGHTS_RETRIES: '1',
  });
  ada = await server.createUser('Ada');
  org = await server.createOrg(ada);
});
afterAll(async () => {
  await server?.close();
  await standIn?.close();
});

/** Each labelled conversation's cluster id (its one issue's), in the order of `conversations`. */
async function clustersOf(conversations: typeof all): Promise<string[]> {
  const issues = await issuesOf(server, ada.token, org, conversations);
  return conversations.map((c) => {
    const found = issues.get(c.id);
    expect(found, `issues of ${c.id}`).toHaveLength(1);
    return found![0].cluster as string;
  });
}

describe('Docs insights placing issues by embeddings', () => {
  it('clusters by the embeddings, and the next job’s issues join the stored clusters', async () => {
    const result = await ingestAndRead(server, ada.token, org, first);
    expect(result).toMatchObject({ conversations: first.length, rounds: [{ engine: 'model', embeddings: true }], fallbacks: 0, embeddingFallbacks: 0 });
    const clusters = await clustersOf(first);
    expect(adjustedRandIndex(clusters, first.map((_, i) => String(groupOf(i))))).toBe(1);
    expect(new Set(clusters).size).toBe(2);
    const embedded = standIn.requests.filter((r) => r.kind === 'embed');
    expect(embedded.length).toBeGreaterThan(0);
    expect(embedded.every((r) => r.model === 'stand-in-embedding' && r.outcome === 'answered')).toBe(true);

    const next = await ingestAndRead(server, ada.token, org, later);
    expect(next).toMatchObject({ rounds: [{ embeddings: true }], clustersCreated: 0 });
    const laterClusters = await clustersOf(later);
    // Each joined the cluster of its group, read back from the stored embedding centroids.
    later.forEach((_, i) => expect(laterClusters[i]).toBe(clusters[groupOf(12 + i) === groupOf(0) ? 0 : 1]));
  });

  it('places the issues by terms among the same clusters while embedding fails', async () => {
    standIn.failAlways('status-500', 'embed');
    const before = (await server.request('GET', `/v1/orgs/${org}/conversations-clusters`, { token: ada.token })).body.items.length;
    const result = await ingestAndRead(server, ada.token, org, whileFailing);
    expect(result).toMatchObject({ conversations: whileFailing.length, rounds: [{ engine: 'model', embeddings: false }], fallbacks: 0, embeddingFallbacks: 1 });
    const issues = await issuesOf(server, ada.token, org, whileFailing);
    expect([...issues.values()].flat()).toHaveLength(whileFailing.length);
    const after = (await server.request('GET', `/v1/orgs/${org}/conversations-clusters`, { token: ada.token })).body;
    expect(after.items.reduce((sum: number, c: any) => sum + c.stats.issues, 0)).toBe(all.length);
    // By terms they may start clusters of their own; they do not each start one.
    expect(after.items.length - before).toBeLessThan(whileFailing.length);
    standIn.failAlways(null);
  });
});
