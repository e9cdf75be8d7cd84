/**
 * GET /v1/spaces/{spaceId} costs the same number of SQL statements for every
 * space, at most 2 once the process knows the caller (the viewer cache): the
 * space; its default level through its collections, its change request and
 * comment counts, its Git Sync and its published places with their sites (their icon too) and sections. That
 * holds whether it is in nested collections or not, on a published site or
 * not, with change requests or not; a caller the process does not know yet
 * costs one statement more.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { useTestServer } from '../helpers/server.ts';

/** The SQL the app sends while `recording` is on. */
const sent: string[] = [];
let recording = false;
const { server, admin, editor } = useTestServer({ users: ['Admin', 'Editor'], app: { onQuery: (sql) => recording && sent.push(sql) } });
let org: string;
const spaces: Record<string, string> = {};

async function statementsOf(token: string, spaceId: string) {
  sent.length = 0;
  recording = true;
  const { statements, result: res } = await server.countStatements(() => server.request('GET', `/v1/spaces/${spaceId}`, { token }));
  recording = false;
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  assertMatchesSpec('getSpaceById', 200, res.body);
  return { statements, body: res.body, sql: [...sent] };
}

beforeAll(async () => {
  org = (await server.request('POST', '/v1/orgs', { token: admin.token, body: { title: 'Statements' } })).body.id;
  const db = server.app.db;
  await db.member.create({ data: { id: newId(), organizationId: org, userId: editor.id, role: 'read' } });
  // Collections three deep: the innermost two inherit, the outer one raises members to edit.
  const [outer, middle, inner] = [newId(), newId(), newId()];
  await db.collection.create({ data: { id: outer, organizationId: org, title: 'Outer', defaultLevel: 'edit' } });
  await db.collection.create({ data: { id: middle, organizationId: org, title: 'Middle', parentId: outer } });
  await db.collection.create({ data: { id: inner, organizationId: org, title: 'Inner', parentId: middle } });
  const create = async (name: string, parent?: string) => {
    const res = await server.request('POST', `/v1/orgs/${org}/spaces`, { token: admin.token, body: { title: name, ...(parent ? { parent } : {}) } });
    expect(res.status).toBe(201);
    spaces[name] = res.body.id;
  };
  await create('top');
  await create('nested', inner);
  await create('with change requests');
  await create('published');
  await create('unpublished site');
  await create('members only');
  await create('synced');
  await db.gitSync.create({ data: { spaceId: spaces.synced!, provider: 'github', url: 'https://github.com/acme/handbook', ref: 'refs/heads/main' } });
  for (const subject of ['one', 'two']) {
    await server.request('POST', `/v1/spaces/${spaces['with change requests']}/change-requests`, { token: admin.token, body: { subject } });
  }
  const open = (await server.request('POST', `/v1/spaces/${spaces['with change requests']}/change-requests`, { token: admin.token, body: { subject: 'three' } })).body;
  await server.request('PATCH', `/v1/spaces/${spaces['with change requests']}/change-requests/${open.id}`, { token: admin.token, body: { status: 'open' } });
  const site = (await server.request('POST', `/v1/orgs/${org}/sites`, { token: admin.token, body: { title: 'Docs' } })).body;
  const favicon = { icon: { light: 'https://cdn.example.com/icon.png', dark: 'https://cdn.example.com/icon-dark.png' } };
  expect((await server.request('PATCH', `/v1/orgs/${org}/sites/${site.id}`, { token: admin.token, body: { customizations: { favicon } } })).status).toBe(200);
  const added = await server.request('POST', `/v1/orgs/${org}/sites/${site.id}/sections`, { token: admin.token, body: { spaceId: spaces.published } });
  expect(added.status).toBe(201);
  expect((await server.request('POST', `/v1/orgs/${org}/sites/${site.id}/publish`, { token: admin.token })).status).toBe(200);
  const membersOnly = (await server.request('POST', `/v1/orgs/${org}/sites`, { token: admin.token, body: { title: 'Members', visibility: 'visitor-auth' } })).body;
  expect((await server.request('POST', `/v1/orgs/${org}/sites/${membersOnly.id}/sections`, { token: admin.token, body: { spaceId: spaces['members only'] } })).status).toBe(201);
  expect((await server.request('POST', `/v1/orgs/${org}/sites/${membersOnly.id}/publish`, { token: admin.token })).status).toBe(200);
  const hidden = (await server.request('POST', `/v1/orgs/${org}/sites`, { token: admin.token, body: { title: 'Draft', spaces: [spaces['unpublished site']] } })).body;
  expect(hidden.id).toBeTruthy();
});

describe('GET /v1/spaces/{spaceId}', () => {
  it('costs the same statements, at most 2, for every space and caller', async () => {
    // Warm up the statement caches of both callers' paths.
    for (const user of [admin, editor]) await statementsOf(user.token, spaces.top!);
    const counts: Record<string, number> = {};
    const sql: Record<string, string[]> = {};
    for (const user of [admin, editor]) {
      for (const [name, id] of Object.entries(spaces)) {
        const { statements, body, sql: statementsSent } = await statementsOf(user.token, id);
        counts[`${user === admin ? 'admin' : 'reader'}: ${name}`] = statements;
        sql[`${user === admin ? 'admin' : 'reader'}: ${name}`] = statementsSent;
        if (name === 'nested') expect(body.permissions.edit, 'the outer collection raises members to edit').toBe(true);
        if (name === 'top') expect(body.permissions.edit).toBe(user === admin);
        if (name === 'with change requests') expect([body.changeRequests, body.changeRequestsOpen, body.changeRequestsDraft]).toEqual([3, 1, 2]);
        if (name === 'published') expect(body.urls.published).toMatch(/^http/);
        // On a public site: its public address is the published one, and visitors need no sign-in.
        if (name === 'published') expect([body.urls.public, body.visitorAuth]).toEqual([body.urls.published, undefined]);
        // Its icon is the image of its site's favicon; a space on a site without one has none.
        if (name === 'published') expect(body.urls.icon).toBe('https://cdn.example.com/icon.png');
        if (name === 'members only') expect(body.urls.icon).toBeUndefined();
        if (name === 'unpublished site') expect([body.urls.published, body.urls.public, body.visitorAuth]).toEqual([undefined, undefined, undefined]);
        if (name === 'synced') {
          const { updatedAt } = await server.app.db.gitSync.findUniqueOrThrow({ where: { spaceId: id } });
          expect(body.gitSync).toEqual({ repoName: 'acme/handbook', installationProvider: 'github', url: 'https://github.com/acme/handbook', updatedAt: updatedAt.toISOString() });
        } else expect(body.gitSync).toBeUndefined();
        if (name === 'members only') expect([body.urls.published, body.urls.public, body.visitorAuth]).toEqual([expect.stringMatching(/^http/), undefined, { backend: 'custom' }]);
      }
    }
    console.log(`GET /v1/spaces/{spaceId}: ${JSON.stringify(counts)}`);
    const distinct = new Set(Object.values(counts));
    expect(distinct.size, JSON.stringify(sql, null, 1)).toBe(1);
    expect([...distinct][0], JSON.stringify(sql, null, 1)).toBeLessThanOrEqual(2);
  });
});
