/**
 * Real resources for the table-driven REST tests (body types, contract
 * limits, Location): one of each kind a route's path can name, the path
 * parameters by name, and valid bodies for every route that takes one, plus a
 * fingerprint of the database to tell that a refused request wrote nothing.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { beforeAll } from 'vitest';
import { markdownToDocument } from '../../src/content/document/markdown-parse.ts';
import { getDatamodel } from '../../src/db/generated/pothos-types.ts';
import { newId } from '../../src/ids.ts';
import type { RestRoute } from '../../src/rest/route.ts';
import { ingestBody, labelledConversations, waitForConversations } from './conversations.ts';
import { FIXTURE_OPENAPI, waitForOpenAPISpec } from './openapi-specs.ts';
import { createIdentityProvider } from './saml-idp.ts';
import { useTestServer, type TestServer } from './server.ts';

export interface RestFixture {
  user: { id: string; token: string };
  /** Path parameters by name (`organizationId`, `siteSectionId`, ...). */
  params: Record<string, string>;
  /**
   * Valid bodies per operation name: each is accepted as is. Several bodies
   * for one route reach the parts of its input no single body can hold
   * (`position.after` and `position.before`, each kind of content change).
   */
  bodies: Record<string, Record<string, unknown>[]>;
}

/** A path into a JSON body: member names and list indexes. */
export type BodyPath = (string | number)[];

/** A body path as the caller wrote the field: `parent.title`, `changes[0].files[0].name`. */
export function fieldName(path: BodyPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** A copy of `body` with `value` at `path`, or without the member at `path` when `value` is `REMOVE`. */
export const REMOVE = Symbol('remove');
export function withValueAt(body: unknown, path: BodyPath, value: unknown): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (value === REMOVE) delete at[last];
  else at[last] = value;
  return copy;
}

/** A JSON document of one paragraph, as page content, instructions and descriptions take. */
export function paragraphDocument(text: string) {
  return {
    object: 'document',
    data: {},
    nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] }],
  };
}

/**
 * `route.path` with its `{param}`s filled from `params`; throws on a parameter the fixture lacks.
 * A comment of the change request is not one of the space's: under a change request, `<name>`
 * holding the fixture's own value (`space.<name>`) stands for `changeRequest.<name>`
 * (`commentId`); a test that puts another value in `<name>` gets that value.
 */
export function fillPath(route: Pick<RestRoute, 'path'>, params: Record<string, string>): string {
  const underChangeRequest = route.path.includes('/change-requests/{changeRequestId}/');
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const swapped = underChangeRequest && params[`changeRequest.${name}`] !== undefined && params[name] === params[`space.${name}`];
    const value = swapped ? params[`changeRequest.${name}`] : params[name];
    if (value === undefined) throw new Error(`The fixture has no path parameter ${name} (${route.path})`);
    return encodeURIComponent(value);
  });
}

/**
 * Whether an error message names `field` (`changes[0].title`) as the caller
 * sent it: `changes[0].title: ...`, or as the content changes' own checks
 * and zod paths word it (`changes[0]: title ...`, `changes.0.title: ...`).
 */
export function namesField(message: string, field: string): boolean {
  const dotted = (s: string) => s.replace(/\[(\d+)\]/g, '.$1');
  if (message.startsWith(`${field}: `) || dotted(message).startsWith(`${dotted(field)}: `)) return true;
  const cut = field.lastIndexOf('].');
  return cut >= 0 && message.startsWith(`${field.slice(0, cut + 1)}: ${field.slice(cut + 2)}`);
}

/**
 * The environment of a test server the fixture's bodies are valid on (a file fetched from the server
 * itself), and where a browser page of https://app.example.com may call it (CORS).
 */
export const FIXTURE_SERVER_ENV = { FETCH_ALLOW_PRIVATE_ADDRESSES: 'true', CORS_ORIGINS: 'https://app.example.com' };

/**
 * A test server (with FIXTURE_SERVER_ENV) and a fixture on it for the test
 * file: started before its tests, closed after them. Read `.server` and
 * `.fixture` inside tests.
 */
export function useFixtureServer(): { server: TestServer; fixture: RestFixture } {
  const { server } = useTestServer({ env: FIXTURE_SERVER_ENV });
  const state = { server } as { server: TestServer; fixture: RestFixture };
  beforeAll(async () => {
    state.fixture = await buildRestFixture(server);
  }, 60_000);
  return state;
}

