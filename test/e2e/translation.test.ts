/**
 * Translations end to end over real HTTP and WebSocket, with a local
 * LibreTranslate-compatible server: create, list, read, update, run (followed
 * over graphql-ws), read the translated pages, run again (only what changed is
 * sent), delete; without a provider `run` is a clear 412; another
 * organization sees nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { follow, useWsClients } from '../helpers/graphql-ws.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { startTestServer, type TestServer, type TestUser } from '../helpers/server.ts';
import { startLocalServer, type LocalServer } from '../translation/local-server.ts';

let provider: LocalServer;
let server: TestServer;
let ada: TestUser;
let org: string;

/** A LibreTranslate stand-in: "translates" by prefixing every text with the target language, tags kept. */
function libreTranslate(body: any) {
  const q = Array.isArray(body.q) ? body.q : [body.q];
  return { json: { translatedText: q.map((text: string) => `[${body.target}] ${text}`) } };
}

const FIELDS = '{ id state step percent result error sequence }';
const RUNS = `subscription($org: ID!, $id: ID!) { translationRuns(organizationId: $org, translationId: $id) ${FIELDS} }`;
const JOB_UPDATED = `subscription($id: ID!) { jobUpdated(id: $id, after: 0) ${FIELDS} }`;

/** Resolves before the provider answers a request (runFollowed holds a run with it). */
let beforeAnswer: () => Promise<unknown> = async () => undefined;

beforeAll(async () => {
  provider = await startLocalServer(async (request) => (await beforeAnswer(), libreTranslate(request.body)));
  server = await startTestServer({ TRANSLATION_PROVIDER: 'libretranslate', TRANSLATION_URL: provider.url, JOB_POLL_MS: '100' });
  ada = await server.createUser('Ada');
  org = await server.createOrg(ada);
});
afterAll(async () => {
  await server?.close();
  await provider?.close();
});
// Registered after the server's afterAll, so its clients are disposed first.
const wsClient = useWsClients(() => server.baseUrl);

