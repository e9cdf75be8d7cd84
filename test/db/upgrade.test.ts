/**
 * Upgrading a database that holds data: one at the schema of the last release
 * (the migrations up to organization_agent_instructions, the search tables the
 * server then created at start, JSON as text in every JSON column, values of
 * every value set), written with raw SQL, then migrated to today's schema and
 * read back through the API: the same values come back, and the database is
 * exactly what a fresh one is.
 *
 * SQLite always; PostgreSQL when TEST_DATABASE_URL is set (test/helpers/services.ts), in a fresh schema.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueTokenForEmail } from '../../src/auth/users.ts';
import { canonicalDocumentJson, hashDocument } from '../../src/content/document/hash.ts';
import type { JSONDocument, JSONNode } from '../../src/content/document/model.ts';
import { closeDb, createDb, type Db } from '../../src/db/client.ts';
import { diffDatabaseToSchema, migrate, migrationsDir, readMigrationsList } from '../../src/db/migrate.ts';
import { parseDatabaseUrl, type DatabaseConfig, type Provider } from '../../src/db/provider/config.ts';
import { dropDatabase, prepareDatabase } from '../../src/db/provider/setup.ts';
import { derivePostgresSchema } from '../../src/db/schema-files.ts';
import { SEARCH_INDEX_VERSION } from '../../src/search/search-index.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { servicesConfigured } from '../helpers/services.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sqliteSchema = fs.readFileSync(path.join(root, 'prisma/schema.prisma'), 'utf8');

/** The last migration of the release before JSON columns, value sets and search tables became migrations. */
const LAST_RELEASED_MIGRATION = '20261124175703_organization_agent_instructions';

// ---------------------------------------------------------------- the data

const text = (value: string): JSONNode => ({ object: 'text', leaves: [{ object: 'leaf', text: value, marks: [] }] });
const paragraph = (...nodes: JSONNode[]): JSONNode => ({ object: 'block', type: 'paragraph', nodes });
const doc = (...nodes: JSONNode[]): JSONDocument => ({ object: 'document', data: {}, nodes });

const introDocument = doc(
  { object: 'block', type: 'heading-1', key: 'welcome', nodes: [text('Welcome')] },
  paragraph(text('Read the '), { object: 'inline', type: 'link', key: 'to-guide', data: { ref: { kind: 'page', page: 'pg-guide' } }, nodes: [text('guide')] }),
  paragraph({ object: 'inline', type: 'link', data: { ref: { kind: 'url', url: 'https://example.com/x' } }, nodes: [text('Example')] }),
  // The release stored no reference for it: the migration finds it (openapi_references).
  { object: 'block', type: 'openapi-operation', key: 'pets-op', isVoid: true, data: { ref: { kind: 'openapi', spec: 'pets' }, path: '/pets', method: 'get' } },
);
/**
 * A table without a view: its columns follow the keys of its definition, which were stored
 * sorted (alpha2, zeta); jsonb alone would give them back by length (zeta first).
 */
const guideDocument = doc(
  paragraph(text('Install the widget with care.')),
  {
    object: 'block',
    type: 'table',
    data: {
      view: { type: 'table' },
      definition: { zeta: { title: 'Zeta', type: 'text' }, alpha2: { title: 'Alpha', type: 'text' } },
      records: { r1: { orderIndex: 'a', values: { zeta: 'z1', alpha2: 'a1' } } },
    },
    nodes: [],
  },
);
const descriptionDocument = doc(paragraph(text('Fixes the typos of the introduction.')));
const instructionsDocument = doc(paragraph(text('Use "vous". Never translate "Acme".')));
const agentInstructionsDocument = doc(paragraph(text('Answer in one paragraph.')));

