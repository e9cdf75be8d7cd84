/**
 * Docs insights over real HTTP, as a support tool and a documentation team use them: conversations
 * of the labelled set (written by people) ingested one at a time and as an array, read by the
 * processing job (followed over graphql-ws), their issues and clusters listed and read, a cluster
 * muted, a change request opened from one and found by the cluster filter; ingesting again
 * updates and never duplicates; bad input refused with nothing written; members without the role
 * and other organizations see nothing. Every body is validated against @gitbook/api, and the same
 * calls go through GitBook's TypeScript client.
 */
import { GitBookAPI } from '@gitbook/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { ingestBody, labelledConversations, waitForConversations } from '../helpers/conversations.ts';
import { follow, useWsClients } from '../helpers/graphql-ws.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { databaseFingerprint } from '../helpers/rest-fixture.ts';
import { expectError, startTestServer, useTestServer } from '../helpers/server.ts';

const { server, ada, eddie, rita, bob } = useTestServer({ users: ['Ada', 'Eddie', 'Rita', 'Bob'] }); // admin, editor, reader, another organization
const wsClient = useWsClients(() => server.baseUrl);
let org: string;
let bobOrg: string;

beforeAll(async () => {
  org = await server.createOrg(ada);
  await server.addMember(org, eddie, 'edit');
  await server.addMember(org, rita, 'read');
  bobOrg = await server.createOrg(bob, 'Bob org');
});

const base = () => `/v1/orgs/${org}`;