/** A space of `organization` holding the getting-started template, and its French translation (the 201 body). */
async function newTranslation(organization = org) {
  const source = (await server.createSpace(ada, organization, { title: 'Guide' })).id as string;
  expect((await server.request('POST', `/v1/spaces/${source}/content/template`, { token: ada.token, body: { id: 'getting-started' } })).status).toBe(201);
  const created = await server.request('POST', `/v1/orgs/${organization}/translations`, { token: ada.token, body: { source: { space: source, language: 'en' }, language: 'fr' } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  assertMatchesSpec('createTranslation', 201, created.body);
  return { source, translation: created.body };
}

/**
 * Runs `translationId`, following the run over graphql-ws until it ends: `jobUpdated` from
 * its first event (`after: 0`, replayed from its history however soon it ended), and
 * `translationRuns`, subscribed before the run. The provider answers once that subscriber
 * has its first event, so a run that asks it anything cannot end before the subscription
 * started (what it missed then, it replays); `runs` is null when the run asked nothing.
 */
async function runFollowed(translationId: string) {
  const runs = follow(wsClient(ada.token), RUNS, { org, id: translationId }, 'translationRuns');
  let asked = false;
  beforeAnswer = () => ((asked = true), runs.first);
  try {
    const before = await server.app.db.job.count({ where: { translationId } });
    const run = await server.request('POST', `/v1/orgs/${org}/translations/${translationId}/run`, { token: ada.token });
    expect(run.status, JSON.stringify(run.body)).toBe(204);
    const [job] = await server.app.db.job.findMany({ where: { translationId }, orderBy: { createdAt: 'asc' }, skip: before });
    // The 204 names the job it started: a URL the caller GETs with its token.
    const location = run.headers.get('location');
    expect(location).toMatch(new RegExp(`^${server.baseUrl}/graphql\\?`));
    const read = await fetch(location!, { headers: { authorization: `Bearer ${ada.token}` } });
    expect(((await read.json()) as { data: { job: { id: string; kind: string } } }).data.job).toMatchObject({ id: job!.id, kind: 'TRANSLATION_RUN' });
    const followed = follow(wsClient(ada.token), JOB_UPDATED, { id: job!.id }, 'jobUpdated');
    await followed.ended;
    expect(followed.errors).toEqual([]);
    expect(followed.events.map((e) => e.sequence)).toEqual(followed.events.map((_e, i) => i + 1));
    if (asked) {
      await runs.done;
      expect(runs.events).toEqual(followed.events);
    }
    runs.unsubscribe();
    return { events: followed.events, runs: asked ? runs.events : null };
  } finally {
    beforeAnswer = async () => undefined;
  }
}

describe('translations', () => {
  it('creates a translation with its target space, lists, reads and updates it', async () => {
    const own = await server.createOrg(ada); // listed alone
    const { source, translation } = await newTranslation(own);
    expect(translation).toMatchObject({ object: 'translation', status: 'pending', source: { space: source, language: 'en' }, language: 'fr', stats: { runs: 0 } });
    expect(translation.result).toBeUndefined();

    const duplicate = await server.request('POST', `/v1/orgs/${own}/translations`, { token: ada.token, body: { source: { space: source, language: 'en' }, language: 'fr' } });
    expect(duplicate.status).toBe(409);
    const sameLanguage = await server.request('POST', `/v1/orgs/${own}/translations`, { token: ada.token, body: { source: { space: source, language: 'en' }, language: 'en' } });
    expect(sameLanguage.status).toBe(400);

    const list = await server.request('GET', `/v1/orgs/${own}/translations`, { token: ada.token });
    assertMatchesSpec('listTranslations', 200, list.body);
    expect(list.body.items.map((t: any) => t.id)).toEqual([translation.id]);

    const instructions = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Use a formal tone.', marks: [] }] }] }] };
    const updated = await server.request('PUT', `/v1/orgs/${own}/translations/${translation.id}`, { token: ada.token, body: { instructions } });
    expect(updated.status).toBe(200);
    assertMatchesSpec('updateTranslation', 200, updated.body);
    expect(updated.body.instructions).toEqual(instructions);
  });

  it('runs: the subscriber sees the job through to success; the target space holds the translated pages', async () => {
    const { source, translation } = await newTranslation();
    const { events, runs } = await runFollowed(translation.id);
    expect(runs).toEqual(events); // translationRuns saw the run too
    expect(events.map((e) => e.state)[0]).toBe('queued');
    expect(events.at(-1)).toMatchObject({ state: 'succeeded' });
    expect(events.some((e) => e.step === 'translating')).toBe(true);

    const read = await server.request('GET', `/v1/orgs/${org}/translations/${translation.id}`, { token: ada.token });
    assertMatchesSpec('getTranslation', 200, read.body);
    expect(read.body).toMatchObject({ status: 'completed', stats: { runs: 1, latestPages: 5 }, result: { space: expect.any(String) } });
    const target = read.body.result.space;
    const pages = await server.request('GET', `/v1/spaces/${target}/content/pages`, { token: ada.token });
    expect(pages.body.pages.map((p: any) => p.title)).toEqual(['[fr] Welcome', '[fr] Quick start', '[fr] Guides']);
    const sourcePages = await server.request('GET', `/v1/spaces/${source}/content/pages`, { token: ada.token });
    expect(pages.body.pages.map((p: any) => p.id)).toEqual(sourcePages.body.pages.map((p: any) => p.id));
    const quickStart = pages.body.pages[1];
    const markdown = await server.request('GET', `/v1/spaces/${target}/content/page/${quickStart.id}?format=markdown`, { token: ada.token });
    expect(markdown.body.markdown).toContain('[fr] Get from nothing to a working setup');
    expect(markdown.body.markdown).toContain('npm install @gitbook/api'); // code is not translated
    const space = await server.request('GET', `/v1/spaces/${target}`, { token: ada.token });
    expect(space.body.language).toBe('fr');
  });

  it('a second run sends nothing already translated', async () => {
    const { translation } = await newTranslation();
    expect((await runFollowed(translation.id)).events.at(-1)).toMatchObject({ state: 'succeeded' });
    const before = provider.requests.length;
    expect((await runFollowed(translation.id)).events.at(-1)).toMatchObject({ state: 'succeeded', result: { translatedSegments: 0 } });
    expect(provider.requests.length).toBe(before);
  });

  it('another organization sees nothing; without a provider a run is a clear 412', async () => {
    const { translation } = await newTranslation();
    const mallory = await server.createUser('Mallory');
    await server.createOrg(mallory);
    expect((await server.request('GET', `/v1/orgs/${org}/translations/${translation.id}`, { token: mallory.token })).status).toBe(404);
    expect((await server.request('POST', `/v1/orgs/${org}/translations/${translation.id}/run`, { token: mallory.token })).status).toBe(404);

    const bare = await startTestServer({}, { database: server.database, storageDir: server.storageDir });
    try {
      const res = await bare.request('POST', `/v1/orgs/${org}/translations/${translation.id}/run`, { token: ada.token });
      expect(res.status).toBe(412);
      expect(res.body.error.message).toMatch(/TRANSLATION_PROVIDER/);
    } finally {
      await bare.close();
    }
  });

  it('deletes (205), then there is nothing to delete (204)', async () => {
    const { translation } = await newTranslation();
    expect((await server.request('DELETE', `/v1/orgs/${org}/translations/${translation.id}`, { token: ada.token })).status).toBe(205);
    expect((await server.request('DELETE', `/v1/orgs/${org}/translations/${translation.id}`, { token: ada.token })).status).toBe(204);
  });
});
