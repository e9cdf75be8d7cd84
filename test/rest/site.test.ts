/**
 * Docs sites over real HTTP: create, list (filters, paging), read, update,
 * delete (and what it cascades to), publish/unpublish, adaptive schema and
 * template conditions, customizations; roles, limits and cross-organization
 * isolation; and GitBook's own client once.
 */
import { createRequire } from 'node:module';
import { GitBookAPI } from '@gitbook/api';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });

const sitePath = (org: string, site: string, rest = '') => `/v1/orgs/${org}/sites/${site}${rest}`;

async function patchSite(user: TestUser, org: string, site: string, body: unknown) {
  return server.request('PATCH', sitePath(org, site), { token: user.token, body });
}

async function graphql(user: TestUser, query: string, variables: Record<string, unknown> = {}) {
  return server.request('POST', '/graphql', { token: user.token, body: { query, variables } });
}

/** A validator for a component schema of GitBook's OpenAPI document, 0.146.0 or 0.202.0 (for GraphQL values). */
function componentValidator(name: string, pkg: '@gitbook/api' | 'gitbook-api-next' = '@gitbook/api') {
  const require = createRequire(import.meta.url);
  const spec = require(`${pkg}/spec/openapi.json`) as { components: unknown };
  const AjvClass = ((Ajv as unknown as { default?: typeof Ajv }).default ?? Ajv) as typeof Ajv;
  const ajv = new AjvClass({ strict: false, allErrors: true });
  ((addFormats as unknown as { default?: typeof addFormats }).default ?? addFormats)(ajv);
  ajv.addFormat('emoji', true);
  ajv.addSchema({ $id: 'spec', components: spec.components });
  return ajv.compile({ $ref: `spec#/components/schemas/${name}` });
}

describe('creating and reading sites', () => {
  it('creates a site with the defaults and reads it back', async () => {
    const org = await server.createOrg(ada);
    const res = await server.request('POST', `/v1/orgs/${org}/sites`, { token: ada.token, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    assertMatchesSpec('createSite', 201, res.body);
    expect(res.body).toMatchObject({
      object: 'site',
      title: 'Docs site',
      type: 'basic',
      visibility: 'public',
      basename: 'docs-site',
      published: false,
      siteSpaces: 0,
      agentsContext: 'included',
      adaptiveContent: { enabled: false },
      features: [],
      urls: { location: `${server.baseUrl}/v1/orgs/${org}/sites/${res.body.id}` },
    });
    expect(res.body.urls.published).toBeUndefined();
    expect(res.body.icon).toBeUndefined();

    const got = await server.request('GET', sitePath(org, res.body.id), { token: ada.token });
    expect(got.status).toBe(200);
    assertMatchesSpec('getSiteById', 200, got.body);
    expect(got.body).toMatchObject({ id: res.body.id, title: 'Docs site', basename: 'docs-site' });
    // 0.202.0's members: the type applied (nothing is frozen), the organization's roles, the owner's permissions, the preview.
    assertMatchesSpec('getSiteById', 200, got.body, 'next');
    expect(got.body).toMatchObject({
      appliedType: 'basic',
      defaultLevel: 'inherit',
      permissions: { view: true, access: true, edit: true, create: true, admin: true, installIntegration: true, viewAdaptiveSchema: true, editAdaptiveSchema: true },
      urls: { preview: `${server.baseUrl}/v1/orgs/${org}/sites/${res.body.id}/published` },
    });
  });

  it('takes type, title, visibility; basenames are unique in the organization', async () => {
    const org = await server.createOrg(ada);
    const first = await server.createSite(ada, org, { title: 'Product Docs', type: 'premium', visibility: 'share-link' });
    expect(first).toMatchObject({ title: 'Product Docs', type: 'premium', visibility: 'share-link', basename: 'product-docs', appliedType: 'premium' });
    const second = await server.createSite(ada, org, { title: 'Product docs!' });
    expect(second.basename).toBe('product-docs-2');
    const third = await server.createSite(ada, org, { title: 'Product — Docs' });
    expect(third.basename).toBe('product-docs-3');
    // Another organization may use the same basename.
    const other = await server.createOrg(ada);
    expect((await server.createSite(ada, other, { title: 'Product Docs' })).basename).toBe('product-docs');
  });

  it('adds the given spaces as root site spaces, the first one the default', async () => {
    const org = await server.createOrg(ada);
    const a = await server.createSpace(ada, org, { title: 'Getting Started' });
    const b = await server.createSpace(ada, org, { title: 'API Reference' });
    const c = await server.createSpace(ada, org, { title: 'Getting started' });
    const site = await server.createSite(ada, org, { title: 'Docs', spaces: [a.id, b.id, c.id] });
    expect(site.siteSpaces).toBe(3);
    const rows = await server.app.db.siteSpace.findMany({ where: { siteId: site.id }, orderBy: { position: 'asc' } });
    expect(rows.map((r) => [r.spaceId, r.path, r.isDefault, r.sectionId])).toEqual([
      [a.id, 'getting-started', true, null],
      [b.id, 'api-reference', false, null],
      [c.id, 'getting-started-2', false, null],
    ]);
    expect(rows[0]!.position).toBeLessThan(rows[1]!.position);
  });

  it('refuses spaces of another organization or that do not exist (400), and creates nothing', async () => {
    const org = await server.createOrg(ada);
    const other = await server.createOrg(bob);
    const theirs = await server.createSpace(bob, other);
    const mine = await server.createSpace(ada, org);
    for (const spaces of [[mine.id, theirs.id], ['no-such-space']]) {
      expectError(await server.request('POST', `/v1/orgs/${org}/sites`, { token: ada.token, body: { spaces } }), 400, /spaces: .*no space/);
    }
    expect(await server.app.db.site.count({ where: { organizationId: org } })).toBe(0);
  });

  it('validates the body: title 2..128, type and visibility values', async () => {
    const org = await server.createOrg(ada);
    for (const body of [{ title: 'x' }, { title: 'x'.repeat(129) }, { type: 'gold' }, { visibility: 'secret' }, { spaces: 'abc' }]) {
      expectError(await server.request('POST', `/v1/orgs/${org}/sites`, { token: ada.token, body }), 400, new RegExp(Object.keys(body)[0]!));
    }
    await server.createSite(ada, org, { title: 'xy' });
    await server.createSite(ada, org, { title: 'x'.repeat(128) });
  });
});

describe('listing sites', () => {
  it('pages through the sites with limit=2, visiting each exactly once', async () => {
    const org = await server.createOrg(ada);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await server.createSite(ada, org, { title: `Site ${i}` })).id);
    expect(await server.pageThrough(ada, `/v1/orgs/${org}/sites`, 'listSites')).toEqual({ ids, pages: 3, count: 5 });
    expectError(await server.request('GET', `/v1/orgs/${org}/sites?limit=0`, { token: ada.token }), 400, /limit/);
    expectError(await server.request('GET', `/v1/orgs/${org}/sites?page=garbage`, { token: ada.token }), 400, /page/);
  });

  it('filters by space, title, published and type', async () => {
    const org = await server.createOrg(ada);
    const space = await server.createSpace(ada, org);
    const withSpace = await server.createSite(ada, org, { title: 'Handbook', spaces: [space.id] });
    const premium = await server.createSite(ada, org, { title: 'API 100% Docs', type: 'premium' });
    const ultimate = await server.createSite(ada, org, { title: 'Changelog', type: 'ultimate' });
    expect((await server.request('POST', sitePath(org, premium.id, '/publish'), { token: ada.token })).status).toBe(200);

    const ids = (query: string) => server.listIds(ada, `/v1/orgs/${org}/sites?${query}`, 'listSites');
    expect(await ids(`space=${space.id}`)).toEqual([withSpace.id]);
    expect(await ids('space=nothing')).toEqual([]);
    expect(await ids('title=handBOOK')).toEqual([withSpace.id]);
    expect(await ids(`title=${encodeURIComponent('100%')}`)).toEqual([premium.id]);
    expect(await ids(`title=${encodeURIComponent('0_')}`)).toEqual([]);
    expect(await ids('published=true')).toEqual([premium.id]);
    expect(await ids('published=false')).toEqual([withSpace.id, ultimate.id]);
    expect(await ids('type=premium&type=ultimate')).toEqual([premium.id, ultimate.id]);
    expect(await ids('type=basic&published=false')).toEqual([withSpace.id]);
    expectError(await server.request('GET', `/v1/orgs/${org}/sites?published=maybe`, { token: ada.token }), 400, /published/);
    expectError(await server.request('GET', `/v1/orgs/${org}/sites?type=gold`, { token: ada.token }), 400);
  });
});

