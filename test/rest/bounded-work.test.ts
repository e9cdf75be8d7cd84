/**
 * Every request's work is bounded (issue 14), over real HTTP: Markdown over a
 * limit answers 400 naming the body field and the setting, and writes
 * nothing; a conversion the scan lets through but that runs past its deadline
 * answers 400 naming WORKER_TASK_TIMEOUT_MS; and /healthz keeps answering at
 * once while a conversion is being abused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseFingerprint } from '../helpers/rest-fixture.ts';
import { expectError, startTestServer, useTestServer, type TestServer, type TestUser } from '../helpers/server.ts';

const cr = (space: string, id: string) => `/v1/spaces/${space}/change-requests/${id}`;

/** A space of `user` in a new organization, with a change request holding one page; their ids. */
async function changeRequestWithPage(server: TestServer, user: TestUser) {
  const org = await server.createOrg(user);
  const space = (await server.createSpace(user, org, { title: 'Docs' })).id as string;
  const created = await server.request('POST', `/v1/spaces/${space}/change-requests`, { token: user.token, body: { subject: 'Edits' } });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const inserted = await server.request('POST', `${cr(space, id)}/content?compat=false`, {
    token: user.token,
    body: { changes: [{ operation: 'insert_page', ref: 'intro', document: { markdown: '# Intro\n\nHello.' } }] },
  });
  expect(inserted.status, JSON.stringify(inserted.body)).toBe(200);
  const page = inserted.body.changes[0].page.id as string;
  return { space, id, page };
}

describe('Markdown over a limit', () => {
  const { server, ada } = useTestServer({ users: ['Ada'] });
  let space: string;
  let id: string;
  let page: string;

  beforeAll(async () => {
    ({ space, id, page } = await changeRequestWithPage(server, ada));
  });

  /** POSTs `changes`, expects a 400 whose message starts with `field` and names `setting`, and that nothing was written. */
  async function refused(changes: unknown[], field: string, setting: string) {
    const before = await databaseFingerprint(server);
    const started = Date.now();
    const res = await server.request('POST', `${cr(space, id)}/content`, { token: ada.token, body: { changes } });
    expectError(res, 400);
    expect(res.body.error.message.startsWith(`${field}: `), res.body.error.message).toBe(true);
    expect(res.body.error.message).toContain(`(${setting})`);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await databaseFingerprint(server)).toEqual(before);
  }

  it('refuses 64 KB of `*a` (once 45 seconds of parsing) with the field and the limit', async () => {
    await refused([{ operation: 'insert_page', document: { markdown: '*a'.repeat(32_000) } }], 'changes[0].document.markdown', 'MARKDOWN_MAX_INLINE_DELIMITERS');
  });

  it('refuses 4,000 `>` (once a 500) and deeply nested lists', async () => {
    await refused([{ operation: 'insert_page', document: { markdown: '>'.repeat(4_000) } }], 'changes[0].document.markdown', 'MARKDOWN_MAX_NESTING');
    await refused([{ operation: 'insert_page', document: { markdown: `${'- '.repeat(2_000)}a` } }], 'changes[0].document.markdown', 'MARKDOWN_MAX_NESTING');
    const indented = Array.from({ length: 100 }, (_, i) => `${'  '.repeat(i)}- item\n`).join('');
    await refused([{ operation: 'insert_page', document: { markdown: indented } }], 'changes[0].document.markdown', 'MARKDOWN_MAX_NESTING');
  });

  it('refuses the other limits the same way', async () => {
    const codeRuns = Array.from({ length: 40 }, (_, i) => `x${'`'.repeat(i + 1)}`).join(' ');
    await refused([{ operation: 'insert_page', document: { markdown: codeRuns } }], 'changes[0].document.markdown', 'MARKDOWN_MAX_UNCLOSED_INLINE');
    await refused([{ operation: 'insert_page', document: { markdown: `> a\n${'b\n'.repeat(5_000)}` } }], 'changes[0].document.markdown', 'MARKDOWN_MAX_LAZY_LINES');
    const table = `| a | b |\n| - | - |\n${'| c | d |\n'.repeat(3_000)}`;
    await refused([{ operation: 'insert_page', document: { markdown: table } }], 'changes[0].document.markdown', 'MARKDOWN_MAX_TABLE_CELLS');
    const hints = `${'{% hint %}\n\n'.repeat(40)}x\n\n${'{% endhint %}\n\n'.repeat(40)}`;
    await refused([{ operation: 'insert_page', document: { markdown: hints } }], 'changes[0].document.markdown', 'MARKDOWN_MAX_NESTING');
  });

  it('names the change at fault, and applies none of the batch', async () => {
    await refused(
      [
        { operation: 'insert_page', document: { markdown: '# Fine\n\nA good page.' } },
        { operation: 'update_page', page, document: { markdown: '[a'.repeat(20_000) } },
      ],
      'changes[1].document.markdown',
      'MARKDOWN_MAX_INLINE_DELIMITERS',
    );
    const pages = await server.request('GET', `${cr(space, id)}/content`, { token: ada.token });
    expect(pages.body.pages.map((p: { title: string }) => p.title)).toEqual(['Intro']);
  });

  it('answers the same over GraphQL', async () => {
    const res = await server.graphql(
      `mutation($spaceId: ID!, $id: String!, $input: UpdateChangeRequestContentInput!) { updateChangeRequestContent(spaceId: $spaceId, changeRequestId: $id, input: $input) { changes { page } } }`,
      { token: ada.token, variables: { spaceId: space, id, input: { changes: [{ operation: 'insert_page', document: { markdown: '*a'.repeat(32_000) } }] } } },
    );
    expect(res.body.errors?.[0]?.extensions?.code, JSON.stringify(res.body)).toBe('BAD_REQUEST');
    expect(res.body.errors![0]!.message).toMatch(/^changes\[0\]\.document\.markdown: .*\(MARKDOWN_MAX_INLINE_DELIMITERS\)/);
  });
});