const emailDomains = ['acme.test', 'docs.acme.test'];
const orgMergeRules = { type: 'rules', rules: [{ rule: 'require_at_least_one_review' }, { rule: 'allow_bypass', users: ['u-ada'] }] };
const variables = { product: 'Acme Docs', version: 3, beta: true };
const introLayout = { cover: false, width: 'wide' };
const linkTarget = { kind: 'url', url: 'https://acme.test' };
/** Properties written in an order that is neither sorted nor jsonb's (by length): the template conditions follow it. */
const adaptiveSchema = {
  type: 'object',
  properties: {
    subscription: { type: 'string', enum: ['free', 'pro'], description: 'Plan' },
    beta: { type: 'boolean', description: 'Beta' },
  },
  additionalProperties: false,
};
const siteCustomizations = { styling: { primaryColor: { light: '#ff0000' } }, favicon: { emoji: '📘' }, pdf: { enabled: false } };
const siteSpaceCustomizations = { title: 'Handbook on the site' };
const jobInput = { url: 'https://gitlab.com/acme/docs.git', ref: 'refs/heads/main' };
const jobResult = { revision: 'rev1', commit: 'abc123' };

const ROLE_USERS = { read: 'u-read', comment: 'u-comment', edit: 'u-edit', review: 'u-review', create: 'u-create' } as const;

/** A SQL literal (test constants only). */
type Literal = string | number | boolean | null | { now: true } | { json: unknown };
const NOW = { now: true } as const;
const json = (value: unknown) => ({ json: value });
function literal(value: Literal): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'object' && 'now' in value) return 'CURRENT_TIMESTAMP';
  const textValue = typeof value === 'object' ? JSON.stringify(value.json) : value;
  return `'${textValue.replace(/'/g, "''")}'`;
}