/** Builds the fixture through the API as an admin of a fresh organization. */
export async function buildRestFixture(server: TestServer): Promise<RestFixture> {
  const user = await server.createUser('Ada');
  const member = await server.createUser('Bob');
  const reviewer = await server.createUser('Rita');
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await server.request(method, path, { token: user.token, body });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };

  const organizationId = await server.createOrg(user, 'Fixture org');
  const otherOrganizationId = await server.createOrg(user, 'Transfer target');
  await server.addMember(organizationId, member, 'edit');
  await server.addMember(organizationId, reviewer, 'review');
  const collection = await server.createCollection(user, organizationId, { title: 'Guides' });
  const siblingCollection = await server.createCollection(user, organizationId, { title: 'Reference' });
  const space = await server.createSpace(user, organizationId, { title: 'Handbook', language: 'en' });
  const secondSpace = await server.createSpace(user, organizationId, { title: 'API', language: 'en' });
  const thirdSpace = await server.createSpace(user, organizationId, { title: 'Changelog' });

  const site = await server.createSite(user, organizationId, { title: 'Docs', visibility: 'share-link' });
  const sites = `/v1/orgs/${organizationId}/sites/${site.id}`;
  const section = await ok('POST', `${sites}/sections`, { spaceId: space.id, title: 'Handbook' });
  const secondSection = await ok('POST', `${sites}/sections`, { spaceId: secondSpace.id, title: 'API' });
  const siteSpace = section.siteSpaces[0];
  const secondSiteSpace = await ok('POST', `${sites}/site-spaces`, { spaceId: thirdSpace.id, sectionId: section.id });
  const shareLink = await ok('POST', `${sites}/share-links`, { name: 'Reviewers' });
  // A published site whose URL POST /v1/urls/published resolves.
  const publicSite = await server.createSite(user, organizationId, { title: 'Public docs', spaces: [space.id] });
  await server.publishSite(user, organizationId, publicSite.id);
  const group = await server.app.yoga.fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` },
    body: JSON.stringify({
      query: 'mutation($org: ID!, $site: ID!) { createSiteSectionGroup(organizationId: $org, siteId: $site, input: { title: "Group" }) { id } }',
      variables: { org: organizationId, site: site.id },
    }),
  });
  const sectionGroupId = ((await group.json()) as { data: { createSiteSectionGroup: { id: string } } }).data.createSiteSectionGroup.id;

  // A table as the Markdown converter makes it (record `row-1`, definition `column-1`).
  const markdownTable = markdownToDocument('| Plan |\n| --- |\n| Basic |\n').document;
  // A page and a file in the space's content (merged), then an open change request on it.
  const firstEdit = await ok('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'First page' });
  const content = await ok('POST', `/v1/spaces/${space.id}/change-requests/${firstEdit.id}/content?compat=false`, {
    changes: [
      { operation: 'insert_page', title: 'Welcome', document: { markdown: '# Welcome\n\nHello.\n' } },
      { operation: 'insert_files', files: [{ name: 'notes.txt', contentType: 'text/plain', base64: 'aGVsbG8=' }] },
      { operation: 'insert_reusable_content', title: 'Fixture snippet', document: { markdown: 'Shared.\n' } },
      // A page comments point into: a keyed paragraph (a node) and a table (its cells).
      {
        operation: 'insert_page',
        title: 'Discussed',
        document: {
          document: {
            ...paragraphDocument('Discuss this.'),
            nodes: [
              { ...paragraphDocument('Discuss this.').nodes[0], key: 'fixture-note' },
              ...markdownTable.nodes,
            ],
          },
        },
      },
    ],
  });
  // The revision the merge made: routes reading revisions by id read it.
  const { revision: revisionId } = await ok('POST', `/v1/spaces/${space.id}/change-requests/${firstEdit.id}/merge`);
  const { reusableContents } = await ok('GET', `/v1/spaces/${space.id}/content`);
  const pageId: string = content.changes[0].page.id;
  const discussedPageId: string = content.changes[1].page.id;
  const redirect = await ok('POST', `${sites}/redirects`, { source: '/fixture-old', destination: { kind: 'site-space', siteSpaceId: siteSpace.id } });
  // Opened by the member, so that the fixture's user (not its author) may review it.
  const opened = await server.request('POST', `/v1/spaces/${space.id}/change-requests`, { token: member.token, body: { subject: 'Fixture edits' } });
  if (opened.status !== 201) throw new Error(`The member's change request answered ${opened.status}: ${JSON.stringify(opened.body)}`);
  const changeRequest = opened.body;
  const review = await ok('POST', `/v1/spaces/${space.id}/change-requests/${changeRequest.id}/reviews`, { status: 'changes-requested' });
  const translation = await ok('POST', `/v1/orgs/${organizationId}/translations`, { source: { space: secondSpace.id, language: 'en' }, language: 'fr' });
  // An OpenAPI spec, processed: routes reading its versions read the one it made.
  const openAPISpec = await ok('POST', `/v1/orgs/${organizationId}/openapi`, { slug: 'fixture-api', source: { text: FIXTURE_OPENAPI } });
  const processed = await waitForOpenAPISpec(server, user.token, organizationId, openAPISpec.slug);
  if (!processed.lastVersion) throw new Error(`The fixture's OpenAPI spec was not processed: ${JSON.stringify(processed)}`);
  // Support conversations, read: a cluster of the documentation issues found in them.
  const conversations = labelledConversations(['webhooks'], 2).map(ingestBody);
  const ingested = await server.request('POST', `/v1/orgs/${organizationId}/conversations`, { token: user.token, body: conversations });
  if (ingested.status !== 204) throw new Error(`Ingesting the fixture's conversations answered ${ingested.status}: ${JSON.stringify(ingested.body)}`);
  await waitForConversations(server, user.token, organizationId);
  const { items: [{ issue, conversation }] } = await ok('GET', `/v1/orgs/${organizationId}/conversations-issues`);
  const team = await ok('PUT', `/v1/orgs/${organizationId}/teams`, { title: 'Writers', members: [member.id] });
  const teamId: string = team.id;
  const idp = createIdentityProvider('fixture');
  const samlSettings = { ssoURL: idp.ssoURL, entityID: idp.entityID, certificate: idp.certificate, defaultTeam: teamId };
  const samlProvider = await ok('POST', `/v1/orgs/${organizationId}/saml`, { label: 'Fixture IdP', ...samlSettings });
  // An invite link to the organization: routes take its id (`inviteId`); joining takes its secret, which no table sends.
  const inviteLink = await ok('POST', `/v1/orgs/${organizationId}/link-invites`, { role: 'read' });
  // A comment thread with a reply on the space's Welcome page, and one in the change request.
  const comment = await ok('POST', `/v1/spaces/${space.id}/comments`, { body: { markdown: 'Is this page up to date?' }, page: pageId });
  const commentReply = await ok('POST', `/v1/spaces/${space.id}/comments/${comment.id}/replies`, { body: { markdown: 'Yes.' } });
  const crComment = await ok('POST', `/v1/spaces/${space.id}/change-requests/${changeRequest.id}/comments`, { body: { markdown: 'Ready?' } });
  const crCommentReply = await ok('POST', `/v1/spaces/${space.id}/change-requests/${changeRequest.id}/comments/${crComment.id}/replies`, { body: { markdown: 'Nearly.' } });

  // Roles held on the space and the collection by the member and the team.
  for (const [resourceKind, resourceId] of [['space', space.id], ['collection', collection.id]] as const) {
    for (const [granteeKind, granteeId] of [['user', member.id], ['team', teamId]] as const) {
      await server.app.db.contentGrant.create({ data: { id: newId(), organizationId, resourceKind, resourceId, granteeKind, granteeId, role: 'read' } });
    }
  }

  const document = paragraphDocument('Keep answers short.');
  const gitFields = {
    url: 'https://git.example.com/docs.git',
    ref: 'refs/heads/main',
    force: false,
    gitInfo: { provider: 'github', url: 'https://github.com/example/docs/tree/main' },
    repoCacheID: 'cache-1',
    repoCommitURL: 'https://github.com/example/docs/commit/abc',
    repoProjectDirectory: 'docs',
    repoTreeURL: 'https://github.com/example/docs/tree/main',
    timestamp: '2026-01-01T00:00:00.000Z',
  };
  const bodies: RestFixture['bodies'] = {
    CreateOrganization: [
      { title: 'Another org', type: 'business', useCase: 'docsSite', communityType: 'openSource', emailDomains: ['example.com'], onboardingPreferences: {} },
    ],
    UpdateOrganizationById: [
      {
        title: 'Fixture org 2',
        ai: true,
        sso: false,
        inviteLinks: true,
        defaultRole: 'read',
        emailDomains: ['example.com'],
        hostname: 'fixture-docs',
        logo: 'https://example.com/logo.png',
        mergeRules: { type: 'rules', rules: [{ rule: 'custom', expression: 'true' }] },
      },
      { defaultContent: { type: 'site', site: site.id } },
    ],
    UpdateOrganizationAgentInstructions: [{ instructions: document }],
    ResolvePublishedContentByUrl: [
      {
        url: `${server.app.config.sitesUrl}/${organizationId}/${publicSite.basename}/welcome`,
        redirectOnError: false,
        visitor: { unsignedClaims: { plan: 'pro' }, type: 'human' },
        cacheBust: 'fixture',
      },
    ],
    UpdateMemberInOrganizationById: [{ role: 'read', disabled: false }],
    CreateOrganizationTeam: [{ title: 'Reviewers', members: [member.id, member.email] }],
    UpdateTeamInOrganizationById: [{ title: 'Writers 2' }],
    // Ada (the admin) is not in the team: removing her changes nothing.
    UpdateMembersInOrganizationTeam: [{ add: [member.email], remove: [user.id], memberships: { [member.id]: { role: 'owner' } } }],
    AddMemberToOrganizationTeamById: [{ role: 'owner' }],
    CreateOrganizationSAMLProvider: [{ label: 'Okta', ...samlSettings, defaultRole: 'edit' }],
    UpdateOrganizationSAMLProvider: [{ label: 'Fixture IdP 2', ...samlSettings, defaultRole: 'read' }],
    InviteUsersToOrganization: [{ emails: ['invitee@example.com', { email: 'editor-invitee@example.com', role: 'edit' }], role: 'read', sso: false }],
    CreateOrganizationInvite: [
      { role: 'read', expiresAt: '2099-01-01T00:00:00.000Z', maxUses: 10 },
      { level: 'edit', space: space.id },
      { level: 'read', collection: collection.id },
    ],
    UpdateOrganizationInviteById: [{ role: 'edit', expiresAt: '2099-06-30T00:00:00.000Z', maxUses: 5 }],
    CreateCollection: [{ title: 'Tutorials', parent: collection.id }],
    UpdateCollectionById: [{ title: 'Guides 2', description: 'Every guide', defaultLevel: 'read' }],
    MoveCollection: [
      { parent: null, position: { after: { type: 'collection', collection: siblingCollection.id } } },
      { position: { before: { type: 'space', space: secondSpace.id } } },
    ],
    TransferCollection: [{ organization: otherOrganizationId }],
    CreateSpace: [{ title: 'Runbooks', emoji: '📘', editMode: 'live', empty: true, language: 'en', parent: collection.id, visibility: 'private' }],
    UpdateSpaceById: [
      { title: 'Handbook 2', emoji: '📕', editMode: 'locked', language: 'fr', defaultLevel: 'read', visibility: 'public', mergeRules: { type: 'rules', rules: [{ rule: 'custom', expression: 'true' }] } },
    ],
    MoveSpace: [
      { parent: null, position: { after: { type: 'space', space: secondSpace.id } } },
      { position: { before: { type: 'collection', collection: collection.id } } },
    ],
    TransferSpace: [{ organization: otherOrganizationId }],
    CreateSite: [{ title: 'Second site', type: 'basic', visibility: 'public', spaces: [secondSpace.id] }],
    UpdateSiteById: [
      {
        title: 'Docs 2',
        basename: 'docs-2',
        hostname: 'docs.example.com',
        proxy: 'example.com/docs',
        visibility: 'share-link',
        agentsContext: 'included',
        adaptiveContent: { enabled: true },
        customizations: { title: 'Docs' },
        defaultSiteSection: section.id,
        defaultSiteSpace: siteSpace.id,
      },
    ],
    UpdateSiteAdaptiveSchema: [
      {
        jsonSchema: {
          type: 'object',
          additionalProperties: false,
          properties: { isBetaUser: { type: 'boolean', description: 'Whether the visitor is in the beta' } },
        },
      },
    ],
    AddSectionToSite: [{ spaceId: thirdSpace.id, title: 'Changelog', icon: 'book' }],
    UpdateSiteSectionById: [
      { title: 'Handbook 2', path: 'handbook', condition: 'visitor.claims.isBetaUser', icon: 'book', description: 'The handbook', defaultSiteSpace: siteSpace.id, sectionGroup: sectionGroupId },
    ],
    MoveSiteSection: [
      { position: { after: { type: 'site-section', siteSection: secondSection.id } } },
      { position: { before: { type: 'site-section', siteSection: secondSection.id } } },
    ],
    CreateSiteShareLink: [{ name: 'Partners' }],
    UpdateSiteShareLinkById: [{ name: 'Reviewers 2', active: true }],
    SearchSiteContent: [
      { query: 'welcome', scope: { mode: 'all' } },
      { query: 'welcome', scope: { mode: 'default', currentSiteSpace: secondSiteSpace.id } },
      { query: 'welcome', mode: 'specific', siteSpaceIds: [siteSpace.id] },
    ],
    CreateSiteRedirect: [{ source: '/fixture-new', destination: { kind: 'site-section', siteSectionId: section.id } }],
    UpdateSiteRedirectById: [{ source: '/fixture-moved' }, { destination: { kind: 'site-page', siteSpaceId: siteSpace.id, pageId } }],
    AddSpaceToSite: [{ spaceId: thirdSpace.id, sectionId: secondSection.id }],
    UpdateSiteSpaceById: [{ path: 'handbook', condition: 'visitor.claims.isBetaUser', hidden: false, spaceId: thirdSpace.id, customizations: { title: 'Handbook' } }],
    MoveSiteSpace: [
      { position: { after: { type: 'site-space', siteSpace: secondSiteSpace.id } } },
      { position: { before: { type: 'site-space', siteSpace: secondSiteSpace.id } } },
    ],
    SortSiteStructure: [
      { item: { type: 'site-section', id: section.id }, position: { after: { type: 'site-section', id: secondSection.id } } },
      { item: { type: 'site-section', id: section.id }, position: { before: { type: 'site-section', id: secondSection.id } } },
    ],
    CreateTranslation: [{ source: { space: thirdSpace.id, language: 'en' }, language: 'de', instructions: document }],
    UpdateTranslation: [{ instructions: document }],
    CreateOpenAPISpec: [{ slug: 'fixture-api-2', source: { text: FIXTURE_OPENAPI } }],
    CreateOrUpdateOpenAPISpecBySlug: [{ source: { text: FIXTURE_OPENAPI.replace('Fixture API', 'Fixture API, again') } }],
    UpdateOpenAPISpecBySlug: [{ visibility: 'public' }],
    IngestConversation: [
      { ...conversations[0]!, id: 'fixture-new', subject: 'Where is the retry schedule?', metadata: { url: 'https://support.example.com/c/1', attributes: { plan: 'growth' }, createdAt: '2026-10-01T10:00:00.000Z' } },
    ],
    UpdateConversationsIssuesCluster: [{ muted: false }],
    CreateChangeRequest: [{ subject: 'Fix typos' }],
    UpdateChangeRequestById: [{ subject: 'Fix more typos', description: document, status: 'open' }],
    UpdateChangeRequestContent: [
      {
        changes: [
          {
            operation: 'insert_page',
            title: 'Setup',
            document: { markdown: 'Install it.\n' },
            into: pageId,
            at: 0,
            emoji: '🔧',
            icon: 'gear',
            description: 'How to set up',
            hidden: false,
          },
        ],
      },
      { changes: [{ operation: 'update_page', page: pageId, title: 'Welcome!' }] },
      {
        changes: [
          {
            operation: 'update_page',
            page: pageId,
            cover: { ref: { kind: 'url', url: 'https://example.com/cover.png' }, yPos: 0 },
            layout: { width: 'wide' },
            metaLinks: { canonical: { kind: 'url', url: 'https://example.com/welcome' } },
            variables: { product: 'Acme' },
            computed: { type: 'integration:openapi:reference', props: {} },
            computedSeed: 'seed',
          },
        ],
      },
      { changes: [{ operation: 'set_variables', variables: { product: 'Acme', version: null } }] },
      { changes: [{ operation: 'set_redirects', redirects: { 'old/welcome': pageId, gone: null } }] },
      {
        changes: [
          { operation: 'insert_reusable_content', ref: 'snippet', title: 'Snippet', document: { markdown: 'Shared text.\n' } },
          { operation: 'update_reusable_content', reusableContent: 'snippet', title: 'Snippet, renamed' },
        ],
      },
      {
        changes: [
          { operation: 'insert_tag', tag: 'beta', label: 'Beta', color: 'blue', emoji: '🎉' },
          { operation: 'insert_tag', tag: 'new', label: 'New', icon: 'sparkle' },
          { operation: 'update_tag', tag: 'beta', label: 'Beta, renamed', color: 'green' },
          { operation: 'update_page', page: pageId, tags: ['beta', { tag: 'new', primary: true }] },
          { operation: 'delete_tag', tag: 'new' },
        ],
      },
      { changes: [{ operation: 'revert_page', page: pageId, revision: changeRequest.revisionInitial, block: ['unknown-block'] }] },
      { changes: [{ operation: 'insert_files', files: [{ name: 'more.txt', contentType: 'text/plain', base64: 'aGk=', ref: 'more.txt' }] }] },
      // Fetched from the test server itself: its tests allow private addresses (FETCH_ALLOW_PRIVATE_ADDRESSES).
      { changes: [{ operation: 'insert_files', files: [{ name: 'health.json', url: `${server.baseUrl}/healthz` }] }] },
    ],
    ApplyTemplateToSpace: [{ id: 'blank', changeRequestId: changeRequest.id, params: {} }],
    SubmitChangeRequestReview: [{ status: 'approved' }],
    RequestReviewersForChangeRequest: [{ users: [reviewer.id], subject: 'Ready for review', description: document }],
    InviteToSpace: [{ role: 'comment', users: [member.email], teams: [teamId] }],
    UpdateUserPermissionInSpace: [{ role: 'edit' }],
    UpdateTeamPermissionInSpace: [{ role: 'edit' }],
    InviteToCollection: [{ role: 'comment', users: [member.id], teams: [teamId] }],
    UpdateUserPermissionInCollection: [{ role: 'edit' }],
    UpdateTeamPermissionInCollection: [{ role: 'edit' }],
    ImportGitRepository: [{ ...gitFields, standalone: true }],
    ExportToGitRepository: [{ ...gitFields, commitMessage: 'Sync from the fixture' }],
    // Ada wrote the fixture's comments and replies: she may change their bodies.
    ...Object.fromEntries(
      (['InSpace', 'InChangeRequest'] as const).flatMap((where) => [
        [
          `PostComment${where}`,
          [
            { body: { markdown: `Ping @${member.email}` }, page: discussedPageId, tableCell: { record: 'row-1', definition: 'column-1' } },
            { body: { document: paragraphDocument('As a document.') }, page: discussedPageId, node: 'fixture-note' },
          ],
        ],
        [`UpdateComment${where}`, [{ resolved: true, body: { markdown: 'Still up to date?' }, addedReactions: ['👍'], removedReactions: ['🎉'] }]],
        [`PostCommentReply${where}`, [{ body: { markdown: 'Checking.' } }, { body: { document: paragraphDocument('Checked.') } }]],
        [`UpdateCommentReply${where}`, [{ body: { markdown: 'Yes, checked.' }, addedReactions: ['🎉'], removedReactions: ['👍'] }]],
      ]),
    ),
  };

  return {
    user,
    params: {
      organizationId,
      collectionId: collection.id,
      spaceId: space.id,
      siteId: site.id,
      siteSectionId: section.id,
      siteSpaceId: siteSpace.id,
      shareLinkId: shareLink.id,
      siteRedirectId: redirect.id,
      changeRequestId: changeRequest.id,
      reviewId: review.id,
      translationId: translation.id,
      specSlug: openAPISpec.slug,
      conversationId: conversation.id,
      issueId: issue.id,
      clusterId: issue.cluster,
      versionId: processed.lastVersion,
      samlProviderId: samlProvider.id,
      userId: member.id,
      teamId: team.id,
      pageId,
      pagePath: 'welcome',
      revisionId,
      reusableContentId: reusableContents[0].id,
      documentId: reusableContents[0].document,
      fileId: content.insertedFiles[0].id,
      inviteId: inviteLink.id,
      commentId: comment.id,
      commentReplyId: commentReply.id,
      'space.commentId': comment.id,
      'space.commentReplyId': commentReply.id,
      'changeRequest.commentId': crComment.id,
      'changeRequest.commentReplyId': crCommentReply.id,
    },
    bodies,
  };
}