describe('a conversion past its deadline', () => {
  let server: TestServer;
  let ada: TestUser;
  let space: string;
  let id: string;

  beforeAll(async () => {
    // Limits raised so the scan lets the abuse through: the deadline is the second line of defence.
    server = await startTestServer({
      MARKDOWN_MAX_INLINE_DELIMITERS: '1000000',
      MARKDOWN_MAX_CHARACTERS: '200000',
      WORKER_TASK_TIMEOUT_MS: '3000',
    });
    ada = await server.createUser('Ada');
    ({ space, id } = await changeRequestWithPage(server, ada));
  });
  afterAll(() => server?.close());

  it('answers 400 naming WORKER_TASK_TIMEOUT_MS, writes nothing, and /healthz answers at once meanwhile', async () => {
    const before = await databaseFingerprint(server);
    const abuse = server.request('POST', `${cr(space, id)}/content`, { token: ada.token, body: { changes: [{ operation: 'insert_page', document: { markdown: '*a'.repeat(32_000) } }] } });
    let done = false;
    void abuse.finally(() => (done = true));
    const latencies: number[] = [];
    while (!done) {
      const started = performance.now();
      const health = await fetch(`${server.baseUrl}/healthz`);
      expect(health.status).toBe(200);
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const res = await abuse;
    expectError(res, 400, /^changes\[0\]\.document\.markdown: Converting the Markdown took longer than 3000 ms \(WORKER_TASK_TIMEOUT_MS\)$/);
    expect(await databaseFingerprint(server)).toEqual(before);
    // The conversion ran for its 3 seconds while /healthz kept answering: an event loop the
    // conversion held would have answered once or twice, one of them after all 3 seconds. (How fast
    // each answer came is the machine's business, not this test's: a busy suite made one 430 ms.)
    expect(latencies.length).toBeGreaterThan(20);
    expect(Math.max(...latencies)).toBeLessThan(1500);

    // The thread was replaced: the next conversion works.
    const next = await server.request('POST', `${cr(space, id)}/content`, { token: ada.token, body: { changes: [{ operation: 'insert_page', document: { markdown: '# Next' } }] } });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
  });

  it('refuses Markdown longer than MARKDOWN_MAX_CHARACTERS', async () => {
    const res = await server.request('POST', `${cr(space, id)}/content`, {
      token: ada.token,
      body: { changes: [{ operation: 'insert_page', document: { markdown: 'word '.repeat(50_000) } }] },
    });
    expectError(res, 400, /^changes\[0\]\.document\.markdown: at most 200000 characters of Markdown \(MARKDOWN_MAX_CHARACTERS\); this has 250000$/);
  });
});