async function ok(method: string, path: string, body?: unknown, token = ada.token) {
  const res = await server.request(method, path, { token, body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res;
}

/**
 * A cluster against the contract: api.md makes its `summary` a Document where 0.146.0 has a string
 * (docs/decisions.md, "Conversation insights"), so the rest is validated with the summary's text.
 */
function assertClusterMatches(operationId: string, body: any) {
  const asText = (cluster: any) => {
    expect(cluster.summary).toMatchObject({ object: 'document', nodes: expect.any(Array) });
    return { ...cluster, summary: JSON.stringify(cluster.summary) };
  };
  assertMatchesSpec(operationId, 200, Array.isArray(body.items) ? { ...body, items: body.items.map(asText) } : asText(body));
}

const signatures = labelledConversations(['webhooks'], 3); // webhooks-001..003: the signature header
const domains = labelledConversations(['custom-domains'], 4); // custom-domains-001..004: DNS records
const answered = labelledConversations(['webhooks'], 2, false); // no documentation issue

describe('Docs insights', () => {
  let signatureCluster: string;
  let domainCluster: string;

  it('ingests conversations (one, then an array: 204), reads them in a job followed over graphql-ws, and clusters their issues', async () => {
    const one = await server.request('POST', `${base()}/conversations`, { token: ada.token, body: ingestBody(signatures[0]!) });
    expect(one.status, JSON.stringify(one.body)).toBe(204);
    expect(one.body).toBeNull();

    // The rest through GraphQL, which names the job reading them.
    const rest = [...signatures.slice(1), ...domains, ...answered].map(ingestBody);
    const { body } = await server.graphql(`mutation($org: ID!, $input: [ConversationInput!]!) { ingestConversations(organizationId: $org, input: $input) { conversations processingJob } }`, {
      token: ada.token,
      variables: { org, input: rest },
    });
    expect(body.errors).toBeUndefined();
    expect(body.data.ingestConversations.conversations).toBe(rest.length);
    const followed = follow(wsClient(ada.token), 'subscription($id: ID!) { jobUpdated(id: $id, after: 0) { kind state result } }', { id: body.data.ingestConversations.processingJob }, 'jobUpdated');
    await followed.ended;
    expect(followed.errors).toEqual([]);
    expect(followed.events.at(-1)).toMatchObject({ kind: 'CONVERSATION_PROCESSING', state: 'succeeded' });
    await waitForConversations(server, ada.token, org);

    const conversations = (await ok('GET', `${base()}/conversations`)).body;
    assertMatchesSpec('listConversations', 200, conversations);
    expect(conversations.count).toBe(9);
    const bySourceId = new Map<string, any>();
    for (const c of conversations.items) {
      const detail = (await ok('GET', `${base()}/conversations/${c.id}`)).body;
      assertMatchesSpec('getConversationById', 200, detail);
      bySourceId.set(detail.conversation.id, detail);
    }
    const first = [...bySourceId.values()].find((d) => d.parts[0].body === signatures[0]!.parts[0]!.body)!;
    expect(first.parts).toEqual(signatures[0]!.parts);
    expect(first.metadata.createdAt).toBe(new Date(signatures[0]!.createdAt).toISOString());
    expect(first.conversation).toMatchObject({ object: 'conversation', source: (signatures[0] as any).source, impact: 'medium' });
    expect(first.conversation.processedAt).toBeTruthy();

    const clusters = (await ok('GET', `${base()}/conversations-clusters`)).body;
    assertClusterMatches('listConversationsIssuesClusters', clusters);
    expect(clusters.items).toHaveLength(2);
    const bySize = [...clusters.items].sort((a: any, b: any) => a.stats.issues - b.stats.issues);
    [signatureCluster, domainCluster] = bySize.map((c: any) => c.id);
    expect(bySize.map((c: any) => [c.stats.issues, c.stats.conversations, c.stats.tasksTotal])).toEqual([
      [3, 3, 0],
      [4, 4, 0],
    ]);
    for (const cluster of clusters.items) {
      expect(cluster).toMatchObject({ object: 'issues-cluster', muted: false, urls: { location: `${server.app.config.publicUrl}/v1/orgs/${org}/conversations-clusters/${cluster.id}` } });
      expect(cluster.label.length).toBeGreaterThan(0);
      expect(cluster.summary).toMatchObject({ object: 'document' });
      expect(cluster.weeklyPulse).toHaveLength(13);
      expect(Object.values(cluster.sources as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(cluster.stats.issues);
    }
    const one3 = (await ok('GET', `${base()}/conversations-clusters/${signatureCluster}`)).body;
    assertClusterMatches('getConversationsIssuesCluster', one3);

    const issues = (await ok('GET', `${base()}/conversations-issues?cluster=${signatureCluster}`)).body;
    assertMatchesSpec('listConversationsIssues', 200, issues);
    expect(issues.items).toHaveLength(3);
    expect(new Set(issues.items.map((i: any) => i.issue.conversation))).toEqual(new Set(issues.items.map((i: any) => i.conversation.id)));
    const issue = issues.items[0].issue;
    expect(issue).toMatchObject({ object: 'conversation-issue', cluster: signatureCluster, details: { object: 'document' } });
    const byId = (await ok('GET', `${base()}/conversations-issues/${issue.id}`)).body;
    assertMatchesSpec('getConversationIssueById', 200, byId);
    expect(byId.issue).toEqual(issue);

    // The answered conversations hold no issue.
    for (const c of answered) {
      const row = conversations.items.find((item: any) => bySourceId.get(item.id)?.parts[0].body === c.parts[0]!.body);
      const theirs = (await ok('GET', `${base()}/conversations-issues?conversation=${row.id}`)).body;
      expect(theirs.items).toEqual([]);
      expect(row.impact).toBeUndefined();
    }
  });

  it('filters conversations by source and orders clusters as asked', async () => {
    const sources = new Set([...signatures, ...domains, ...answered].map((c) => (c as any).source as string));
    for (const source of sources) {
      const list = (await ok('GET', `${base()}/conversations?source=${encodeURIComponent(source)}`)).body;
      expect(list.items.every((c: any) => c.source === source)).toBe(true);
      expect(list.count).toBe([...signatures, ...domains, ...answered].filter((c) => (c as any).source === source).length);
    }
    const byIssues = async (order: string) => (await ok('GET', `${base()}/conversations-clusters?orderBy=issues&order=${order}`)).body.items.map((c: any) => c.id);
    expect(await byIssues('asc')).toEqual([signatureCluster, domainCluster]);
    expect(await byIssues('desc')).toEqual([domainCluster, signatureCluster]);
    expectError(await server.request('GET', `${base()}/conversations-clusters?orderBy=size`, { token: ada.token }), 400);
  });

  it('ingests the same conversation again without duplicating it; a changed one is read again', async () => {
    const before = await databaseFingerprint(server);
    expect((await server.request('POST', `${base()}/conversations`, { token: ada.token, body: [ingestBody(domains[0]!)] })).status).toBe(204);
    await waitForConversations(server, ada.token, org);
    const after = await databaseFingerprint(server);
    expect(after['Conversation.count']).toBe(before['Conversation.count']);
    expect(after['ConversationIssue.count']).toBe(before['ConversationIssue.count']);

    // The same id and source with other messages: its issue is replaced, not added to.
    const changed = { ...ingestBody(domains[0]!), parts: [{ type: 'message', role: 'user', body: 'Thanks, the SPF record works now. All good!' }, { type: 'message', role: 'team-member', body: 'Glad it works.' }] };
    expect((await server.request('POST', `${base()}/conversations`, { token: ada.token, body: changed })).status).toBe(204);
    await waitForConversations(server, ada.token, org);
    expect(await server.app.db.conversation.count({ where: { organizationId: org } })).toBe(9);
    const row = await server.app.db.conversation.findFirstOrThrow({ where: { organizationId: org, externalId: domains[0]!.id } });
    expect(await server.app.db.conversationIssue.count({ where: { conversationId: row.id } })).toBe(0);
    expect((await ok('GET', `${base()}/conversations-clusters/${domainCluster}`)).body.stats).toMatchObject({ issues: 3, conversations: 3 });
  });

  it('opens a change request from a cluster, found by the cluster filter and counted as its task; mutes a cluster (then opens none)', async () => {
    const space = (await server.createSpace(ada, org, { title: 'Guides' })).id;
    const { body } = await server.graphql(
      `mutation($org: ID!, $cluster: String!, $space: ID!) { createChangeRequestFromIssuesCluster(organizationId: $org, clusterId: $cluster, spaceId: $space) { id subject conversationsIssuesCluster description } }`,
      { token: eddie.token, variables: { org, cluster: signatureCluster, space } },
    );
    expect(body.errors).toBeUndefined();
    const cr = body.data.createChangeRequestFromIssuesCluster;
    const cluster = (await ok('GET', `${base()}/conversations-clusters/${signatureCluster}`)).body;
    expect(cr).toMatchObject({ subject: cluster.label, conversationsIssuesCluster: signatureCluster });
    expect(JSON.stringify(cr.description)).toContain('3 issues in 3 conversations');
    expect(cluster.stats).toMatchObject({ tasksTotal: 1, tasksBacklog: 1, tasksStarted: 0 });

    const filtered = (await ok('GET', `/v1/spaces/${space}/change-requests?status=draft&conversationsIssuesCluster=${signatureCluster}`)).body;
    assertMatchesSpec('listChangeRequestsForSpace', 200, filtered);
    expect(filtered.items.map((c: any) => [c.id, c.conversationsIssuesCluster])).toEqual([[cr.id, signatureCluster]]);
    expect((await ok('GET', `/v1/spaces/${space}/change-requests?status=draft&conversationsIssuesCluster=${domainCluster}`)).body.items).toEqual([]);
    expect((await ok('GET', `${base()}/change-requests?status=draft&conversationsIssuesCluster=${signatureCluster}`)).body.items.map((c: any) => c.id)).toEqual([cr.id]);
    expect((await ok('GET', `${base()}/conversations-clusters?status=analysing`)).body.items.map((c: any) => c.id)).toEqual([signatureCluster]);
    expect((await ok('GET', `${base()}/conversations-clusters?status=pending`)).body.items.map((c: any) => c.id)).toEqual([domainCluster]);
    expect((await ok('GET', `${base()}/conversations-clusters?orderBy=tasksBacklog`)).body.items.map((c: any) => c.id)).toEqual([signatureCluster, domainCluster]);

    const muted = (await ok('PATCH', `${base()}/conversations-clusters/${domainCluster}`, { muted: true }, eddie.token)).body;
    assertClusterMatches('getConversationsIssuesCluster', muted);
    expect(muted.muted).toBe(true);
    const refused = await server.graphql(
      `mutation($org: ID!, $cluster: String!, $space: ID!) { createChangeRequestFromIssuesCluster(organizationId: $org, clusterId: $cluster, spaceId: $space) { id } }`,
      { token: eddie.token, variables: { org, cluster: domainCluster, space } },
    );
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    // A muted cluster keeps collecting: the next DNS conversation still joins it.
    expect((await server.request('POST', `${base()}/conversations`, { token: ada.token, body: ingestBody(labelledConversations(['custom-domains'], 5)[4]!) })).status).toBe(204);
    await waitForConversations(server, ada.token, org);
    expect((await ok('GET', `${base()}/conversations-clusters/${domainCluster}`)).body).toMatchObject({ muted: true, stats: { issues: 4 } });
    await ok('PATCH', `${base()}/conversations-clusters/${domainCluster}`, { muted: false }, eddie.token);
  });

  it('refuses bad input with a 400 or 413 and writes nothing; keeps HTML as text', async () => {
    const good = ingestBody(signatures[0]!);
    const before = await databaseFingerprint(server);
    const cases: [unknown, number, RegExp][] = [
      [{ ...good, parts: [{ type: 'note', role: 'user', body: 'x' }] }, 400, /parts\[0\]\.type: must be "message"/],
      [{ ...good, parts: [{ type: 'message', role: 'bot', body: 'x' }] }, 400, /parts\[0\]\.role: must be one of user, assistant, team-member/],
      [{ ...good, id: 'x'.repeat(256) }, 400, /id: must be 1 to 255 characters/],
      [{ ...good, id: '' }, 400, /id: must be 1 to 255 characters/],
      [{ ...good, subject: 's'.repeat(513) }, 400, /subject: at most 512 characters/],
      [{ ...good, source: 'intercom' }, 400, /source: must be "email" or "integration:<name>:<instance>"/],
      [{ ...good, parts: [] }, 400, /parts: at least one message/],
      [{ ...good, parts: [{ type: 'message', role: 'user', body: 'b'.repeat(64 * 1024 + 1) }] }, 413, /parts\[0\]\.body: 65537 bytes, more than the 65536 allowed/],
      [{ ...good, parts: Array.from({ length: 501 }, () => ({ type: 'message', role: 'user', body: 'hi' })) }, 413, /parts: at most 500 parts/],
      [{ ...good, metadata: { url: 'javascript:alert(1)' } }, 400, /metadata\.url: must be an http or https URL/],
      [{ ...good, metadata: { attributes: { plan: 3 } } }, 400, /metadata\.attributes/],
      [{ ...good, parts: 'hello' }, 400, /parts/],
      [[good, { ...good, parts: [{ type: 'message', role: 'robot', body: 'x' }] }], 400, /\[1\]\.parts\[0\]\.role/],
      [[good, good], 400, /sent twice/],
      [Array.from({ length: 101 }, (_, i) => ({ ...good, id: `bulk-${i}` })), 413, /At most 100 conversations per request/],
      [[], 400, /at least one/],
      [42, 400, /JSON object or an array/],
    ];
    for (const [body, status, message] of cases) {
      const res = await server.request('POST', `${base()}/conversations`, { token: ada.token, body });
      expect(res.status, `${JSON.stringify(body).slice(0, 120)}: ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body.error.message).toMatch(message);
    }
    expect(await databaseFingerprint(server)).toEqual(before);

    // HTML, scripts included, is a message's text: stored and answered as sent, never rendered.
    const html = '<p>The docs page shows <script>alert("x")</script> instead of the example, I could not find how to verify signatures.</p>';
    await ok('POST', `${base()}/conversations`, { id: 'html-1', source: 'email', parts: [{ type: 'message', role: 'user', body: html }] });
    await waitForConversations(server, ada.token, org);
    const row = await server.app.db.conversation.findFirstOrThrow({ where: { organizationId: org, externalId: 'html-1' } });
    const detail = await server.request('GET', `${base()}/conversations/${row.id}`, { token: ada.token });
    expect(detail.headers.get('content-type')).toMatch(/^application\/json/);
    expect(detail.body.parts[0].body).toBe(html);
  });

  it('shows nothing to members without the role or to other organizations; ingests only with an administrator', async () => {
    // A token that is not one is refused before its body is read.
    expectError(await server.request('POST', `${base()}/conversations`, { token: 'gb_api_not-a-token', body: {} }), 401);
    expectError(await server.request('GET', `${base()}/conversations`, { token: rita.token }), 404);
    expectError(await server.request('GET', `${base()}/conversations-clusters/${signatureCluster}`, { token: rita.token }), 404);
    expectError(await server.request('POST', `${base()}/conversations`, { token: eddie.token, body: ingestBody(signatures[0]!) }), 403);
    expectError(await server.request('PATCH', `${base()}/conversations-clusters/${signatureCluster}`, { token: rita.token, body: { muted: true } }), 404);
    // Another organization's member: not through theirs, not through ours.
    expectError(await server.request('GET', `/v1/orgs/${bobOrg}/conversations-clusters/${signatureCluster}`, { token: bob.token }), 404);
    const issue = await server.app.db.conversationIssue.findFirstOrThrow({ where: { organizationId: org } });
    expectError(await server.request('GET', `/v1/orgs/${bobOrg}/conversations-issues/${issue.id}`, { token: bob.token }), 404);
    expectError(await server.request('GET', `/v1/orgs/${bobOrg}/conversations/${issue.conversationId}`, { token: bob.token }), 404);
    expectError(await server.request('GET', `${base()}/conversations`, { token: bob.token }), 404);
    const perms = (await ok('GET', `/v1/orgs/${org}`)).body.permissions;
    expect(perms.ingestConversations).toBe(true);
    expect((await ok('GET', `/v1/orgs/${org}`, undefined, eddie.token)).body.permissions.ingestConversations).toBe(false);
  });

  it("works through GitBook's TypeScript client", async () => {
    const client = new GitBookAPI({ authToken: ada.token, endpoint: server.baseUrl });
    const ingested = await client.orgs.ingestConversation(org, [ingestBody(labelledConversations(['sso-saml'], 1)[0]!) as never]);
    expect(ingested.status).toBe(204);
    await waitForConversations(server, ada.token, org);
    const list = await client.orgs.listConversations(org, { source: (labelledConversations(['sso-saml'], 1)[0] as any).source });
    expect(list.data.items.length).toBeGreaterThan(0);
    const clusters = await client.orgs.listConversationsIssuesClusters(org, { orderBy: 'issues', order: 'desc' });
    expect(clusters.data.items.length).toBeGreaterThanOrEqual(2);
    const cluster = await client.orgs.getConversationsIssuesCluster(org, clusters.data.items[0]!.id);
    expect(cluster.data.id).toBe(clusters.data.items[0]!.id);
    const issues = await client.orgs.listConversationsIssues(org, { cluster: cluster.data.id });
    const one = await client.orgs.getConversationIssueById(org, issues.data.items[0]!.issue.id);
    expect(one.data.conversation.id).toBe(issues.data.items[0]!.conversation.id);
    const detail = await client.orgs.getConversationById(org, one.data.conversation.id);
    expect(detail.data.parts.length).toBeGreaterThan(0);
  });
});

describe('A burst of ingests', () => {
  it('is gathered into the one job waiting to run, not a job per request', async () => {
    // A window no test outlasts: the job starts when the test wakes it, not on a clock.
    const quiet = await startTestServer({ INSIGHTS_BATCH_MS: '600000' });
    try {
      const admin = await quiet.createUser('Admin');
      const burstOrg = await quiet.createOrg(admin);
      const burst = labelledConversations(['pagination', 'rate-limits'], 10);
      const ingest = (c: (typeof burst)[number]) => quiet.request('POST', `/v1/orgs/${burstOrg}/conversations`, { token: admin.token, body: ingestBody(c) });
      // The first makes the job; the others, all at once, join it. (Ingests racing to make the first
      // job may each make one on PostgreSQL: the extra ones find nothing left to read.)
      expect((await ingest(burst[0]!)).status).toBe(204);
      const answers = await Promise.all(burst.slice(1).map(ingest));
      expect(answers.map((a) => a.status)).toEqual(burst.slice(1).map(() => 204));
      const jobs = await quiet.app.db.job.findMany({ where: { organizationId: burstOrg, kind: 'conversation-processing' } });
      expect(jobs.map((j) => j.state)).toEqual(['queued']);
      quiet.app.jobs.wakeAfter(jobs[0]!, 0);
      await waitForConversations(quiet, admin.token, burstOrg);
      // Read, the clusters it changed are described: then the job ends.
      while ((await quiet.app.db.job.findUniqueOrThrow({ where: { id: jobs[0]!.id } })).state === 'running') await new Promise((resolve) => setTimeout(resolve, 50));
      const after = await quiet.app.db.job.findMany({ where: { organizationId: burstOrg, kind: 'conversation-processing' } });
      expect(after.map((j) => [j.id, j.state])).toEqual([[jobs[0]!.id, 'succeeded']]);
      expect(after[0]!.result).toMatchObject({ conversations: burst.length });
    } finally {
      await quiet.close();
    }
  });
});
