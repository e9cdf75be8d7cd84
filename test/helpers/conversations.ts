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
