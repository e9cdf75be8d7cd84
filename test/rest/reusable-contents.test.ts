/**
 * Reusable contents over HTTP: created, edited and deleted through change
 * request content, listed on the revision, included by pages (`{% include %}`
 * in Markdown, a reusable-content block in JSON) and inlined on reads with
 * `dereference`, shared by id with the other spaces of the organization and
 * refused from another organization's, merged per reusable content.
 * Every 200 body is validated against @gitbook/api's OpenAPI document.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { contentEdits } from '../helpers/content-edits.ts';
import { expectError, useTestServer } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });
const { ok, changeRequest, merge } = contentEdits(server, ada, 'Reusable');
let org: string;
let bobSpace: string;

beforeAll(async () => {
  org = await server.createOrg(ada);
  const bobOrg = await server.createOrg(bob, 'Bob org');
  bobSpace = (await server.createSpace(bob, bobOrg, { title: 'Elsewhere' })).id;
});

async function edit(space: string, cr: string, changes: unknown[]) {
  const res = await server.graphql(
    `mutation($space: ID!, $cr: String!, $input: UpdateChangeRequestContentInput!) {
      updateChangeRequestContent(spaceId: $space, changeRequestId: $cr, input: $input) { changes { object ref page } reusableContents { object ref reusableContent } }
    }`,
    { token: ada.token, variables: { space, cr, input: { changes } } },
  );
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data.updateChangeRequestContent;
}

const texts = (document: any): string[] =>
  document.nodes.map((n: any) => (n.type === 'reusable-content' ? `[include ${n.data.ref.reusableContent}]` : JSON.stringify(n).match(/"text":"([^"]*)"/g)?.map((t) => t.slice(8, -1)).join('') ?? ''));

describe('reusable contents', () => {
  let space: string;
  let note: string;
  let page: string;

  beforeAll(async () => {
    space = (await server.createSpace(ada, org, { title: 'Shared notes' })).id;
    const cr = await changeRequest(space);
    const result = await edit(space, cr, [
      { operation: 'set_variables', variables: { product: 'Acme' } },
      { operation: 'insert_reusable_content', ref: 'note', title: 'Warning', document: { markdown: 'Be careful with <code class="expression">space.vars.product</code>.\n' } },
      { operation: 'insert_page', ref: 'guide', title: 'Guide', document: { markdown: 'Intro.\n\n{% include "./note" %}\n\nEnd.\n' } },
    ]);
    note = result.reusableContents[0].reusableContent;
    page = result.changes[0].page.id;
    expect(result.reusableContents).toEqual([{ object: 'created_reusable_content', ref: 'note', reusableContent: note }]);
    expect((await merge(space, cr)).result).toBe('merge');
  });

  it('lists them on the revision and keeps the include as a block', async () => {
    const revision = await ok('GET', `/v1/spaces/${space}/content`);
    assertMatchesSpec('getCurrentRevision', 200, revision);
    expect(revision.reusableContents).toEqual([{ id: note, title: 'Warning', document: expect.any(String) }]);
    const body = await ok('GET', `/v1/spaces/${space}/content/page/${page}`);
    expect(texts(body.document)).toEqual(['Intro.', `[include ${note}]`, 'End.']);
    const markdown = await ok('GET', `/v1/spaces/${space}/content/page/${page}?format=markdown`);
    expect(markdown.markdown).toContain(`{% include "/reusable-contents/${note}" %}`);
  });

  it('inlines them with dereference, evaluated too when asked', async () => {
    for (const value of ['true', 'reusable-contents']) {
      const body = await ok('GET', `/v1/spaces/${space}/content/page/${page}?dereference=${value}`);
      assertMatchesSpec('getPageById', 200, body);
      expect(texts(body.document)).toEqual(['Intro.', 'Be careful with .', 'End.']);
    }
    const evaluated = await ok('GET', `/v1/spaces/${space}/content/page/${page}?dereference=true&evaluated=true`);
    expect(texts(evaluated.document)).toEqual(['Intro.', 'Be careful with Acme.', 'End.']);
    const markdown = await ok('GET', `/v1/spaces/${space}/content/page/${page}?format=markdown&dereference=true&evaluated=true`);
    expect(markdown.markdown).toContain('Be careful with Acme.');
    expectError(await server.request('GET', `/v1/spaces/${space}/content/page/${page}?dereference=maybe`, { token: ada.token }), 400, /dereference: must be/);
  });

  it('are shared by id with the spaces of the organization, and refused from another organization', async () => {
    const other = (await server.createSpace(ada, org, { title: 'Includer' })).id;
    const cr = await changeRequest(other);
    const includes = (fromSpace: string) => ({
      object: 'document',
      data: {},
      nodes: [{ object: 'block', type: 'reusable-content', isVoid: true, data: { ref: { kind: 'reusable-content', reusableContent: note, space: fromSpace } } }],
    });
    const included = await edit(other, cr, [{ operation: 'insert_page', title: 'Uses the note', document: { document: includes(space) } }]);
    const body = await ok('GET', `/v1/spaces/${other}/change-requests/${cr}/content/page/${included.changes[0].page.id}?dereference=true`);
    expect(texts(body.document)).toEqual(['Be careful with .']);

    const before = (await ok('GET', `/v1/spaces/${other}/change-requests/${cr}`)).revision;
    const refused = await server.request('POST', `/v1/spaces/${other}/change-requests/${cr}/content`, {
      token: ada.token,
      body: { changes: [{ operation: 'insert_page', title: 'Steals', document: { document: includes(bobSpace) } }] },
    });
    expectError(refused, 400, /not a space of this organization/);
    expect((await ok('GET', `/v1/spaces/${other}/change-requests/${cr}`)).revision).toBe(before);
  });

  it('are edited and deleted; a deleted one stays a reference on reads', async () => {
    const cr = await changeRequest(space);
    await edit(space, cr, [{ operation: 'update_reusable_content', reusableContent: note, title: 'Caution', document: { markdown: 'Mind the gap.\n' } }]);
    expect((await ok('GET', `/v1/spaces/${space}/change-requests/${cr}/content`)).reusableContents).toEqual([{ id: note, title: 'Caution', document: expect.any(String) }]);
    expect(texts((await ok('GET', `/v1/spaces/${space}/change-requests/${cr}/content/page/${page}?dereference=true`)).document)).toEqual(['Intro.', 'Mind the gap.', 'End.']);
    await edit(space, cr, [{ operation: 'delete_reusable_content', reusableContent: note }]);
    const revision = await ok('GET', `/v1/spaces/${space}/change-requests/${cr}/content`);
    expect(revision.reusableContents).toEqual([]);
    expect(texts((await ok('GET', `/v1/spaces/${space}/change-requests/${cr}/content/page/${page}?dereference=true`)).document)).toEqual(['Intro.', `[include ${note}]`, 'End.']);
    const missing = await server.request('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, {
      token: ada.token,
      body: { changes: [{ operation: 'update_reusable_content', reusableContent: note, title: 'Back' }] },
    });
    expectError(missing, 400, /changes\[0\]: reusableContent: no reusable content/);
  });

  it('merge per reusable content: different ones both kept, the same one changed on both sides a conflict', async () => {
    const s = (await server.createSpace(ada, org, { title: 'Merging' })).id;
    const base = await changeRequest(s);
    const made = await edit(s, base, [
      { operation: 'insert_reusable_content', ref: 'a', title: 'A', document: { markdown: 'A.\n' } },
      { operation: 'insert_reusable_content', ref: 'b', title: 'B', document: { markdown: 'B.\n' } },
    ]);
    await merge(s, base);
    const [a, b] = made.reusableContents.map((c: any) => c.reusableContent);
    const one = await changeRequest(s);
    const two = await changeRequest(s);
    await edit(s, one, [{ operation: 'update_reusable_content', reusableContent: a, title: 'A, renamed' }]);
    await edit(s, two, [{ operation: 'update_reusable_content', reusableContent: b, title: 'B, renamed' }]);
    expect((await merge(s, one)).result).toBe('merge');
    expect((await merge(s, two)).result).toBe('merge');
    const titles = (await ok('GET', `/v1/spaces/${s}/content`)).reusableContents.map((c: any) => c.title);
    expect(titles).toEqual(['A, renamed', 'B, renamed']);
    const three = await changeRequest(s);
    const four = await changeRequest(s);
    await edit(s, three, [{ operation: 'update_reusable_content', reusableContent: a, title: 'A3' }]);
    await edit(s, four, [{ operation: 'update_reusable_content', reusableContent: a, title: 'A4' }]);
    expect((await merge(s, three)).result).toBe('merge');
    expect((await merge(s, four)).result).toBe('conflicts');
  });
});
