/**
 * GraphiQL in a real browser, as a self-hoster without internet uses it: headless Chromium
 * (Debian's, driven by playwright-core) loads /graphql, the Authorization header goes into the
 * Headers tab, and a query and a subscription (jobUpdated of a job the test drives) show their
 * results on the page. No request may leave this server's origin, and nothing may break the page's
 * Content-Security-Policy.
 *
 * Runs where Chromium is installed (test/helpers/services.ts: `browser`); CI requires it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobHandler } from '../../src/jobs/runner.ts';
import { startTestServer, type TestServer, type TestUser } from '../helpers/server.ts';
import { CHROMIUM_ARGS, servicesConfigured, TEST_CHROMIUM_PATH } from '../helpers/services.ts';

/** A job of one step: it starts, and it ends, when the test says. */
const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
};
const step = gate();
const finish = gate();
const stepped: JobHandler = async (ctx) => {
  await step.opened;
  await ctx.progress('copying pages', 50);
  await finish.opened;
  return { pages: 3 };
};

/** The longest one step may take on two busy cores (CI runs a type check beside the suite). */
const WAIT_MS = 30_000;

describe.skipIf(!servicesConfigured('browser'))('GraphiQL in Chromium, offline', () => {
  let server: TestServer;
  let ada: TestUser;
  let profile: string;
  let context: BrowserContext;
  let page: Page;
  /** Every URL the browser asked for (pages, scripts, workers, fetches, WebSockets). */
  const requested: string[] = [];
  /** Console errors and uncaught exceptions of the page (a policy violation shows here). */
  const problems: string[] = [];
  /** How many WebSockets the page opened. */
  let socketsOpened = 0;

  beforeAll(async () => {
    server = await startTestServer({}, undefined, { jobHandlers: { 'git-import': stepped } });
    ada = await server.createUser('Ada');
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'graphiql-chromium-'));
    // Wide, so that the result pane wraps no line of the results read from it.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: TEST_CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1920, height: 1080 },
    });
    context.on('request', (request) => requested.push(request.url()));
    page = context.pages()[0] ?? (await context.newPage());
    page.on('websocket', (socket) => {
      socketsOpened += 1;
      requested.push(socket.url());
    });
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
  }, 3 * WAIT_MS);
  afterAll(async () => {
    step.open();
    finish.open();
    await context?.close();
    await server?.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  /**
   * Replaces the text of the Monaco editor `editor`: cleared first (text inserted over a selection
   * may be auto-closed around it), then inserted at once, so that no bracket is auto-closed.
   */
  async function setEditor(editor: string, text: string) {
    await page.locator(`${editor} .monaco-editor`).click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.insertText(text);
    // Monaco renders at the next frame.
    await expect.poll(async () => (await page.locator(editor).innerText()).replace(/\u00a0/g, ' '), { timeout: WAIT_MS, interval: 20 }).toContain(text);
  }

  /** Sets the operation, waits until GraphiQL has parsed it (its tab is named after it), and runs it. */
  async function run(name: string, operation: string) {
    await setEditor('.graphiql-query-editor', operation);
    await page.locator('.graphiql-tab-active', { hasText: name }).waitFor();
    await page.getByRole('button', { name: /^Execute query/ }).click();
  }

  /** Every request so far went to this server, and the page reported no error (a policy violation would be one). */
  function expectOnlyThisServer() {
    expect([...new Set(requested.map((url) => new URL(url).host))]).toEqual([new URL(server.baseUrl).host]);
    expect(problems).toEqual([]);
  }

  /** Waits (up to WAIT_MS) until the result pane shows JSON for which `accept` holds; that JSON. */
  async function resultWhere(accept: (result: any) => boolean): Promise<any> {
    let text = '';
    for (const started = Date.now(); Date.now() - started < WAIT_MS; await new Promise((r) => setTimeout(r, 50))) {
      // Monaco renders spaces as non-breaking ones.
      text = (await page.locator('.graphiql-response').innerText()).replace(/\u00a0/g, ' ');
      try {
        const result = JSON.parse(text);
        if (accept(result)) return result;
      } catch {
        // not (yet) JSON
      }
    }
    throw new Error(`the result pane never showed the result expected; it shows: ${text}`);
  }

  it('runs a query and a subscription with the token of the Headers tab, loading nothing from elsewhere', async () => {
    await page.goto(`${server.baseUrl}/graphql`);
    expect(await page.title()).toBe('Docs publishing API · GraphiQL');
    await page.locator('.graphiql-query-editor .monaco-editor').waitFor({ timeout: WAIT_MS });

    await page.getByRole('button', { name: 'Headers' }).click();
    await setEditor('.graphiql-editor-tool .graphiql-editor:not(.hidden)', JSON.stringify({ Authorization: `Bearer ${ada.token}` }));

    // A query (over HTTP, the header sent as one).
    await run('Me', 'query Me { viewer { id displayName } }');
    expect(await resultWhere((r) => Boolean(r.data?.viewer))).toEqual({ data: { viewer: { id: ada.id, displayName: 'Ada' } } });

    // A subscription (over graphql-ws, the header in the subscribe message's extensions): the job's
    // current state first, then what follows, shown as it happens.
    const org = await server.createOrg(ada);
    const space = (await server.createSpace(ada, org)).id as string;
    const job = await server.app.jobs.start({ organizationId: org, spaceId: space, kind: 'git-import', input: {}, createdById: ada.id });
    await run('FollowJob', `subscription FollowJob { jobUpdated(id: "${job.id}") { id state step percent } }`);
    const before = await resultWhere((r) => r.data?.jobUpdated?.id === job.id);
    expect(before.errors).toBeUndefined();
    expect(['queued', 'running']).toContain(before.data.jobUpdated.state);
    step.open();
    expect(await resultWhere((r) => r.data?.jobUpdated?.step === 'copying pages')).toEqual({
      data: { jobUpdated: { id: job.id, state: 'running', step: 'copying pages', percent: 50 } },
    });
    finish.open();
    expect(await resultWhere((r) => r.data?.jobUpdated?.state === 'succeeded')).toEqual({
      data: { jobUpdated: { id: job.id, state: 'succeeded', step: 'done', percent: 100 } },
    });

    // The page, its assets, Monaco's workers, the HTTP query and the WebSocket: all this server's.
    expectOnlyThisServer();
    expect(requested.some((url) => url.startsWith(`ws://${new URL(server.baseUrl).host}/graphql`))).toBe(true);
    expect(requested.filter((url) => new URL(url).pathname.startsWith('/graphiql/')).length).toBeGreaterThanOrEqual(6);
  }, 3 * WAIT_MS);

  it('shows why a token that is not valid is refused, for a query and for a subscription', async () => {
    await setEditor('.graphiql-editor-tool .graphiql-editor:not(.hidden)', JSON.stringify({ Authorization: 'Bearer gb_api_not-a-real-token' }));
    const refused = (result: any) => result.errors?.[0]?.message === 'The API token is invalid or has been revoked';
    await run('Me', 'query Me { viewer { id displayName } }');
    expect((await resultWhere(refused)).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    // On the first socket, not after the client's reconnection attempts: the operation is answered
    // before the socket is closed (4403), so the answer comes on the one socket the page opened for it.
    const socketsBefore = socketsOpened;
    await run('FollowJob', 'subscription FollowJob { jobUpdated(id: "any") { id state } }');
    expect((await resultWhere(refused)).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(socketsOpened - socketsBefore).toBe(1);
    // The browser logs the failed requests as errors; nothing else may be among them.
    expect(problems.filter((problem) => !/status of 401/.test(problem))).toEqual([]);
    expect([...new Set(requested.map((url) => new URL(url).host))]).toEqual([new URL(server.baseUrl).host]);
  }, 3 * WAIT_MS);
});
