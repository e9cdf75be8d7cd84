/**
 * Docs insights with the optional model engine over real HTTP: a server configured with
 * INSIGHTS_PROVIDER=openai and a local OpenAI-compatible stand-in (test/insights/model-stand-in.ts)
 * reads ingested conversations with the stand-in's answers (issue titles, cluster labels and
 * summaries); when the stand-in fails, the next conversations are still read, by the default
 * engine, and the job's result says so; once it answers again, the model reads again; clusters it
 * fails to name keep the default engine's description.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestBody, labelledConversations, waitForConversations } from '../helpers/conversations.ts';
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

/** Ingests `conversations` and waits for the job reading them to end; its result. */
async function ingestAndRead(conversations: ReturnType<typeof labelledConversations>): Promise<any> {
  const { body } = await server.graphql(`mutation($org: ID!, $input: [ConversationInput!]!) { ingestConversations(organizationId: $org, input: $input) { processingJob } }`, {
    token: ada.token,
    variables: { org, input: conversations.map(ingestBody) },
  });
  expect(body.errors).toBeUndefined();
  const jobId = body.data.ingestConversations.processingJob as string;
  await waitForConversations(server, ada.token, org);
  for (;;) {
    const { body: read } = await server.graphql(`query($id: ID!) { job(id: $id) { state result } }`, { token: ada.token, variables: { id: jobId } });
    const job = read.data?.job;
    if (!job) throw new Error(`Reading the job failed: ${JSON.stringify(read.errors)}`);
    if (job.state === 'succeeded') return job.result;
    if (job.state === 'failed' || job.state === 'cancelled') throw new Error(`The job ended ${job.state}: ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The issues of each of `conversations` (labelled ones, found by their first message), by labelled id. */
async function issuesOf(conversations: ReturnType<typeof labelledConversations>): Promise<Map<string, any[]>> {
  const listed = await get(`${base()}/conversations`);
  const out = new Map<string, any[]>();
  for (const item of listed.items) {
    const detail = await get(`${base()}/conversations/${item.id}`);
    const labelled = conversations.find((c) => c.parts[0]!.body === detail.parts[0].body);
    if (labelled) out.set(labelled.id, (await get(`${base()}/conversations-issues?conversation=${item.id}`)).items.map((i: any) => i.issue));
  }
  return out;
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
    const result = await ingestAndRead(first);

    expect(result).toMatchObject({ conversations: first.length, issues: first.length, rounds: [{ conversations: first.length, engine: 'model' }], fallbacks: 0 });
    expect(result.clustersNamedByModel).toBe(result.clustersDescribed);
    const issues = await issuesOf(first);
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
    const result = await ingestAndRead(whileFailing);

    expect(result).toMatchObject({ conversations: whileFailing.length, rounds: [{ conversations: whileFailing.length, engine: 'default' }], fallbacks: 1, clustersNamedByModel: 0 });
    // The round's request and its one retry (INSIGHTS_RETRIES=1), then nothing more asked of the model in that job.
    expect(standIn.requests.slice(before).map((r) => r.outcome)).toEqual(['status-500', 'status-500']);
    const issues = await issuesOf(whileFailing);
    expect(issues.size).toBe(whileFailing.length);
    const titles = [...issues.values()].flat().map((issue) => issue.title as string);
    expect(titles.length).toBeGreaterThan(0);
    for (const title of titles) expect(title.startsWith(MARK)).toBe(false);
  });

  it('asks the model again in the next job once it answers', async () => {
    standIn.failAlways(null);
    const result = await ingestAndRead(afterwards);
    expect(result).toMatchObject({ conversations: afterwards.length, rounds: [{ engine: 'model' }], fallbacks: 0 });
    const issues = await issuesOf(afterwards);
    for (const conversation of afterwards) {
      expect(issues.get(conversation.id)).toHaveLength(1);
      expectModelTitle(issues.get(conversation.id)![0].title, conversation);
    }
  });

  it('keeps the default description of clusters the model fails to name', async () => {
    standIn.failAlways('wrong-shape', 'describe');
    const result = await ingestAndRead(unnamed);
    expect(result).toMatchObject({ conversations: unnamed.length, rounds: [{ engine: 'model' }], fallbacks: 0, clustersNamedByModel: 0 });
    expect(result.clustersDescribed).toBeGreaterThan(0);
    const issues = await issuesOf(unnamed);
    const clusterIds = new Set([...issues.values()].flat().map((issue) => issue.cluster as string));
    for (const id of clusterIds) expect((await get(`${base()}/conversations-clusters/${id}`)).label).not.toMatch(/^Model label: /);
  });
});
