/**
 * The API reference in a real browser, as a self-hoster without internet opens it: headless
 * Chromium (Debian's, driven by playwright-core) loads /docs, Swagger UI draws the tags of
 * /v1/openapi.json, a tag opens to its operations, one of them opens to show its parameters, and, with a user's token in the
 * Authorize dialog, is tried out against this server. No request may leave this
 * server's origin, and nothing may break the page's Content-Security-Policy or fail to load.
 * GitBook's recursive document schemas once made the reference run out of memory here (Redoc):
 * the test's limit stops a reference that never ends drawing. How long it takes is not a test's
 * business (a loaded CI machine takes four times as long as an idle one): the waits are generous.
 *
 * Runs where Chromium is installed (test/helpers/services.ts: `browser`); CI requires it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestUser } from '../helpers/server.ts';
import { CHROMIUM_ARGS, servicesConfigured, TEST_CHROMIUM_PATH } from '../helpers/services.ts';

/** The longest any one step may take: Swagger UI resolving GitBook's document schemas on two busy cores. */
const WAIT_MS = 45_000;

describe.skipIf(!servicesConfigured('browser'))('The API reference in Chromium, offline', () => {
  let server: TestServer;
  let ada: TestUser;
  let space: string;
  let profile: string;
  let context: BrowserContext;
  let page: Page;
  /** Every URL the browser asked for (the page, its assets, the document, anything else). */
  const requested: string[] = [];
  /** Requests that failed or were answered with an error status. */
  const failed: string[] = [];
  /** Console errors and uncaught exceptions of the page (a policy violation shows here). */
  const problems: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    ada = await server.createUser('Ada');
    space = (await server.createSpace(ada, await server.createOrg(ada))).id as string;
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: TEST_CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1440, height: 1000 },
    });
    context.on('request', (request) => requested.push(request.url()));
    context.on('requestfailed', (request) => failed.push(`${request.url()}: ${request.failure()?.errorText}`));
    context.on('response', (response) => response.status() >= 400 && failed.push(`${response.url()}: ${response.status()}`));
    context.setDefaultTimeout(WAIT_MS);
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => message.type() === 'error' && problems.push(`${message.text()} (${message.location().url})`));
    page.on('pageerror', (error) => problems.push(error.message));
  }, WAIT_MS);
  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  it('draws every operation of the document, opens one to its parameters, and loads nothing from elsewhere', async () => {
    await page.goto(`${server.baseUrl}/docs`);
    expect(await page.title()).toBe('Docs publishing API · REST reference');
    // The intro says what this is and where the token goes.
    const intro = page.locator('header.intro');
    await expect.poll(() => intro.innerText(), { timeout: WAIT_MS }).toMatch(/documentation publishing service/);
    expect(await intro.innerText()).toMatch(/Authorize.*bearer token/s);

    // Swagger UI has read the document: its title, then the operations, grouped by tag.
    await page.locator('#swagger-ui .info .title', { hasText: 'Docs publishing API' }).waitFor({ timeout: WAIT_MS });
    // Every tag of the document is listed, closed; opened, a tag draws each of its operations.
    const document = (await (await fetch(`${server.baseUrl}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { tags?: string[] }>> };
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    const tags = new Set(operations.map((operation) => operation.tags?.[0]));
    await page.locator('#operations-tag-spaces').waitFor({ timeout: WAIT_MS });
    expect(await page.locator('#swagger-ui .opblock-tag').count()).toBe(tags.size);
    await page.locator('#operations-tag-spaces').click();
    const getSpace = page.locator('#operations-spaces-getSpaceById');
    await getSpace.waitFor({ timeout: WAIT_MS });
    expect(await getSpace.locator('.opblock-summary-description').innerText()).toBe('Get a space by its ID');
    expect(await page.locator('#swagger-ui .opblock').count()).toBe(operations.filter((operation) => operation.tags?.[0] === 'spaces').length);
    // The Authorize dialog offers the bearer scheme; a user's token goes there.
    await page.locator('#swagger-ui .btn.authorize').click();
    const dialog = page.locator('#swagger-ui .modal-ux');
    await dialog.waitFor();
    expect(await dialog.innerText()).toMatch(/user\s+\(http, Bearer\)/);
    await dialog.locator('input[type="text"], input[type="password"]').first().fill(ada.token);
    await dialog.locator('button.authorize').click();
    await dialog.locator('.close-modal').click();

    // Opened, the operation shows its parameters and its responses (its schemas resolved then).
    await getSpace.locator('.opblock-summary-control').click();
    const spaceId = getSpace.locator('tr[data-param-name="spaceId"]');
    await spaceId.waitFor({ timeout: WAIT_MS });
    // Required (starred), in the path, with GitBook's description.
    expect(await spaceId.innerText()).toMatch(/^spaceId\s*\*\s*string\s*\(path\)\s*The unique id of the space$/);
    await getSpace.locator('.responses-table .response[data-code="200"]').waitFor({ timeout: WAIT_MS });

    // Tried out, it asks this server with the token of the dialog, and shows the answer.
    await getSpace.locator('button.try-out__btn').click();
    await spaceId.locator('input').fill(space);
    await getSpace.locator('button.execute').click();
    const live = getSpace.locator('.live-responses-table .response');
    await live.waitFor({ timeout: WAIT_MS });
    expect(await live.locator('.response-col_status').innerText()).toBe('200');
    expect(await live.locator('.response-col_description').innerText()).toContain(`"id": "${space}"`);

    // An operation whose body is a GitBook document (block and inline schemas nesting into each
    // other) opens too: its example is drawn to a depth, not walked forever.
    await page.locator('#operations-tag-organizations').click();
    const putInstructions = page.locator('#operations-organizations-updateOrganizationAgentInstructions');
    await putInstructions.locator('.opblock-summary-control').click();
    // Swagger UI resolves its schemas when it opens: seconds on a busy machine, but it ends.
    const example = putInstructions.locator('.opblock-section-request-body .body-param__example, .opblock-section-request-body .microlight').first();
    await example.waitFor({ timeout: WAIT_MS });
    expect(await example.innerText()).toContain('"instructions"');

    // The page, its assets and the document: all this server's, all found, and no error on the page.
    expect([...new Set(requested.map((url) => new URL(url).host))]).toEqual([new URL(server.baseUrl).host]);
    expect(requested.filter((url) => new URL(url).pathname.startsWith('/docs/assets/')).length).toBeGreaterThanOrEqual(3);
    expect(requested.some((url) => new URL(url).pathname === '/v1/openapi.json')).toBe(true);
    expect(failed).toEqual([]);
    expect(problems).toEqual([]);
  }, 4 * WAIT_MS);
});
