/**
 * The REST layer driven by GitBook's own TypeScript client (`@gitbook/api`
 * 0.146.0, and 0.202.0 for createOrganization, which 0.146.0 lacks), as a
 * legacy caller would: user, organizations, spaces, collections, members,
 * content and revisions read by id, and errors surfacing as the client's GitBookAPIError with the right status.
 */
import { GitBookAPI, GitBookAPIError } from '@gitbook/api';
import { GitBookAPI as GitBookAPINext } from 'gitbook-api-next';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });
let adaApi: GitBookAPI;
let bobApi: GitBookAPI;

/** The client (0.146.0) as `user`. */
const apiOf = (user: TestUser) => new GitBookAPI({ authToken: user.token, endpoint: server.baseUrl });

beforeAll(() => {
  adaApi = apiOf(ada);
  bobApi = apiOf(bob);
});

/** A new organization of `user`'s, made through the client's 0.202.0 (0.146.0 has no createOrganization); its id. */
async function newOrg(user: TestUser = ada): Promise<string> {
  const next = new GitBookAPINext({ authToken: user.token, endpoint: server.baseUrl });
  const created = await next.orgs.createOrganization({ title: 'Client Org' });
  expect(created.status).toBe(201);
  assertMatchesSpec('createOrganization', 201, created.data, 'next');
  return created.data.id;
}

/** Awaits a client call expected to fail; returns its GitBookAPIError. */
async function apiError(call: Promise<unknown>): Promise<GitBookAPIError> {
  const error = await call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GitBookAPIError);
  return error as GitBookAPIError;
}

