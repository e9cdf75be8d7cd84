/**
 * Docs insights with the optional model engine over real HTTP: a server configured with
 * INSIGHTS_PROVIDER=openai and a local OpenAI-compatible stand-in (test/insights/model-stand-in.ts)
 * reads ingested conversations with the stand-in's answers (issue titles, cluster labels and
 * summaries); when the stand-in fails, the next conversations are still read, by the default
 * engine, and the job's result says so; once it answers again, the model reads again; clusters it
 * fails to name keep the default engine's description.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestAndRead, issuesOf, labelledConversations } from '../helpers/conversations.ts';
import { startTestServer, type TestServer, type TestUser } from '../helpers/server.ts';
import { MARK, startModelStandIn, type ModelStandIn } from '../insights/model-stand-in.ts';

let standIn: ModelStandIn;
let server: TestServer;
let ada: TestUser;
let org: string;

beforeAll(async () => {
  standIn = await startModelStandIn();
  server = await startTestServer({ INSIGHTS_PROVIDER: 'openai', INSIGHTS_URL: standIn.url, INSIGHTS_API_KEY: 'sk-stand-in', INSIGHTS_MODEL: 'stand-in-model', INSIGHTS_RETRIES: '1' });
  ada = await server.createUser('Ada');
  org = await server.createOrg(ada);
});
afterAll(async () => {
  await server?.close();
  await standIn?.close();
});

const base = () => `/v1/orgs/${org}`;

async function get(path: string) {
  const res = await server.request('GET', path, { token: ada.token });
  expect(res.status, `GET ${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

/** The stand-in titles an issue with the conversation's subject (or its first words), after its mark. */
function expectModelTitle(title: string, conversation: { subject?: string | null }) {
  if (conversation.subject) expect(title).toBe(`${MARK}${conversation.subject}`);
  else expect(title.startsWith(MARK)).toBe(true);
}

const first = [...labelledConversations(['webhooks'], 3), ...labelledConversations(['custom-domains'], 3)];
const whileFailing = labelledConversations(['rate-limits'], 2);
const afterwards = labelledConversations(['pagination'], 2);
const unnamed = labelledConversations(['sso-saml'], 2);

describe('Docs insights with the model engine', () => {
  it('reads conversations with the model: its issues, its cluster labels and summaries', async () => {
    const result = await ingestAndRead(server, ada.token, org, first);

    expect(result).toMatchObject({ conversations: first.length, issues: first.length, rounds: [{ conversations: first.length, engine: 'model' }], fallbacks: 0 });
    expect(result.clustersNamedByModel).toBe(result.clustersDescribed);
    const issues = await issuesOf(server, ada.token, org, first);
    expect(issues.size).toBe(first.length);
    for (const conversation of first) {
      const [issue, ...more] = issues.get(conversation.id)!;
      expect(more).toEqual([]);
      expectModelTitle(issue.title, conversation);
    }
    const clusters = (await get(`${base()}/conversations-clusters`)).items;
    expect(clusters.length).toBeGreaterThan(0);
    for (const cluster of clusters) {
      expect(cluster.label).toMatch(/^Model label: /);
      expect(JSON.stringify(cluster.summary)).toContain(`Model summary of ${cluster.stats.issues} issues.`);
      expect(cluster.icon).toEqual(expect.any(String)); // the default engine's rules
    }
    expect(clusters.reduce((sum: number, c: any) => sum + c.stats.issues, 0)).toBe(first.length);
    expect(standIn.requests.every((r) => r.authorization === 'Bearer sk-stand-in' && r.model === 'stand-in-model' && r.outcome === 'answered')).toBe(true);
  });

  it('reads the next conversations with the default engine while the model fails', async () => {
    standIn.failAlways('status-500');
    const before = standIn.requests.length;
    const result = await ingestAndRead(server, ada.token, org, whileFailing);

    expect(result).toMatchObject({ conversations: whileFailing.length, rounds: [{ conversations: whileFailing.length, engine: 'default' }], fallbacks: 1, clustersNamedByModel: 0 });
    // The round's request and its one retry (INSIGHTS_RETRIES=1), then nothing more asked of the model in that job.
    expect(standIn.requests.slice(before).map((r) => r.outcome)).toEqual(['status-500', 'status-500']);
    const issues = await issuesOf(server, ada.token, org, whileFailing);
    expect(issues.size).toBe(whileFailing.length);
    const titles = [...issues.values()].flat().map((issue) => issue.title as string);
    expect(titles.length).toBeGreaterThan(0);
    for (const title of titles) expect(title.startsWith(MARK)).toBe(false);
  });

  it('asks the model again in the next job once it answers', async () => {
    standIn.failAlways(null);
    const result = await ingestAndRead(server, ada.token, org, afterwards);
    expect(result).toMatchObject({ conversations: afterwards.length, rounds: [{ engine: 'model' }], fallbacks: 0 });
    const issues = await issuesOf(server, ada.token, org, afterwards);
    for (const conversation of afterwards) {
      expect(issues.get(conversation.id)).toHaveLength(1);
      expectModelTitle(issues.get(conversation.id)![0].title, conversation);
    }
  });

  it('keeps the default description of clusters the model fails to name', async () => {
    standIn.failAlways('wrong-shape', 'describe');
    const result = await ingestAndRead(server, ada.token, org, unnamed);
    expect(result).toMatchObject({ conversations: unnamed.length, rounds: [{ engine: 'model' }], fallbacks: 0, clustersNamedByModel: 0 });
    expect(result.clustersDescribed).toBeGreaterThan(0);
    const issues = await issuesOf(server, ada.token, org, unnamed);
    const clusterIds = new Set([...issues.values()].flat().map((issue) => issue.cluster as string));
    for (const id of clusterIds) expect((await get(`${base()}/conversations-clusters/${id}`)).label).not.toMatch(/^Model label: /);
  });
});