/** The rows of the release's schema, in an order that satisfies the foreign keys. */
function releasedRows(): Array<[table: string, row: Record<string, Literal>]> {
  const users: Array<[string, Record<string, Literal>]> = [
    ['User', { id: 'u-ada', email: 'ada@acme.test', displayName: 'Ada', updatedAt: NOW }],
    ...Object.values(ROLE_USERS).map((id): [string, Record<string, Literal>] => ['User', { id, email: `${id}@acme.test`, displayName: id, updatedAt: NOW }]),
    ['User', { id: 'u-guest', email: 'guest@acme.test', displayName: 'Guest', updatedAt: NOW }],
  ];
  const page = (row: Record<string, Literal>): [string, Record<string, Literal>] => [
    'RevisionPage',
    { revisionId: 'rev1', parentPageId: null, description: null, emoji: null, icon: null, hidden: false, documentHash: null, linkTarget: null, layout: null, createdAt: NOW, updatedAt: NOW, ...row },
  ];
  return [
    ...users,
    ['Organization', {
      id: 'org1', title: 'Acme', emailDomains: json(emailDomains), type: 'community', useCase: 'openSourceDocs', communityType: 'openSource',
      defaultRole: 'comment', mergeRules: json(orgMergeRules), updatedAt: NOW,
    }],
    ['OrganizationAgentInstructions', { organizationId: 'org1', instructions: json(agentInstructionsDocument), updatedById: 'u-ada', updatedAt: NOW }],
    ['Member', { id: 'm-ada', organizationId: 'org1', userId: 'u-ada', role: 'admin' }],
    ...Object.entries(ROLE_USERS).map(([role, userId]): [string, Record<string, Literal>] => ['Member', { id: `m-${role}`, organizationId: 'org1', userId, role }]),
    ['Member', { id: 'm-guest', organizationId: 'org1', userId: 'u-guest', role: null }],
    ['Collection', { id: 'col1', organizationId: 'org1', title: 'Guides', defaultLevel: 'review', updatedAt: NOW }],
    ['Space', {
      id: 'sp1', organizationId: 'org1', parentId: 'col1', title: 'Handbook', emoji: '📘', visibility: 'in-collection', editMode: 'locked',
      defaultLevel: 'edit', language: 'en', mergeRules: json({ type: 'inherit' }), revisionId: 'rev1', lastChangeRequestNumber: 2, updatedAt: NOW,
    }],
    ['Space', {
      id: 'sp2', organizationId: 'org1', parentId: null, title: 'Manual', emoji: '', visibility: 'share-link', editMode: 'live',
      defaultLevel: null, language: 'pt-br', mergeRules: json({ type: 'none' }), revisionId: 'rev2', updatedAt: NOW,
    }],
    ['Revision', { id: 'rev0', spaceId: 'sp1', type: 'rollback', variables: json({}) }],
    ['Revision', { id: 'rev1', spaceId: 'sp1', parentId: 'rev0', type: 'merge', variables: json(variables) }],
    ['Revision', { id: 'rev2', spaceId: 'sp2', type: 'edits', variables: json({}) }],
    ['ContentDocument', { hash: hashDocument(introDocument), json: canonicalDocumentJson(introDocument) }],
    ['ContentDocument', { hash: hashDocument(guideDocument), json: canonicalDocumentJson(guideDocument) }],
    ['DocumentReference', { documentHash: hashDocument(introDocument), targetKind: 'page', target: 'pg-guide', nodeKey: 'to-guide' }],
    ['DocumentReference', { documentHash: hashDocument(introDocument), targetKind: 'url', target: 'https://example.com/x', nodeKey: null }],
    // A kind outside REFERENCE_TARGET_KINDS: stored by the release, never read, dropped by the migration.
    ['DocumentReference', { documentHash: hashDocument(introDocument), targetKind: 'snippet', target: 'sn1', nodeKey: null }],
    page({ pageId: 'pg-intro', index: 0, kind: 'document', title: 'Introduction', slug: 'intro', path: 'intro', description: 'Orientation for newcomers', documentHash: hashDocument(introDocument), layout: json(introLayout) }),
    page({ pageId: 'pg-group', index: 1, kind: 'group', title: 'Guides', slug: 'guides', path: 'guides' }),
    page({ pageId: 'pg-guide', parentPageId: 'pg-group', index: 0, kind: 'document', title: 'Guide', slug: 'guide', path: 'guides/guide', documentHash: hashDocument(guideDocument) }),
    page({ pageId: 'pg-link', index: 2, kind: 'link', title: 'Website', slug: 'website', path: 'website', linkTarget: json(linkTarget) }),
    ['ChangeRequest', {
      id: 'cr1', spaceId: 'sp1', number: 1, status: 'open', subject: 'Fix typos', description: json(descriptionDocument), createdById: 'u-ada',
      revisionId: 'rev1', revisionInitialId: 'rev1', updatedAt: NOW,
    }],
    ['ChangeRequest', { id: 'cr2', spaceId: 'sp1', number: 2, status: 'archived', subject: 'Old', description: null, createdById: 'u-ada', revisionId: 'rev1', revisionInitialId: 'rev1', updatedAt: NOW }],
    ['ChangeRequestReview', { id: 'rv1', changeRequestId: 'cr1', reviewerId: 'u-review', status: 'changes-requested', revisionId: 'rev1' }],
    ['Site', {
      id: 'site1', organizationId: 'org1', type: 'legacy-premium', title: 'Docs', visibility: 'share-link', published: true, publishedAt: NOW, basename: 'docs',
      adaptiveContent: true, agentsContext: 'excluded', adaptiveSchema: json(adaptiveSchema), adaptiveSchemaUpdatedAt: NOW, customizations: json(siteCustomizations), updatedAt: NOW,
    }],
    ['SiteSpace', { id: 'ss1', siteId: 'site1', sectionId: null, spaceId: 'sp1', path: 'handbook', isDefault: true, customizations: json(siteSpaceCustomizations), updatedAt: NOW }],
    ['Job', { id: 'job1', organizationId: 'org1', spaceId: 'sp1', kind: 'git-import', state: 'succeeded', step: 'done', percent: 100, input: json(jobInput), result: json(jobResult), updatedAt: NOW }],
    ['Job', { id: 'job2', organizationId: 'org1', spaceId: 'sp2', translationId: 'tr1', kind: 'translation-run', state: 'failed', input: json({}), result: null, error: 'provider down', updatedAt: NOW }],
    ['GitSync', {
      spaceId: 'sp1', provider: 'gitlab', url: 'https://gitlab.com/acme/docs.git', ref: 'refs/heads/main', lastCommit: 'abc123', lastSyncAt: NOW,
      lastSyncKind: 'import', lastSyncStatus: 'succeeded', lastJobId: 'job1', updatedAt: NOW,
    }],
    ['Translation', {
      id: 'tr1', organizationId: 'org1', sourceSpaceId: 'sp1', sourceLanguage: 'en', language: 'pt-br', targetSpaceId: 'sp2',
      instructions: json(instructionsDocument), updatedAt: NOW,
    }],
    ['TranslationSegment', { hash: 'seg1', language: 'pt-br', text: 'Olá' }],
  ];
}

