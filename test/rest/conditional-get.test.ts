/**
 * Conditional GETs (src/rest/http-cache.ts): every successful GET, REST or GraphQL, answers an
 * ETag of its bytes with `Cache-Control: private, no-cache`; `If-None-Match` naming it gets 304
 * without a body; a change, or another caller, makes another tag. Writes and errors carry none.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });
let org: string;
let space: string;

beforeAll(async () => {
  org = await server.createOrg(ada, 'Tags');
  space = (await server.createSpace(ada, org, { title: 'Tagged' })).id;
  await server.addMember(org, bob, 'read');
});

const get = (path: string, token: string, etag?: string) =>
  server.request('GET', path, { token, headers: etag ? { 'if-none-match': etag } : {} });

describe('REST GETs', () => {
  it('answer an ETag; the same tag back is 304 without a body; a change makes a new one', async () => {
    const first = await get(`/v1/spaces/${space}`, ada.token);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    expect(first.headers.get('vary')).toMatch(/Authorization/i);

    const again = await get(`/v1/spaces/${space}`, ada.token, etag);
    expect(again.status).toBe(304);
    expect(again.body).toBeNull();
    expect(again.headers.get('etag')).toBe(etag);
    // A list of tags, a weak form of the same tag, and `*` all match.
    expect((await get(`/v1/spaces/${space}`, ada.token, `"other", W/${etag}`)).status).toBe(304);
    expect((await get(`/v1/spaces/${space}`, ada.token, '*')).status).toBe(304);
    expect((await get(`/v1/spaces/${space}`, ada.token, '"other"')).status).toBe(200);

    // Another caller sees other permissions: another body, another tag.
    const asBob = await get(`/v1/spaces/${space}`, bob.token, etag);
    expect(asBob.status).toBe(200);
    expect(asBob.headers.get('etag')).not.toBe(etag);

    expect((await server.request('PATCH', `/v1/spaces/${space}`, { token: ada.token, body: { title: 'Retitled' } })).status).toBe(200);
    const changed = await get(`/v1/spaces/${space}`, ada.token, etag);
    expect(changed.status).toBe(200);
    expect(changed.body.title).toBe('Retitled');
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('lists too; writes and errors carry no tag', async () => {
    const list = await get(`/v1/orgs/${org}/spaces`, ada.token);
    expect(list.headers.get('etag')).toBeTruthy();
    expect((await get(`/v1/orgs/${org}/spaces`, ada.token, list.headers.get('etag')!)).status).toBe(304);
    const patched = await server.request('PATCH', `/v1/spaces/${space}`, { token: ada.token, body: { title: 'Again' } });
    expect(patched.headers.get('etag')).toBeNull();
    const missing = await get('/v1/spaces/nope', ada.token);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('etag')).toBeNull();
  });
});

describe('GraphQL GETs', () => {
  const query = (q: string) => `/graphql?query=${encodeURIComponent(q)}`;

  it('answer an ETag and 304; POSTs, and results with errors, carry none', async () => {
    const path = query(`{ space(id: "${space}") { id title } }`);
    const first = await server.request('GET', path, { token: ada.token, headers: { accept: 'application/json' } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: { space: { id: space, title: expect.any(String) } } });
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const again = await server.request('GET', path, { token: ada.token, headers: { accept: 'application/json', 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.body).toBeNull();

    const posted = await server.graphql(`{ space(id: "${space}") { id title } }`, { token: ada.token });
    expect(posted.status).toBe(200);
    expect(posted.headers.get('etag')).toBeNull();
    const failed = await server.request('GET', query('{ space(id: "nope") { id } }'), { token: ada.token, headers: { accept: 'application/json' } });
    expect(failed.body.errors).toBeDefined();
    expect(failed.headers.get('etag')).toBeNull();
  });
});