describe('updating sites', () => {
  let org: string;
  beforeAll(async () => {
    org = await server.createOrg(ada);
  });

  it('updates title, visibility, basename, adaptiveContent, agentsContext, proxy and hostname', async () => {
    const site = await server.createSite(ada, org, { title: 'Before' });
    const res = await patchSite(ada, org, site.id, {
      title: 'After',
      visibility: 'unlisted',
      basename: 'after',
      adaptiveContent: { enabled: true },
      agentsContext: 'excluded',
      proxy: 'example.com/docs',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('updateSiteById', 200, res.body);
    expect(res.body).toMatchObject({
      title: 'After',
      visibility: 'unlisted',
      basename: 'after',
      adaptiveContent: { enabled: true },
      agentsContext: 'excluded',
      proxy: { origin: 'example.com/docs', target: `${server.app.config.sitesUrl}/${org}/after/` },
    });

    const hostname = `docs-${site.id.toLowerCase()}.example.com`;
    const withHost = await patchSite(ada, org, site.id, { hostname, proxy: null });
    expect(withHost.status, JSON.stringify(withHost.body)).toBe(200);
    assertMatchesSpec('updateSiteById', 200, withHost.body);
    expect(withHost.body.hostname).toBe(hostname);
    expect(withHost.body.proxy).toBeUndefined();

    const published = await server.request('POST', sitePath(org, site.id, '/publish'), { token: ada.token });
    expect(published.body.urls.published).toBe(`https://${hostname}/`);
    const noHost = await patchSite(ada, org, site.id, { hostname: null });
    expect(noHost.body.hostname).toBeUndefined();
    expect(noHost.body.urls.published).toBe(`${server.app.config.sitesUrl}/${org}/after/`);

    // Unknown members are ignored; an empty body changes nothing.
    const same = await patchSite(ada, org, site.id, { nonsense: 1 });
    expect(same.status).toBe(200);
    expect(same.body.title).toBe('After');
  });

  it('answers 409 for a basename or hostname another site has', async () => {
    const a = await server.createSite(ada, org, { title: 'Alpha' });
    const b = await server.createSite(ada, org, { title: 'Beta' });
    expectError(await patchSite(ada, org, b.id, { basename: a.basename }), 409, /basename/);
    // Setting a site's own basename again is fine.
    expect((await patchSite(ada, org, a.id, { basename: a.basename })).status).toBe(200);
    const hostname = `h-${a.id.toLowerCase()}.example.com`;
    expect((await patchSite(ada, org, a.id, { hostname })).status).toBe(200);
    expectError(await patchSite(ada, org, b.id, { hostname }), 409, /hostname/);
  });

  it('enforces the limits: title 2..128, basename 1..100, proxy and hostname patterns (400)', async () => {
    const site = await server.createSite(ada, org, { title: 'Limits' });
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ title: 'x' }, /title/],
      [{ title: 'x'.repeat(129) }, /title/],
      [{ title: null }, /title/],
      [{ basename: '' }, /basename/],
      [{ basename: 'x'.repeat(101) }, /basename/],
      [{ basename: 'has space' }, /basename/],
      [{ proxy: 'not a proxy' }, /proxy/],
      [{ proxy: 'example.com' }, /proxy/],
      [{ proxy: `example.com/${'x'.repeat(520)}` }, /proxy/],
      [{ hostname: 'Docs.Example.com' }, /hostname/],
      [{ hostname: 'example.com' }, /hostname/],
      [{ visibility: 'secret' }, /visibility/],
      [{ agentsContext: 'maybe' }, /agentsContext/],
      [{ adaptiveContent: {} }, /adaptiveContent/],
    ];
    for (const [body, message] of bad) expectError(await patchSite(ada, org, site.id, body), 400, message);
    const ok = await patchSite(ada, org, site.id, { title: 'xy', basename: 'x'.repeat(100), proxy: 'www.company.io/developer/docs' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    assertMatchesSpec('updateSiteById', 200, ok.body);
    expect((await patchSite(ada, org, site.id, { title: 'x'.repeat(128) })).status).toBe(200);
  });

  it('sets the default site space at the root, clearing it on the others', async () => {
    const s1 = await server.createSpace(ada, org, { title: 'One' });
    const s2 = await server.createSpace(ada, org, { title: 'Two' });
    const site = await server.createSite(ada, org, { title: 'Defaults', spaces: [s1.id, s2.id] });
    const [first, second] = await server.app.db.siteSpace.findMany({ where: { siteId: site.id }, orderBy: { position: 'asc' } });
    const res = await patchSite(ada, org, site.id, { defaultSiteSpace: second!.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('updateSiteById', 200, res.body);
    const rows = await server.app.db.siteSpace.findMany({ where: { siteId: site.id }, orderBy: { position: 'asc' } });
    expect(rows.map((r) => [r.id, r.isDefault])).toEqual([
      [first!.id, false],
      [second!.id, true],
    ]);
    expectError(await patchSite(ada, org, site.id, { defaultSiteSpace: 'nope' }), 400, /defaultSiteSpace/);
    // A site space of another site is not one of this site's.
    const other = await server.createSite(ada, org, { title: 'Other', spaces: [s1.id] });
    const otherSiteSpace = await server.app.db.siteSpace.findFirstOrThrow({ where: { siteId: other.id } });
    expectError(await patchSite(ada, org, site.id, { defaultSiteSpace: otherSiteSpace.id }), 400, /defaultSiteSpace/);
  });

  it('sets the default section, and the default site space in the default section', async () => {
    const space = await server.createSpace(ada, org, { title: 'Sectioned' });
    const site = await server.createSite(ada, org, { title: 'With sections' });
    const db = server.app.db;
    const [secA, secB] = [newId(), newId()];
    await db.siteSection.create({ data: { id: secA, siteId: site.id, title: 'A', path: 'a', position: 1 } });
    await db.siteSection.create({ data: { id: secB, siteId: site.id, title: 'B', path: 'b', position: 2 } });
    const [a1, a2, b1] = [newId(), newId(), newId()];
    await db.siteSpace.create({ data: { id: a1, siteId: site.id, sectionId: secA, spaceId: space.id, path: 'a1', isDefault: true, position: 1 } });
    await db.siteSpace.create({ data: { id: a2, siteId: site.id, sectionId: secA, spaceId: space.id, path: 'a2', position: 2 } });
    await db.siteSpace.create({ data: { id: b1, siteId: site.id, sectionId: secB, spaceId: space.id, path: 'b1', isDefault: true, position: 1 } });

    // Without a default section set, the first section is the default one: b1 is not in it.
    expectError(await patchSite(ada, org, site.id, { defaultSiteSpace: b1 }), 400, /default section/);
    const res = await patchSite(ada, org, site.id, { defaultSiteSpace: a2 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await db.siteSpace.findMany({ where: { sectionId: secA }, orderBy: { position: 'asc' } })).map((r) => r.isDefault)).toEqual([false, true]);
    expect((await db.siteSpace.findUniqueOrThrow({ where: { id: b1 } })).isDefault).toBe(true);
    expect((await db.siteSection.findUniqueOrThrow({ where: { id: secA } })).defaultSiteSpaceId).toBe(a2);

    // Both at once: section B becomes the default, and b1 its default site space.
    const both = await patchSite(ada, org, site.id, { defaultSiteSection: secB, defaultSiteSpace: b1 });
    expect(both.status, JSON.stringify(both.body)).toBe(200);
    assertMatchesSpec('updateSiteById', 200, both.body);
    expect((await db.site.findUniqueOrThrow({ where: { id: site.id } })).defaultSectionId).toBe(secB);
    expectError(await patchSite(ada, org, site.id, { defaultSiteSpace: a1 }), 400, /default section/);
    expectError(await patchSite(ada, org, site.id, { defaultSiteSection: 'nope' }), 400, /defaultSiteSection/);
  });
});

describe('customizations', () => {
  const validate = componentValidator('SiteCustomizationSettings');
  const CUSTOMIZATIONS = `query($org: ID!, $id: ID!) { site(organizationId: $org, id: $id) { customizations icon } }`;
  const UPDATE = `mutation($org: ID!, $id: ID!, $c: JSON!) { updateSiteCustomizations(organizationId: $org, siteId: $id, customizations: $c) { customizations icon } }`;

  it('reads the full settings with defaults, and deep-merges partial updates (GraphQL and PATCH)', async () => {
    const org = await server.createOrg(ada);
    const site = await server.createSite(ada, org);
    const initial = await graphql(ada, CUSTOMIZATIONS, { org, id: site.id });
    expect(initial.body.errors).toBeUndefined();
    const full = initial.body.data.site.customizations;
    expect(validate(full), JSON.stringify(validate.errors)).toBe(true);
    expect(full.styling.theme).toBe('clean');
    expect(initial.body.data.site.icon).toBeNull();

    const updated = await graphql(ada, UPDATE, { org, id: site.id, c: { styling: { primaryColor: { light: '#ff0000' }, theme: 'bold' }, favicon: { emoji: '🚀' } } });
    expect(updated.body.errors).toBeUndefined();
    const merged = updated.body.data.updateSiteCustomizations.customizations;
    expect(validate(merged), JSON.stringify(validate.errors)).toBe(true);
    expect(merged.styling).toMatchObject({ theme: 'bold', primaryColor: { light: '#ff0000', dark: full.styling.primaryColor.dark }, corners: 'rounded' });
    expect(updated.body.data.updateSiteCustomizations.icon).toEqual({ emoji: '🚀' });

    // The favicon is the site's icon in REST.
    const got = await server.request('GET', sitePath(org, site.id), { token: ada.token });
    assertMatchesSpec('getSiteById', 200, got.body);
    expect(got.body.icon).toEqual({ emoji: '🚀' });

    // PATCH accepts customizations too; a favicon is replaced as a whole, null goes back to the default.
    const icon = { icon: { light: 'https://example.com/l.png', dark: 'https://example.com/d.png' } };
    const patched = await patchSite(ada, org, site.id, { customizations: { favicon: icon, styling: { theme: null }, pdf: { enabled: false } } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    assertMatchesSpec('updateSiteById', 200, patched.body);
    expect(patched.body.icon).toEqual(icon);
    const after = (await graphql(ada, CUSTOMIZATIONS, { org, id: site.id })).body.data.site.customizations;
    expect(validate(after), JSON.stringify(validate.errors)).toBe(true);
    expect(after).toMatchObject({ favicon: icon, pdf: { enabled: false }, styling: { theme: 'clean', primaryColor: { light: '#ff0000' } } });
  });

  it('refuses invalid customizations with 400 naming the path, and keeps the stored value', async () => {
    const org = await server.createOrg(ada);
    const site = await server.createSite(ada, org);
    const bad: Array<[unknown, RegExp]> = [
      [{ styling: { theme: 'neon' } }, /customizations\.styling\.theme/],
      [{ styling: { primaryColor: { light: 'red' } } }, /customizations\.styling\.primaryColor\.light/],
      [{ ai: { mode: 'everything' } }, /customizations\.ai\.mode/],
      [{ header: { links: [{ title: 'x' }] } }, /customizations\.header\.links\[0\]/],
      ['not an object', /customizations/],
    ];
    for (const [customizations, message] of bad) {
      expectError(await patchSite(ada, org, site.id, { customizations }), 400, message);
      const res = await graphql(ada, UPDATE, { org, id: site.id, c: customizations });
      expect(res.body.errors?.[0]?.message).toMatch(message);
    }
    expect((await server.app.db.site.findUniqueOrThrow({ where: { id: site.id } })).customizations).toEqual({});
  });

  it('keeps every member of concurrent partial updates', async () => {
    const org = await server.createOrg(ada);
    const site = await server.createSite(ada, org);
    const patches = [{ pdf: { enabled: false } }, { feedback: { enabled: true } }, { ai: { mode: 'assistant' } }, { styling: { corners: 'straight' } }, { git: { showEditLink: true } }];
    const results = await Promise.all(patches.map((customizations) => patchSite(ada, org, site.id, { customizations })));
    expect(results.map((r) => r.status)).toEqual(patches.map(() => 200));
    const after = (await graphql(ada, CUSTOMIZATIONS, { org, id: site.id })).body.data.site.customizations;
    expect(after).toMatchObject({ pdf: { enabled: false }, feedback: { enabled: true }, ai: { mode: 'assistant' }, styling: { corners: 'straight' }, git: { showEditLink: true } });
  });

  it("answers the members of 0.202.0 the site renderer reads, with their defaults: socialAccounts, styling.codeTheme, pageActions.items", async () => {
    const validateNext = componentValidator('SiteCustomizationSettings', 'gitbook-api-next');
    const org = await server.createOrg(ada);
    const site = await server.createSite(ada, org);
    const full = (await graphql(ada, CUSTOMIZATIONS, { org, id: site.id })).body.data.site.customizations;
    expect(validate(full), JSON.stringify(validate.errors)).toBe(true);
    expect(validateNext(full), JSON.stringify(validateNext.errors)).toBe(true);
    expect(full.socialAccounts).toEqual([]);
    expect(full.styling.codeTheme).toEqual({
      default: { light: 'default-light', dark: 'default-dark' },
      openapi: { light: 'default-light', dark: 'default-dark' },
    });
    // The list the 0.146.0 flags say: markdown, external AI, MCP and PDF on, the Git edit link off; no assistant (ai.mode is search).
    expect(full.pageActions).toEqual({ externalAI: true, markdown: true, mcp: true, items: ['markdown', 'external-ai', 'mcp', 'pdf'] });

    // Set through PATCH: stored, deep-merged, a social account's display defaulting to the footer only.
    const patched = await patchSite(ada, org, site.id, {
      customizations: {
        socialAccounts: [
          { platform: 'github', handle: 'GitbookIO' },
          { platform: 'bluesky', handle: 'gitbook.com', display: { header: true } },
        ],
        styling: { codeTheme: { default: { dark: 'dracula' }, openapi: { light: 'github-light', dark: 'github-dark' } } },
      },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const stored = (await server.app.db.site.findUniqueOrThrow({ where: { id: site.id } })).customizations as any;
    expect(stored.socialAccounts).toEqual([{ platform: 'github', handle: 'GitbookIO' }, { platform: 'bluesky', handle: 'gitbook.com', display: { header: true } }]);
    const after = (await graphql(ada, CUSTOMIZATIONS, { org, id: site.id })).body.data.site.customizations;
    expect(validate(after), JSON.stringify(validate.errors)).toBe(true);
    expect(validateNext(after), JSON.stringify(validateNext.errors)).toBe(true);
    expect(after.socialAccounts).toEqual([
      { platform: 'github', handle: 'GitbookIO', display: { footer: true, header: false } },
      { platform: 'bluesky', handle: 'gitbook.com', display: { footer: true, header: true } },
    ]);
    expect(after.styling.codeTheme).toEqual({ default: { light: 'default-light', dark: 'dracula' }, openapi: { light: 'github-light', dark: 'github-dark' } });

    // null goes back to the defaults.
    const reset = await graphql(ada, UPDATE, { org, id: site.id, c: { socialAccounts: null, styling: { codeTheme: null } } });
    expect(reset.body.errors).toBeUndefined();
    expect(reset.body.data.updateSiteCustomizations.customizations).toMatchObject({ socialAccounts: [], styling: { codeTheme: full.styling.codeTheme } });
  });

  it('answers pageActions.items as the truth of the page actions, the 0.146.0 flags following it and editing it', async () => {
    const org = await server.createOrg(ada);
    const site = await server.createSite(ada, org);
    const update = async (c: unknown) => {
      const res = await graphql(ada, UPDATE, { org, id: site.id, c });
      expect(res.body.errors).toBeUndefined();
      const full = res.body.data.updateSiteCustomizations.customizations;
      expect(validate(full), JSON.stringify(validate.errors)).toBe(true);
      return { pageActions: full.pageActions, pdf: full.pdf, git: full.git };
    };
    // Flags alone (a 0.146.0 client): the list is what they say, in GitBook's order.
    expect(await update({ pdf: { enabled: false }, git: { showEditLink: true }, pageActions: { externalAI: false } })).toEqual({
      pageActions: { externalAI: false, markdown: true, mcp: true, items: ['markdown', 'mcp', 'git'] },
      pdf: { enabled: false },
      git: { showEditLink: true },
    });
    // A list: the flags are answered from it, and the flags stored before it are dropped.
    expect(await update({ pageActions: { items: ['pdf', 'markdown'] } })).toEqual({
      pageActions: { externalAI: false, markdown: true, mcp: false, items: ['pdf', 'markdown'] },
      pdf: { enabled: true },
      git: { showEditLink: false },
    });
    expect((await server.app.db.site.findUniqueOrThrow({ where: { id: site.id } })).customizations).toEqual({ pageActions: { items: ['pdf', 'markdown'] } });
    // A flag written after the list adds its action after the last one that precedes it in GitBook's order, or removes it.
    expect((await update({ pageActions: { mcp: true } })).pageActions).toEqual({ externalAI: false, markdown: true, mcp: true, items: ['pdf', 'markdown', 'mcp'] });
    expect((await server.app.db.site.findUniqueOrThrow({ where: { id: site.id } })).customizations).toEqual({ pageActions: { items: ['pdf', 'markdown', 'mcp'] } });
    expect((await update({ pageActions: { markdown: false } })).pageActions.items).toEqual(['pdf', 'mcp']);
    expect((await update({ pageActions: { markdown: true } })).pageActions.items).toEqual(['markdown', 'pdf', 'mcp']);
    expect((await update({ pageActions: { markdown: false } })).pageActions.items).toEqual(['pdf', 'mcp']);
    // The assistant follows ai.mode on a non-empty list: first when missing, kept where it is, gone when the mode is not assistant.
    expect((await update({ ai: { mode: 'assistant' } })).pageActions.items).toEqual(['assistant', 'pdf', 'mcp']);
    expect((await update({ pageActions: { items: ['mcp', 'assistant'] } })).pageActions.items).toEqual(['mcp', 'assistant']);
    expect((await update({ ai: { mode: 'none' } })).pageActions.items).toEqual(['mcp']);
    // An empty list turns the menu off, the assistant too.
    expect((await update({ ai: { mode: 'assistant' }, pageActions: { items: [] } })).pageActions).toEqual({ externalAI: false, markdown: false, mcp: false, items: [] });
    // null goes back to the list of the defaults.
    expect((await update({ ai: null, pageActions: { items: null } })).pageActions.items).toEqual(['markdown', 'external-ai', 'mcp', 'pdf']);
  });

  it('refuses invalid values of the 0.202.0 members with 400 naming the path, and keeps the stored value', async () => {
    const org = await server.createOrg(ada);
    const site = await server.createSite(ada, org);
    const before = { styling: { theme: 'bold' } };
    expect((await patchSite(ada, org, site.id, { customizations: before })).status).toBe(200);
    const account = { platform: 'github', handle: 'GitbookIO' };
    const bad: Array<[unknown, RegExp]> = [
      [{ socialAccounts: { github: 'GitbookIO' } }, /customizations\.socialAccounts must be array/],
      [{ socialAccounts: [{ platform: 'myspace', handle: 'tom' }] }, /customizations\.socialAccounts\[0\]\.platform must be one of "twitter"/],
      [{ socialAccounts: [account, { platform: 'github', handle: '' }] }, /customizations\.socialAccounts\[1\]\.handle/],
      [{ socialAccounts: [{ platform: 'github' }] }, /customizations\.socialAccounts\[0\] must have required property 'handle'/],
      [{ socialAccounts: [{ ...account, display: { footer: 'yes' } }] }, /customizations\.socialAccounts\[0\]\.display\.footer must be boolean/],
      [{ socialAccounts: Array.from({ length: 11 }, () => account) }, /customizations\.socialAccounts must NOT have more than 10 items/],
      [{ styling: { codeTheme: { default: { light: 'neon' } } } }, /customizations\.styling\.codeTheme\.default\.light must be one of "default-light"/],
      [{ styling: { codeTheme: 'dracula' } }, /customizations\.styling\.codeTheme must be object/],
      [{ pageActions: { items: ['print'] } }, /customizations\.pageActions\.items\[0\] must be one of "assistant"/],
      [{ pageActions: { items: 'markdown' } }, /customizations\.pageActions\.items must be array/],
      [{ pageActions: { markdown: 'yes' } }, /customizations\.pageActions\.markdown must be boolean/],
    ];
    for (const [customizations, message] of bad) {
      expectError(await patchSite(ada, org, site.id, { customizations }), 400, message);
      const res = await graphql(ada, UPDATE, { org, id: site.id, c: customizations });
      expect(res.body.errors?.[0]?.message).toMatch(message);
    }
    expect((await server.app.db.site.findUniqueOrThrow({ where: { id: site.id } })).customizations).toEqual(before);
  });

  it('needs admin (site:configure)', async () => {
    const org = await server.createOrg(ada);
    const site = await server.createSite(ada, org);
    const creator = await server.createUser('Creator');
    await server.addMember(org, creator, 'create');
    expectError(await patchSite(creator, org, site.id, { customizations: { pdf: { enabled: false } } }), 403);
    const res = await graphql(creator, UPDATE, { org, id: site.id, c: { pdf: { enabled: false } } });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('publishing', () => {
  it('publishes and unpublishes, idempotently', async () => {
    const org = await server.createOrg(ada);
    const site = await server.createSite(ada, org, { title: 'Live' });
    const publish = () => server.request('POST', sitePath(org, site.id, '/publish'), { token: ada.token });
    const unpublish = () => server.request('POST', sitePath(org, site.id, '/unpublish'), { token: ada.token });

    const published = await publish();
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    assertMatchesSpec('publishSite', 200, published.body);
    expect(published.body).toMatchObject({ published: true, urls: { published: `${server.app.config.sitesUrl}/${org}/live/` } });
    expect(published.body.publishedAt).toEqual(expect.any(String));
    expect(published.body.unpublishedAt).toBeUndefined();

    const again = await publish();
    expect(again.status).toBe(200);
    assertMatchesSpec('publishSite', 200, again.body);
    expect(again.body.publishedAt).toBe(published.body.publishedAt);

    const unpublished = await unpublish();
    expect(unpublished.status).toBe(200);
    assertMatchesSpec('unpublishSite', 200, unpublished.body);
    expect(unpublished.body.published).toBe(false);
    expect(unpublished.body.urls.published).toBeUndefined();
    expect(unpublished.body.unpublishedAt).toEqual(expect.any(String));
    expect(unpublished.body.publishedAt).toBe(published.body.publishedAt);

    const unpublishedAgain = await unpublish();
    assertMatchesSpec('unpublishSite', 200, unpublishedAgain.body);
    expect(unpublishedAgain.body.unpublishedAt).toBe(unpublished.body.unpublishedAt);

    const republished = await publish();
    expect(republished.body.published).toBe(true);
    expect(Date.parse(republished.body.publishedAt)).toBeGreaterThanOrEqual(Date.parse(unpublished.body.unpublishedAt));
    expect((await server.request('GET', sitePath(org, site.id), { token: ada.token })).body.published).toBe(true);
  });
});

describe('adaptive schema', () => {
  const schema = {
    type: 'object',
    properties: {
      isBetaUser: { type: 'boolean', description: 'Beta tester' },
      plan: { type: 'string', enum: ['free', 'pro'], description: 'Plan' },
      seats: { type: 'number', description: 'Seats' },
      'team-name': { type: 'string', description: 'Team' },
      roles: { type: 'array', description: 'Roles', items: { type: 'string', enum: ['admin', 'dev'], description: 'Role' } },
      company: { type: 'object', description: 'Company', properties: { enterprise: { type: 'boolean', description: 'Enterprise' } }, additionalProperties: false },
      unsigned: {
        type: 'object',
        description: 'Unsigned claims of the site visitor.',
        properties: { language: { type: 'string', description: 'Language' }, newsletter: { type: 'boolean', description: 'Newsletter' } },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  };

  it('answers 404 without a schema, then stores, reads and derives template conditions', async () => {
    const org = await server.createOrg(ada);
    const site = await server.createSite(ada, org);
    const path = sitePath(org, site.id, '/adaptive-schema');
    expectError(await server.request('GET', path, { token: ada.token }), 404, /visitor attribute schema/);
    const none = await server.request('GET', `${path}/template-conditions`, { token: ada.token });
    expect(none.status).toBe(200);
    assertMatchesSpec('listSiteAdaptiveTemplateConditions', 200, none.body);
    expect(none.body).toEqual({ items: [] });

    const put = await server.request('PUT', path, { token: ada.token, body: { jsonSchema: schema } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    assertMatchesSpec('updateSiteAdaptiveSchema', 200, put.body);
    expect(put.body).toMatchObject({ object: 'site-adaptive-schema', jsonSchema: schema });

    const got = await server.request('GET', path, { token: ada.token });
    expect(got.status).toBe(200);
    assertMatchesSpec('getSiteAdaptiveSchema', 200, got.body);
    expect(got.body).toEqual(put.body);

    const conditions = await server.request('GET', `${path}/template-conditions`, { token: ada.token });
    expect(conditions.status).toBe(200);
    assertMatchesSpec('listSiteAdaptiveTemplateConditions', 200, conditions.body);
    expect(conditions.body.items).toEqual([
      { description: 'Visitor is isBetaUser', condition: 'visitor.claims.isBetaUser === true' },
      { description: `Visitor's plan is "free"`, condition: 'visitor.claims.plan === "free"' },
      { description: `Visitor's plan is "pro"`, condition: 'visitor.claims.plan === "pro"' },
      { description: `Visitor's seats is greater than 0`, condition: 'visitor.claims.seats > 0' },
      { description: `Visitor's team-name is "value"`, condition: 'visitor.claims["team-name"] === "value"' },
      { description: `Visitor's roles includes "admin"`, condition: 'visitor.claims.roles.includes("admin")' },
      { description: 'Visitor is company.enterprise', condition: 'visitor.claims.company.enterprise === true' },
      { description: `Visitor's unsigned.language is "value"`, condition: 'visitor.claims.unsigned.language === "value"' },
      { description: 'Visitor is unsigned.newsletter', condition: 'visitor.claims.unsigned.newsletter === true' },
    ]);

    // A reader may read it, not change it.
    const reader = await server.createUser('Reader');
    await server.addMember(org, reader, 'read');
    expect((await server.request('GET', path, { token: reader.token })).status).toBe(200);
    expectError(await server.request('PUT', path, { token: reader.token, body: { jsonSchema: schema } }), 403);
  });

  it('refuses schemas that are not visitor attribute schemas (400 naming what is wrong)', async () => {
    const org = await server.createOrg(ada);
    const site = await server.createSite(ada, org);
    const path = sitePath(org, site.id, '/adaptive-schema');
    const bad: Array<[unknown, RegExp]> = [
      [undefined, /jsonSchema/],
      ['a string', /jsonSchema/],
      [{ ...schema, type: 'array' }, /jsonSchema\.type/],
      [{ ...schema, additionalProperties: true }, /jsonSchema\.additionalProperties/],
      [{ ...schema, properties: 5 }, /draft-07|jsonSchema\.properties/],
      [{ ...schema, required: ['x'] }, /unexpected member "required"/],
      [{ type: 'object', properties: { x: { type: 'integer', description: 'X' } }, additionalProperties: false }, /jsonSchema\.properties\.x\.type/],
      [{ type: 'object', properties: { x: { type: 'boolean' } }, additionalProperties: false }, /jsonSchema\.properties\.x\.description/],
      [{ type: 'object', properties: { x: { type: 'string', description: 'X', enum: [1] } }, additionalProperties: false }, /draft-07|enum/],
      [{ type: 'object', properties: { unsigned: { type: 'object', description: 'Unsigned claims of the site visitor.', properties: {} } }, additionalProperties: false }, /unsigned\.additionalProperties/],
      [{ type: 'object', properties: { x: { type: 'boolean', description: 'X', minimum: 'a' } }, additionalProperties: false }, /draft-07/],
    ];
    for (const [jsonSchema, message] of bad) {
      expectError(await server.request('PUT', path, { token: ada.token, body: { jsonSchema } }), 400, message);
    }
    expectError(await server.request('GET', path, { token: ada.token }), 404);
  });
});

describe('deleting sites', () => {
  it('deletes the site with its sections, groups, site spaces and share links; the spaces remain', async () => {
    const org = await server.createOrg(ada);
    const space = await server.createSpace(ada, org);
    const site = await server.createSite(ada, org, { spaces: [space.id] });
    const keep = await server.createSite(ada, org, { title: 'Kept', spaces: [space.id] });
    const db = server.app.db;
    const groupId = newId();
    const sectionId = newId();
    await db.siteSectionGroup.create({ data: { id: groupId, siteId: site.id, title: 'Group' } });
    await db.siteSection.create({ data: { id: sectionId, siteId: site.id, sectionGroupId: groupId, title: 'Section', path: 'section' } });
    await db.siteSpace.create({ data: { id: newId(), siteId: site.id, sectionId, spaceId: space.id, path: 'in-section' } });
    const link = await server.request('POST', sitePath(org, site.id, '/share-links'), { token: ada.token, body: { name: 'Link' } });
    expect(link.status).toBe(201);

    const deleted = await server.request('DELETE', sitePath(org, site.id), { token: ada.token });
    expect(deleted.status).toBe(205);
    assertMatchesSpec('deleteSiteById', 205, deleted.body);
    expect(await db.site.findUnique({ where: { id: site.id } })).toBeNull();
    expect(await db.siteSection.count({ where: { siteId: site.id } })).toBe(0);
    expect(await db.siteSectionGroup.count({ where: { siteId: site.id } })).toBe(0);
    expect(await db.siteSpace.count({ where: { siteId: site.id } })).toBe(0);
    expect(await db.siteShareLink.count({ where: { siteId: site.id } })).toBe(0);
    // Nothing else: the space, and the other site with its site space.
    expect(await db.space.findUnique({ where: { id: space.id } })).toMatchObject({ deletedAt: null });
    expect(await db.siteSpace.count({ where: { siteId: keep.id } })).toBe(1);
    expect((await server.request('GET', `/v1/spaces/${space.id}`, { token: ada.token })).status).toBe(200);
    expectError(await server.request('GET', sitePath(org, site.id), { token: ada.token }), 404);

    const again = await server.request('DELETE', sitePath(org, site.id), { token: ada.token });
    expect(again.status).toBe(204);
    assertMatchesSpec('deleteSiteById', 204, again.body);
    expect((await server.request('DELETE', sitePath(org, 'never-existed'), { token: ada.token })).status).toBe(204);
  });
});

describe('the error matrix of a site', () => {
  let org: string;
  let site: { id: string };
  let reader: TestUser;
  let creator: TestUser;

  beforeAll(async () => {
    org = await server.createOrg(ada);
    site = await server.createSite(ada, org);
    reader = await server.createUser('Reader');
    creator = await server.createUser('Creator');
    await server.addMember(org, reader, 'read');
    await server.addMember(org, creator, 'create');
  });

  const endpoints = (orgId: string, id: string) =>
    [
      ['GET', `/v1/orgs/${orgId}/sites`, undefined],
      ['POST', `/v1/orgs/${orgId}/sites`, { title: 'New site' }],
      ['GET', sitePath(orgId, id), undefined],
      ['PATCH', sitePath(orgId, id), { title: 'Renamed' }],
      ['DELETE', sitePath(orgId, id), undefined],
      ['POST', sitePath(orgId, id, '/publish'), undefined],
      ['POST', sitePath(orgId, id, '/unpublish'), undefined],
      ['GET', sitePath(orgId, id, '/adaptive-schema'), undefined],
      ['PUT', sitePath(orgId, id, '/adaptive-schema'), { jsonSchema: { type: 'object', properties: {}, additionalProperties: false } }],
      ['GET', sitePath(orgId, id, '/adaptive-schema/template-conditions'), undefined],
    ] as const;

  it('answers 401 without a token and with a bad token', async () => {
    for (const token of [undefined, 'not-a-token']) await server.expectErrors(endpoints(org, site.id), token, 401);
  });

  it("answers 404 to non-members, for another organization's site, and for sites that do not exist", async () => {
    await server.expectErrors(endpoints(org, site.id), bob.token, 404);
    // Ada's site through Bob's organization, where Ada is a member too.
    const bobOrg = await server.createOrg(bob);
    await server.addMember(bobOrg, ada, 'admin');
    await server.expectErrors(endpoints(bobOrg, site.id).slice(2), ada.token, 404);
    // DELETE of nothing is a 204.
    await server.expectErrors(endpoints(org, 'no-such-site').slice(2).filter(([method]) => method !== 'DELETE'), ada.token, 404);
    // The site is untouched.
    const got = await server.request('GET', sitePath(org, site.id), { token: ada.token });
    expect(got.body).toMatchObject({ title: 'Docs', published: false });
  });

  it('lets a reader read and answers 403 to the rest', async () => {
    expect((await server.request('GET', sitePath(org, site.id), { token: reader.token })).status).toBe(200);
    expect(await server.listIds(reader, `/v1/orgs/${org}/sites`, 'listSites')).toContain(site.id);
    const template = await server.request('GET', sitePath(org, site.id, '/adaptive-schema/template-conditions'), { token: reader.token });
    expect(template.status).toBe(200);
    await server.expectErrors(endpoints(org, site.id).filter(([method]) => method !== 'GET'), reader.token, 403);
  });

  it('lets a creator create sites and rename them, but not configure, publish or delete them', async () => {
    const created = await server.createSite(creator, org, { title: 'By creator' });
    const renamed = await patchSite(creator, org, created.id, { title: 'Renamed by creator' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    assertMatchesSpec('updateSiteById', 200, renamed.body);
    for (const body of [{ visibility: 'unlisted' }, { basename: 'x' }, { proxy: 'example.com/docs' }, { hostname: 'a.b.example.com' }, { adaptiveContent: { enabled: true } }, { agentsContext: 'excluded' }, { title: 'Both', proxy: null }]) {
      expectError(await patchSite(creator, org, created.id, body), 403);
    }
    for (const [method, rest] of [['POST', '/publish'], ['POST', '/unpublish'], ['DELETE', '']] as const) {
      expectError(await server.request(method, sitePath(org, created.id, rest), { token: creator.token }), 403);
    }
    expect((await server.request('GET', sitePath(org, created.id), { token: ada.token })).body.title).toBe('Renamed by creator');
    // Its permissions say the same: create and edit, not admin (configure, publish) nor the adaptive schema's edits.
    expect((await server.request('GET', sitePath(org, created.id), { token: creator.token })).body.permissions).toEqual({
      view: true, access: true, edit: true, create: true, admin: false, installIntegration: false, viewAdaptiveSchema: true, editAdaptiveSchema: false,
    });
  });
});

describe('GitBook API client', () => {
  it('creates, reads, publishes and lists sites', async () => {
    const org = await server.createOrg(ada);
    const api = new GitBookAPI({ authToken: ada.token, endpoint: server.baseUrl });
    const created = await api.orgs.createSite(org, { title: 'Client site', visibility: 'unlisted' as never });
    expect(created.status).toBe(201);
    assertMatchesSpec('createSite', 201, created.data);
    expect(created.data).toMatchObject({ object: 'site', title: 'Client site', visibility: 'unlisted', type: 'basic' });

    const got = await api.orgs.getSiteById(org, created.data.id);
    expect(got.status).toBe(200);
    assertMatchesSpec('getSiteById', 200, got.data);

    const published = await api.orgs.publishSite(org, created.data.id);
    expect(published.status).toBe(200);
    assertMatchesSpec('publishSite', 200, published.data);
    expect(published.data).toMatchObject({ published: true });

    const updated = await api.orgs.updateSiteById(org, created.data.id, { title: 'Client site 2' });
    assertMatchesSpec('updateSiteById', 200, updated.data);
    expect(updated.data.title).toBe('Client site 2');

    const list = await api.orgs.listSites(org, { published: true });
    assertMatchesSpec('listSites', 200, list.data);
    expect(list.data.items.map((s) => s.id)).toEqual([created.data.id]);

    const unpublished = await api.orgs.unpublishSite(org, created.data.id);
    assertMatchesSpec('unpublishSite', 200, unpublished.data);
    expect(unpublished.data.published).toBe(false);

    const deleted = await api.orgs.deleteSiteById(org, created.data.id);
    expect(deleted.status).toBe(205);
  });
});