describe('GitBook API client', () => {
  it('reads the authenticated user and their organizations', async () => {
    // Users of the test's own, whose organizations are counted.
    const erin = await server.createUser('Erin');
    const erinApi = apiOf(erin);
    const orgId = await newOrg(erin);
    const me = await erinApi.user.getAuthenticatedUser();
    expect(me.status).toBe(200);
    assertMatchesSpec('getAuthenticatedUser', 200, me.data);
    expect(me.data).toMatchObject({ object: 'user', id: erin.id, displayName: 'Erin', email: erin.email });

    const orgs = await erinApi.orgs.listOrganizationsForAuthenticatedUser({ limit: 10 });
    expect(orgs.status).toBe(200);
    assertMatchesSpec('listOrganizationsForAuthenticatedUser', 200, orgs.data);
    expect(orgs.data.items.map((o) => o.id)).toEqual([orgId]);
    expect(orgs.data.count).toBe(1);

    const org = await erinApi.orgs.getOrganizationById(orgId);
    expect(org.status).toBe(200);
    assertMatchesSpec('getOrganizationById', 200, org.data);
    expect(org.data).toMatchObject({ object: 'organization', id: orgId, title: 'Client Org' });
    expect(org.data.permissions.admin).toBe(true);

    const updated = await erinApi.orgs.updateOrganizationById(orgId, { title: 'Client Org Renamed' });
    expect(updated.status).toBe(200);
    assertMatchesSpec('updateOrganizationById', 200, updated.data);
    expect(updated.data.title).toBe('Client Org Renamed');

    const outsider = await server.createUser('Outsider');
    expect((await apiOf(outsider).orgs.listOrganizationsForAuthenticatedUser()).data).toMatchObject({ items: [], count: 0 });
  });

  it('creates, lists, reads, updates and deletes spaces', async () => {
    const orgId = await newOrg();
    const created = await adaApi.orgs.createSpace(orgId, { title: 'Guide', emoji: '📘' } as never);
    expect(created.status).toBe(201);
    assertMatchesSpec('createSpace', 201, created.data);
    expect(created.data).toMatchObject({ object: 'space', title: 'Guide', organization: orgId, visibility: 'private' });
    const spaceId = created.data.id;

    const list = await adaApi.orgs.listSpacesInOrganizationById(orgId, { limit: 5 });
    expect(list.status).toBe(200);
    assertMatchesSpec('listSpacesInOrganizationById', 200, list.data);
    expect(list.data.items.map((s) => s.id)).toContain(spaceId);

    const got = await adaApi.spaces.getSpaceById(spaceId);
    expect(got.status).toBe(200);
    assertMatchesSpec('getSpaceById', 200, got.data);
    expect(got.data.permissions?.admin).toBe(true);

    const updated = await adaApi.spaces.updateSpaceById(spaceId, { title: 'Handbook', visibility: 'unlisted' } as never);
    expect(updated.status).toBe(200);
    assertMatchesSpec('updateSpaceById', 200, updated.data);
    expect(updated.data).toMatchObject({ id: spaceId, title: 'Handbook', visibility: 'unlisted' });

    const deleted = await adaApi.spaces.deleteSpaceById(spaceId);
    expect(deleted.status).toBe(205);
    expect((await adaApi.spaces.deleteSpaceById(spaceId)).status).toBe(204);
    expect((await apiError(adaApi.spaces.getSpaceById(spaceId))).code).toBe(404);
  });

  it('creates collections and spaces inside them', async () => {
    const orgId = await newOrg();
    const collection = await adaApi.orgs.createCollection(orgId, { title: 'Products' });
    expect(collection.status).toBe(201);
    assertMatchesSpec('createCollection', 201, collection.data);
    const collectionId = collection.data.id;

    const got = await adaApi.collections.getCollectionById(collectionId);
    expect(got.status).toBe(200);
    assertMatchesSpec('getCollectionById', 200, got.data);
    expect(got.data).toMatchObject({ object: 'collection', id: collectionId, title: 'Products', organization: orgId });

    const renamed = await adaApi.collections.updateCollectionById(collectionId, { title: 'All products', description: 'Everything we ship' });
    expect(renamed.status).toBe(200);
    assertMatchesSpec('updateCollectionById', 200, renamed.data);
    expect(renamed.data).toMatchObject({ title: 'All products', description: 'Everything we ship' });

    const listed = await adaApi.orgs.listCollectionsInOrganizationById(orgId);
    assertMatchesSpec('listCollectionsInOrganizationById', 200, listed.data);
    expect(listed.data.items.map((c) => c.id)).toEqual([collectionId]);

    const inner = await adaApi.orgs.createSpace(orgId, { title: 'API reference', parent: collectionId } as never);
    expect(inner.status).toBe(201);
    expect(inner.data.parent).toBe(collectionId);
    const spaces = await adaApi.collections.listSpacesInCollectionById(collectionId);
    expect(spaces.status).toBe(200);
    assertMatchesSpec('listSpacesInCollectionById', 200, spaces.data);
    expect(spaces.data.items.map((s) => s.id)).toEqual([inner.data.id]);

    expect((await apiError(bobApi.collections.getCollectionById(collectionId))).code).toBe(404);
    const deleted = await adaApi.collections.deleteCollectionById(collectionId);
    expect(deleted.status).toBe(205);
    expect((await adaApi.collections.deleteCollectionById(collectionId)).status).toBe(204);
  });

  it('manages members', async () => {
    const orgId = await newOrg();
    await server.app.db.member.create({ data: { id: `m-client-${orgId}`, organizationId: orgId, userId: bob.id, role: 'read' } });

    const list = await adaApi.orgs.listMembersInOrganizationById(orgId, { role: 'read' as never, order: 'asc', limit: 10 });
    expect(list.status).toBe(200);
    assertMatchesSpec('listMembersInOrganizationById', 200, list.data);
    expect(list.data.items.map((m) => m.id)).toEqual([bob.id]);
    const searched = await adaApi.orgs.listMembersInOrganizationById(orgId, { search: 'ADA' });
    expect(searched.data.items.map((m) => m.id)).toEqual([ada.id]);

    const member = await adaApi.orgs.getMemberInOrganizationById(orgId, bob.id);
    expect(member.status).toBe(200);
    assertMatchesSpec('getMemberInOrganizationById', 200, member.data);
    expect(member.data).toMatchObject({ object: 'member', id: bob.id, role: 'read', user: { id: bob.id, displayName: 'Bob' } });

    const promoted = await adaApi.orgs.updateMemberInOrganizationById(orgId, bob.id, { role: 'edit' as never });
    expect(promoted.status).toBe(200);
    assertMatchesSpec('updateMemberInOrganizationById', 200, promoted.data);
    expect(promoted.data.role).toBe('edit');

    // Bob is a member now: not an admin, so member changes are forbidden (403).
    const forbidden = await apiError(bobApi.orgs.updateMemberInOrganizationById(orgId, ada.id, { role: 'read' as never }));
    expect(forbidden.code).toBe(403);
    expect(forbidden.errorMessage).toEqual(expect.any(String));
    expect((await apiError(bobApi.orgs.removeMemberFromOrganizationById(orgId, ada.id))).code).toBe(403);

    // The last admin cannot leave.
    const lastAdmin = await apiError(adaApi.orgs.removeMemberFromOrganizationById(orgId, ada.id));
    expect(lastAdmin.code).toBe(409);
    expect(lastAdmin.errorMessage).toMatch(/at least one admin/);

    const removed = await adaApi.orgs.removeMemberFromOrganizationById(orgId, bob.id);
    expect(removed.status).toBe(205);
    expect((await adaApi.orgs.removeMemberFromOrganizationById(orgId, bob.id)).status).toBe(204);
    expect((await apiError(adaApi.orgs.getMemberInOrganizationById(orgId, bob.id))).code).toBe(404);
    // Bob is no longer a member: the organization is hidden from him.
    expect((await apiError(bobApi.orgs.getOrganizationById(orgId))).code).toBe(404);
  });

  it('surfaces errors as GitBookAPIError with status and message', async () => {
    const orgId = await newOrg();
    const notFound = await apiError(adaApi.orgs.getOrganizationById('no-such-org'));
    expect(notFound.code).toBe(404);
    expect(notFound.response.status).toBe(404);
    expect(notFound.errorMessage).toMatch(/not found/i);
    expect((await apiError(adaApi.spaces.getSpaceById('no-such-space'))).code).toBe(404);
    expect((await apiError(bobApi.orgs.listMembersInOrganizationById(orgId))).code).toBe(404);

    // A reader may read a space but not change it.
    const space = (await adaApi.orgs.createSpace(orgId, { title: 'Read only' } as never)).data;
    await server.app.db.member.create({ data: { id: `m-client-reader-${orgId}`, organizationId: orgId, userId: bob.id, role: 'read' } });
    expect((await bobApi.spaces.getSpaceById(space.id)).status).toBe(200);
    const forbidden = await apiError(bobApi.spaces.updateSpaceById(space.id, { title: 'Mine' }));
    expect(forbidden.code).toBe(403);

    const badInput = await apiError(adaApi.spaces.updateSpaceById(space.id, { title: 'x'.repeat(51) }));
    expect(badInput.code).toBe(400);
    expect(badInput.errorMessage).toMatch(/title/);

    const anonymous = new GitBookAPI({ endpoint: server.baseUrl });
    expect((await apiError(anonymous.user.getAuthenticatedUser())).code).toBe(401);
    const badToken = new GitBookAPI({ authToken: 'gb_api_not-a-real-token', endpoint: `${server.baseUrl}/` });
    expect((await apiError(badToken.user.getAuthenticatedUser())).code).toBe(401);
  });

  it('writes content through a change request, merges it, reads and searches it', async () => {
    const orgId = await newOrg();
    const space = (await adaApi.orgs.createSpace(orgId, { title: 'Client content' } as never)).data;
    const changeRequest = await adaApi.spaces.createChangeRequest(space.id, { subject: 'Docs' });
    expect(changeRequest.status).toBe(201);
    assertMatchesSpec('createChangeRequest', 201, changeRequest.data);
    const next = new GitBookAPINext({ authToken: ada.token, endpoint: server.baseUrl });
    const update = await next.spaces.updateChangeRequestContent(
      space.id,
      changeRequest.data.id,
      { changes: [{ operation: 'insert_page', ref: 'intro', document: { markdown: '# Introduction\n\nThe **client** wrote this.' } }] },
      { compat: false },
    );
    expect(update.status).toBe(200);
    assertMatchesSpec('updateChangeRequestContent', 200, update.data, 'next');
    const merged = await adaApi.spaces.mergeChangeRequest(space.id, String(changeRequest.data.number));
    expect(merged.data.result).toBe('merge');
    const pages = await adaApi.spaces.listPages(space.id);
    assertMatchesSpec('listPages', 200, pages.data);
    const [intro] = pages.data.pages;
    expect(intro).toMatchObject({ title: 'Introduction', type: 'document' });
    const markdown = await adaApi.spaces.getPageById(space.id, intro!.id, { format: 'markdown' });
    assertMatchesSpec('getPageById', 200, markdown.data);
    expect((markdown.data as { markdown?: string }).markdown).toContain('The **client** wrote this.');
    const found = await adaApi.spaces.searchSpaceContent(space.id, { query: 'client' });
    assertMatchesSpec('searchSpaceContent', 200, found.data);
    expect(found.data.items.map((p) => p.id)).toEqual([intro!.id]);
    const carol = await server.createUser('Carol');
    const carolApi = new GitBookAPI({ authToken: carol.token, endpoint: server.baseUrl });
    expect((await apiError(carolApi.spaces.listPages(space.id))).code).toBe(404);

    // The revision the merge made, read by id as the renderer reads a pinned revision (0.202.0's client, as it
    // uses; the shapes are 0.146.0's, as the endpoint list says: 0.202.0's additions come with the renderer's work).
    const revision = await next.spaces.getRevisionById(space.id, merged.data.revision);
    assertMatchesSpec('getRevisionById', 200, revision.data);
    expect(revision.data.pages.map((p) => p.id)).toEqual([intro!.id]);
    const byPath = await next.spaces.getPageInRevisionByPath(space.id, merged.data.revision, (intro as { path: string }).path, { format: 'markdown', evaluated: true });
    assertMatchesSpec('getPageInRevisionByPath', 200, byPath.data);
    expect(byPath.data.id).toBe(intro!.id);
    const metaLinks = await next.spaces.listRevisionPageMetaLinks(space.id, merged.data.revision, intro!.id);
    assertMatchesSpec('listRevisionPageMetaLinks', 200, metaLinks.data, 'next');
    expect((await apiError(adaApi.spaces.getRevisionById(space.id, 'no-such-revision'))).code).toBe(404);

    const inOrganization = await adaApi.orgs.searchOrganizationContent(orgId, { query: 'client' });
    assertMatchesSpec('searchOrganizationContent', 200, inOrganization.data);
    expect(inOrganization.data.items.map((s) => [s.id, s.pages.map((p) => p.id)])).toEqual([[space.id, [intro!.id]]]);
  });

  it('sets and reads the agent instructions, and joins an organization by e-mail domain', async () => {
    const orgId = await newOrg();
    expect((await apiError(adaApi.orgs.getOrganizationAgentInstructions(orgId))).code).toBe(404);
    const instructions = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Be brief.', marks: [] }] }] }] };
    const set = await adaApi.orgs.updateOrganizationAgentInstructions(orgId, { instructions: instructions as never });
    assertMatchesSpec('updateOrganizationAgentInstructions', 200, set.data);
    const read = await adaApi.orgs.getOrganizationAgentInstructions(orgId);
    expect(read.data).toMatchObject({ object: 'agent-instructions', instructions, updatedBy: ada.id });

    await adaApi.orgs.updateOrganizationById(orgId, { emailDomains: ['example.com'] });
    const dave = await server.createUser('Dave');
    const daveApi = new GitBookAPI({ authToken: dave.token, endpoint: server.baseUrl });
    expect((await daveApi.orgs.joinOrganization(orgId)).status).toBe(204);
    expect((await daveApi.orgs.getOrganizationById(orgId)).status).toBe(200);
  });
});