const insertSql = (table: string, row: Record<string, Literal>) =>
  `INSERT INTO "${table}" (${Object.keys(row).map((c) => `"${c}"`).join(', ')}) VALUES (${Object.values(row).map(literal).join(', ')})`;

/** A row of the search index as the release's server wrote it (the tables it created at start). */
function searchRowSql(provider: Provider): string[] {
  const columns = `space_id, page_id, position, section_id, page_path, page_title, hidden, section_title, body`;
  const values = `'sp1', 'pg-guide', 0, '', 'guides/guide', 'Guide', ${provider === 'sqlite' ? 0 : 'FALSE'}, '', 'Install the widget with care.'`;
  if (provider === 'postgresql') return [`INSERT INTO search_section (${columns}) VALUES (${values})`];
  return [
    `INSERT INTO search_section (id, ${columns}) VALUES (1, ${values})`,
    `INSERT INTO search_section_fts (rowid, space_id, page_id, section_id, page_title, section_title, body) VALUES (1, 'sp1', 'pg-guide', '', 'Guide', '', 'Install the widget with care.')`,
  ];
}

/** The search tables as the release's server made them: the same DDL the search_index migration now holds. */
function releasedSearchTablesSql(provider: Provider): string {
  const dir = readMigrationsList(provider).migrationDirectories.find((d) => d.path.endsWith('_search_index'))!;
  return fs.readFileSync(path.join(migrationsDir(provider), dir.path, 'migration.sql'), 'utf8');
}

// ---------------------------------------------------------------- the test

