/**
 * Docs insights in the resource graph: an organization's issue clusters with their issues and each
 * issue's conversation, their weekly pulse, sources and stats, in one GraphQL request: a fixed
 * number of SQL statements whatever the number of clusters and issues.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { useTestServer } from '../helpers/server.ts';

const { server, counter } = useTestServer({ users: ['Counter'] });
const DAY = 24 * 3600_000;

/** An organization with `clusters` clusters of `issues` issues each, one conversation per issue, written as processing writes them. */
async function seedOrganization(clusters: number, issues: number): Promise<string> {
  const org = await server.createOrg(counter, `Org of ${clusters}x${issues}`);
  const document = { object: 'document', data: {}, nodes: [] };
  for (let c = 0; c < clusters; c++) {
    const clusterId = newId();
    await server.app.db.issuesCluster.create({
      data: { id: clusterId, organizationId: org, label: `Theme ${c}`, icon: 'key', summary: document, impact: 'medium', centroid: { key: 1 }, issueCount: issues, conversationCount: issues },
    });
    const conversations = Array.from({ length: issues }, (_, i) => ({
      id: newId(),
      organizationId: org,
      source: i % 2 ? 'email' : 'integration:intercom:inbox',
      externalId: `${c}-${i}`,
      parts: [{ type: 'message', role: 'user', body: `Question ${i}` }],
      contentHash: `${c}-${i}`,
      createdAt: new Date(Date.now() - (i % 90) * DAY),
      processedAt: new Date(),
      impact: 'medium',
    }));
    await server.app.db.conversation.createMany({ data: conversations });
    await server.app.db.conversationIssue.createMany({
      data: conversations.map((conversation, i) => ({
        id: newId(),
        organizationId: org,
        conversationId: conversation.id,
        clusterId,
        title: `Issue ${i}`,
        details: document,
        summary: `Issue ${i}`,
        impact: 'medium',
        terms: { key: 1 },
        createdAt: conversation.createdAt,
      })),
    });
  }
  return org;
}

const query = `query($id: ID!) {
  organization(id: $id) {
    issueClusters(limit: 100) {
      count
      items {
        id label impact muted weeklyPulse sources
        stats { issues conversations tasksTotal tasksBacklog }
        issues(limit: 100) { id title impact conversation { id source subject impact parts { role body } } }
      }
    }
  }
}`;

describe('Docs insights in the resource graph', () => {
  it('costs the same statements for 20 clusters of 50 issues as for 3 of 2', async () => {
    const small = await seedOrganization(3, 2);
    const large = await seedOrganization(20, 50);
    const run = async (org: string) => {
      const res = await server.graphql(query, { token: counter.token, variables: { id: org } });
      expect(res.body.errors).toBeUndefined();
      return res.body.data.organization.issueClusters.items as { weeklyPulse: number[]; sources: Record<string, number>; stats: { issues: number }; issues: { conversation: { id: string } }[] }[];
    };
    await run(small); // warm-up: the seeding made the process forget the caller
    const { statements: forSmall, result: smallItems } = await server.countStatements(() => run(small));
    const { statements: forLarge, result: largeItems } = await server.countStatements(() => run(large));
    expect(smallItems).toHaveLength(3);
    expect(largeItems).toHaveLength(20);
    for (const cluster of largeItems) {
      expect(cluster.issues).toHaveLength(50);
      expect(cluster.issues.every((issue) => issue.conversation.id)).toBe(true);
      expect(cluster.sources).toEqual({ email: 25, 'integration:intercom:inbox': 25 });
      // Conversations of the past 13 weeks, one a day back to 49 days: all in the pulse.
      expect(cluster.weeklyPulse).toHaveLength(13);
      expect(cluster.weeklyPulse.reduce((a, b) => a + b, 0)).toBe(50);
      expect(cluster.stats.issues).toBe(50);
    }
    expect(forLarge).toBe(forSmall);
    console.log(`statements for 20 clusters x 50 issues with their conversations: ${forLarge}`);
  });
});