const quote = (name: string) => `"${name}"`;
const models = Object.entries(getDatamodel().datamodel.models).map(([name, model]) => ({
  name,
  hasUpdatedAt: model.fields.some((f) => f.name === 'updatedAt' && f.kind === 'scalar'),
}));

/**
 * What a write would change: the row count of every table and the latest
 * `updatedAt` of those that have one, in one statement (tables are named
 * like their models: the schema maps none).
 */
export async function databaseFingerprint(server: TestServer): Promise<Record<string, string>> {
  const columns = models.flatMap(({ name, hasUpdatedAt }) => [
    `(SELECT count(*) FROM ${quote(name)}) AS ${quote(`${name}.count`)}`,
    ...(hasUpdatedAt ? [`(SELECT max(${quote('updatedAt')}) FROM ${quote(name)}) AS ${quote(`${name}.updatedAt`)}`] : []),
  ]);
  const [row] = await server.app.db.$queryRawUnsafe<Record<string, unknown>[]>(`SELECT ${columns.join(', ')}`);
  return Object.fromEntries(Object.entries(row!).map(([key, value]) => [key, value instanceof Date ? value.toISOString() : String(value)]));
}

// ----------------------------------------------------------------- the contract

const require = createRequire(import.meta.url);
/** An OpenAPI document (or a part of one). */
export type OpenApi = Record<string, any>;
/**
 * The contract: @gitbook/api 0.146.0, 0.202.0 for the operations only it has, and the endpoints of
 * api.md that neither has (codegen/extras.openapi.json, written with 0.146.0's components).
 */
