/**
 * Support conversations for the docs insights tests: some of the labelled set's
 * (test/insights/fixtures/conversations/, written by people) as a tool would ingest them, and a
 * wait for their processing.
 */
import { loadLabelledSet, type LabelledConversation } from '../insights/labelled-set.ts';
import type { TestServer } from './server.ts';

/** An ingest body's conversation (ConversationInput, with its source) of a labelled one. */
export function ingestBody(conversation: LabelledConversation) {
  const { source } = conversation as LabelledConversation & { source: string };
  return {
    id: conversation.id,
    source,
    ...(conversation.subject ? { subject: conversation.subject } : {}),
    parts: conversation.parts,
    metadata: { ...(conversation.metadata ?? {}), createdAt: conversation.createdAt },
  };
}

/** The labelled conversations of `topics`, `perTopic` of each (those with a documentation issue, or without). */
export function labelledConversations(topics: readonly string[], perTopic: number, hasDocIssue = true) {
  const { conversations } = loadLabelledSet(topics);
  return topics.flatMap((topic) => conversations.filter((c) => c.label.topic === topic && c.label.hasDocIssue === hasDocIssue).slice(0, perTopic));
}

/** Waits until every conversation of the organization was read (processedAt set). */
export async function waitForConversations(server: TestServer, token: string, organizationId: string, timeoutMs = 60_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    const { body } = await server.graphql(
      `query($org: ID!) { organization(id: $org) { conversations(limit: 1000) { items { processedAt } } } }`,
      { token, variables: { org: organizationId } },
    );
    const items = body.data?.organization?.conversations?.items as { processedAt: string | null }[] | undefined;
    if (!items) throw new Error(`Listing conversations failed: ${JSON.stringify(body.errors)}`);
    if (items.every((c) => c.processedAt !== null)) return;
    if (Date.now() - started > timeoutMs) throw new Error(`${items.filter((c) => !c.processedAt).length} conversations were not read in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A REST GET of the organization's insights that must answer 200; its body. */
async function getOk(server: TestServer, token: string, path: string): Promise<any> {
  const res = await server.request('GET', path, { token });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Ingests `conversations` through GraphQL and waits for the job reading them to end; its result. */
export async function ingestAndRead(server: TestServer, token: string, organizationId: string, conversations: LabelledConversation[]): Promise<any> {
  const { body } = await server.graphql(`mutation($org: ID!, $input: [ConversationInput!]!) { ingestConversations(organizationId: $org, input: $input) { processingJob } }`, {
    token,
    variables: { org: organizationId, input: conversations.map(ingestBody) },
  });
  if (body.errors) throw new Error(`Ingesting failed: ${JSON.stringify(body.errors)}`);
  const jobId = body.data.ingestConversations.processingJob as string;
  await waitForConversations(server, token, organizationId);
  for (;;) {
    const { body: read } = await server.graphql(`query($id: ID!) { job(id: $id) { state result } }`, { token, variables: { id: jobId } });
    const job = read.data?.job;
    if (!job) throw new Error(`Reading the job failed: ${JSON.stringify(read.errors)}`);
    if (job.state === 'succeeded') return job.result;
    if (job.state === 'failed' || job.state === 'cancelled') throw new Error(`The job ended ${job.state}: ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The issues (REST) of each of `conversations` (labelled ones, found by their first message), by labelled id. */
export async function issuesOf(server: TestServer, token: string, organizationId: string, conversations: LabelledConversation[]): Promise<Map<string, any[]>> {
  const base = `/v1/orgs/${organizationId}`;
  const listed = await getOk(server, token, `${base}/conversations?limit=100`);
  const out = new Map<string, any[]>();
  for (const item of listed.items) {
    const detail = await getOk(server, token, `${base}/conversations/${item.id}`);
    const labelled = conversations.find((c) => c.parts[0]!.body === detail.parts[0].body);
    if (labelled) out.set(labelled.id, (await getOk(server, token, `${base}/conversations-issues?conversation=${item.id}`)).items.map((i: any) => i.issue));
  }
  return out;
}