function upgradeSuite(provider: Provider, makeConfig: () => { config: DatabaseConfig; url: string; cleanup: () => Promise<void> }) {
  let made: ReturnType<typeof makeConfig>;
  let server: TestServer;
  let token: string;
  let applied: string[];
  let upgradedDb: Db;

  const get = async (urlPath: string) => {
    const res = await server.request('GET', urlPath, { token });
    expect(res.status, `${urlPath}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };
  const graphql = async (query: string) => {
    const res = await server.request('POST', '/graphql', { token, body: { query } });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return res.body.data;
  };

  beforeAll(async () => {
    made = makeConfig();
    const { config } = made;
    await prepareDatabase(config);
    const released = await migrate(config, { until: LAST_RELEASED_MIGRATION });
    expect(released.applied.at(-1)).toBe(LAST_RELEASED_MIGRATION);
    const db = createDb(config);
    try {
      await db.$executeRawUnsafe(releasedSearchTablesSql(provider));
      for (const [table, row] of releasedRows()) await db.$executeRawUnsafe(insertSql(table, row));
      for (const statement of searchRowSql(provider)) await db.$executeRawUnsafe(statement);
    } finally {
      await closeDb(db);
    }
    ({ applied } = await migrate(config));
    const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-api-files-'));
    server = await startTestServer({}, { database: { url: made.url, config, drop: async () => {} }, storageDir });
    token = (await issueTokenForEmail(server.app.db, 'ada@acme.test')).token;
    upgradedDb = server.app.db;
  });

  afterAll(async () => {
    await server?.close();
    await made.cleanup();
  });

  it('applies the migrations made since, and builds what a fresh database has', async () => {
    const all = readMigrationsList(provider).migrationDirectories.map((d) => d.path);
    expect(applied).toEqual(all.slice(all.indexOf(LAST_RELEASED_MIGRATION) + 1));
    expect(applied.length).toBeGreaterThan(0);
    const schema = provider === 'sqlite' ? sqliteSchema : derivePostgresSchema(sqliteSchema);
    expect(await diffDatabaseToSchema(made.config, schema)).toBe('');
  });

  it('reads the organization, its members and its agent instructions back', async () => {
    expect(await get('/v1/orgs/org1')).toMatchObject({ id: 'org1', emailDomains, mergeRules: orgMergeRules, type: 'community', useCase: 'openSourceDocs', communityType: 'openSource', defaultRole: 'comment' });
    const members = (await get('/v1/orgs/org1/members?limit=100')).items as Array<{ id: string; role: string | null }>;
    expect(Object.fromEntries(members.map((m) => [m.id, m.role ?? null]))).toEqual({
      'u-ada': 'admin', ...Object.fromEntries(Object.entries(ROLE_USERS).map(([role, id]) => [id, role])), 'u-guest': null,
    });
    expect((await get('/v1/orgs/org1/agent-instructions')).instructions).toEqual(agentInstructionsDocument);
  });

  it('reads the collection and the spaces back', async () => {
    expect(await get('/v1/collections/col1')).toMatchObject({ defaultLevel: 'review' });
    expect(await get('/v1/spaces/sp1')).toMatchObject({ visibility: 'in-collection', editMode: 'locked', defaultLevel: 'edit', language: 'en', mergeRules: { type: 'inherit' } });
    expect(await get('/v1/spaces/sp2')).toMatchObject({ visibility: 'share-link', editMode: 'live', defaultLevel: null, language: 'pt-br', mergeRules: { type: 'none' } });
  });

  it('reads the revision back: variables, pages with their layout, link target and documents', async () => {
    const revision = await get('/v1/spaces/sp1/content');
    expect(revision).toMatchObject({ id: 'rev1', type: 'merge', parents: ['rev0'], variables });
    const [intro, group, link] = revision.pages;
    expect(intro).toMatchObject({ id: 'pg-intro', type: 'document', layout: { ...introLayout, title: true, outline: true }, document: introDocument });
    expect(group).toMatchObject({ id: 'pg-group', kind: 'group', pages: [{ id: 'pg-guide', document: guideDocument }] });
    expect(link).toMatchObject({ id: 'pg-link', kind: 'link', target: linkTarget, href: linkTarget.url });
    const markdown = (await get('/v1/spaces/sp1/content/page/pg-guide?format=markdown')).markdown as string;
    expect(markdown).toMatch(/\| Alpha \| Zeta \|/);
  });

  it('reads the links (the references carried over) and finds what the search index held', async () => {
    type Location = { kind: string; url: string | null; page: { id: string } | null };
    const links = (await get('/v1/spaces/sp1/links')).items as Array<{ status: string; targetReference?: Location; locationReferences: Location[] }>;
    expect(links.map((l) => [l.status, l.targetReference?.kind, l.targetReference?.page?.id ?? l.targetReference?.url, l.locationReferences.map((p) => p.page?.id)])).toEqual([
      ['broken', undefined, undefined, ['pg-intro']], // the spec "pets" was never made
      ['ok', 'page', 'pg-guide', ['pg-intro']],
      ['ok', 'url', 'https://example.com/x', ['pg-intro']],
    ]);
    expect(await upgradedDb.documentReference.count()).toBe(3);
    expect(await upgradedDb.documentReference.findFirst({ where: { targetKind: 'openapi' } })).toMatchObject({ target: 'pets', nodeKey: 'pets-op' });
    const found = (await get('/v1/spaces/sp1/search?query=widget')).items as Array<{ id: string }>;
    expect(found.map((item) => item.id)).toEqual(['pg-guide']);
    // The release indexed no descriptions: the server rewrote every space's rows before it listened.
    const described = (await get('/v1/spaces/sp1/search?query=orientation')).items as Array<{ id: string }>;
    expect(described.map((item) => item.id)).toEqual(['pg-intro']);
    expect(await upgradedDb.$queryRawUnsafe('SELECT version FROM search_index_state')).toEqual([{ version: SEARCH_INDEX_VERSION }]);
  });

  it('reads the change requests and the review back', async () => {
    expect(await get('/v1/spaces/sp1/change-requests/cr1')).toMatchObject({ status: 'open', subject: 'Fix typos', description: descriptionDocument });
    const archived = await get('/v1/spaces/sp1/change-requests/cr2');
    expect(archived.status).toBe('archived');
    expect(archived.description ?? null).toBeNull();
    const reviews = await get('/v1/spaces/sp1/change-requests/cr1/reviews');
    expect(reviews.items).toMatchObject([{ id: 'rv1', status: 'changes-requested', revision: 'rev1', outdated: false, reviewer: { id: 'u-review' } }]);
    expect(reviews.items[0].requestedBy).toBeUndefined();
  });

  it('reads the site back: settings, icon, customizations and the adaptive schema in its own order', async () => {
    expect(await get('/v1/orgs/org1/sites/site1')).toMatchObject({ type: 'legacy-premium', visibility: 'share-link', agentsContext: 'excluded', icon: { emoji: '📘' } });
    const published = await get('/v1/orgs/org1/sites/site1/published');
    expect(published.customizations.site).toMatchObject({
      styling: { theme: 'clean', primaryColor: { light: '#ff0000', dark: '#346DDB' } }, favicon: { emoji: '📘' }, pdf: { enabled: false },
    });
    expect(published.customizations.siteSpaces.ss1).toMatchObject({ title: 'Handbook on the site', pdf: { enabled: false } });
    const stored = await get('/v1/orgs/org1/sites/site1/adaptive-schema');
    expect(stored.jsonSchema).toEqual(adaptiveSchema);
    expect(Object.keys(stored.jsonSchema.properties)).toEqual(['subscription', 'beta']);
    const conditions = (await get('/v1/orgs/org1/sites/site1/adaptive-schema/template-conditions')).items as Array<{ condition: string }>;
    expect(conditions.map((c) => c.condition)).toEqual([
      'visitor.claims.subscription === "free"',
      'visitor.claims.subscription === "pro"',
      'visitor.claims.beta === true',
    ]);
  });

  it('reads the jobs, the Git sync and the translation back', async () => {
    const data = await graphql('{ imported: job(id: "job1") { kind state result sequence } failed: job(id: "job2") { kind state result error sequence } }');
    expect(data.imported).toEqual({ kind: 'GIT_IMPORT', state: 'succeeded', result: jobResult, sequence: 1 });
    expect(data.failed).toEqual({ kind: 'TRANSLATION_RUN', state: 'failed', result: null, error: 'provider down', sequence: 1 });
    // Each job's history starts with the state it had (what a subscriber replays).
    expect(await upgradedDb.jobEvent.findMany({ orderBy: { jobId: 'asc' } })).toMatchObject([
      { jobId: 'job1', sequence: 1, state: 'succeeded', step: 'done', percent: 100, error: null },
      { jobId: 'job2', sequence: 1, state: 'failed', step: null, error: 'provider down' },
    ]);
    expect((await upgradedDb.job.findUniqueOrThrow({ where: { id: 'job1' } })).input).toEqual(jobInput);
    expect(await get('/v1/spaces/sp1/git/info')).toMatchObject({ installationProvider: 'gitlab', lastCommit: 'abc123', lastSync: { kind: 'import', status: 'succeeded', job: 'job1' } });
    expect(await get('/v1/orgs/org1/translations/tr1')).toMatchObject({ language: 'pt-br', source: { space: 'sp1', language: 'en' }, instructions: instructionsDocument });
    expect(await upgradedDb.translationSegment.findMany()).toMatchObject([{ hash: 'seg1', language: 'pt-br', text: 'Olá' }]);
  });
}

describe('SQLite', () => {
  upgradeSuite('sqlite', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'db-upgrade-'));
    const url = `file:${path.join(dir, 'app.db')}`;
    const config = parseDatabaseUrl(url);
    return { config, url, cleanup: async () => { await dropDatabase(config); fs.rmSync(dir, { recursive: true, force: true }); } };
  });
});

describe.skipIf(!servicesConfigured('postgres'))('PostgreSQL (TEST_DATABASE_URL)', () => {
  upgradeSuite('postgresql', () => {
    const u = new URL(TEST_DATABASE_URL!);
    u.searchParams.set('schema', `t_${randomBytes(6).toString('hex')}`);
    const url = u.toString();
    const config = parseDatabaseUrl(url);
    return { config, url, cleanup: () => dropDatabase(config) };
  });
});