const current: OpenApi = require('@gitbook/api/spec/openapi.json');
const contracts: OpenApi[] = [current, require('gitbook-api-next/spec/openapi.json'), { ...require('../../codegen/extras.openapi.json'), components: current.components }];
const endpoints = JSON.parse(fs.readFileSync(new URL('../../spec/endpoints.json', import.meta.url), 'utf8')) as Array<{ method: string; path: string; operationId: string }>;

/** GitBook's operationId of a route (spec/endpoints.json). */
export function operationIdOf(route: Pick<RestRoute, 'method' | 'path'>): string {
  const endpoint = endpoints.find((e) => e.method === route.method && e.path === route.path);
  if (!endpoint) throw new Error(`${route.method} ${route.path} is not in spec/endpoints.json`);
  // An endpoint of api.md's that GitBook's documents lack carries a note after its name.
  return endpoint.operationId.replace(/ \(.*\)$/, '');
}

/** The contract's operation of a route, and the OpenAPI document it is in (its `$ref`s point there). */
export function contractOperation(route: Pick<RestRoute, 'method' | 'path'>): { spec: OpenApi; operation: OpenApi } {
  const operationId = operationIdOf(route);
  for (const spec of contracts) {
    for (const methods of Object.values(spec.paths) as OpenApi[]) {
      const operation = Object.values(methods).find((op: OpenApi) => op?.operationId === operationId) as OpenApi | undefined;
      if (operation) return { spec, operation };
    }
  }
  throw new Error(`No operation ${operationId} in the OpenAPI documents`);
}

/** `node` with its `$ref`s followed. */
export function deref(spec: OpenApi, node: OpenApi | undefined): OpenApi | undefined {
  let at = node;
  while (at?.$ref) at = (at.$ref as string).split('/').slice(1).reduce((o: OpenApi | undefined, k: string) => o?.[k], spec);
  return at;
}

/** The schema of the first content type of a request body or response, or undefined when it has none. */
export function contentSchema(spec: OpenApi, bodyOrResponse: OpenApi | undefined): OpenApi | undefined {
  const content = deref(spec, bodyOrResponse)?.content as Record<string, { schema?: OpenApi }> | undefined;
  return content ? Object.values(content)[0]?.schema : undefined;
}
