/**
 * Revision tags and page tags over HTTP: tags created, edited and deleted
 * through change request content (insert_tag, update_tag, delete_tag), listed
 * on the revision in order; pages given tags from insert_page/update_page and
 * from Markdown frontmatter, answered on every document page (`[]` for none)
 * with the layout members of @gitbook/api 0.202.0; bad values refused with a
 * 400 naming the change and the member, nothing written; a deleted tag taken
 * from the pages that carried it; merges per slug; semantic changes.
 * 200 bodies are validated against 0.146.0's OpenAPI document, and the parts
 * shaped by 0.202.0 (RevisionPageDocument, RevisionTag, RevisionSemanticChange) against it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { assertMatchesComponent, assertMatchesSpec } from '../helpers/openapi.ts';
import { validateSemanticChange } from '../helpers/openapi-schema.ts';
import { contentEdits } from '../helpers/content-edits.ts';
import { expectError, useTestServer } from '../helpers/server.ts';

const { server, ada } = useTestServer({ users: ['Ada'] });
const { ok, changeRequest, edit, merge } = contentEdits(server, ada, 'Tags');
let org: string;

beforeAll(async () => {
  org = await server.createOrg(ada);
});

/**
 * A tag against 0.202.0's RevisionTag. Its `oneOf` of `{emoji}` (emoji required) and `{icon?}`
 * (nothing required) matches a tag with an emoji twice, so no tag with one can pass it as written
 * (docs/decisions.md, "Tags"): such a tag is checked against the common part and Emoji.
 */
function assertTag(tag: any) {
  if (tag.emoji === undefined) return assertMatchesComponent('RevisionTag', tag, 'next');
  assertMatchesComponent('RevisionTag/allOf/0', tag, 'next');
  assertMatchesComponent('Emoji', tag.emoji, 'next');
  expect(tag.icon).toBeUndefined();
}

/** A document page against 0.202.0's RevisionPageDocument, and the tags it lists. */
function assertPage(page: any) {
  assertMatchesComponent('RevisionPageDocument', page, 'next');
  return page.tags.map((t: any) => (t.primary ? `${t.tag.tag}*` : t.tag.tag));
}

describe('tags', () => {
  let space: string;
  let cr: string;
  let guide: string;
  let faq: string;
  let plain: string;

  beforeAll(async () => {
    space = (await server.createSpace(ada, org, { title: 'Tagged' })).id;
    cr = await changeRequest(space);
    const result = await edit(space, cr, [
      { operation: 'insert_tag', tag: 'beta', label: 'Beta', emoji: '🎉' },
      { operation: 'insert_tag', tag: 'new', label: ' New ', icon: 'sparkle', color: 'blue' },
      { operation: 'insert_tag', tag: 'api', label: 'API', color: '$primary' },
      { operation: 'insert_page', ref: 'guide', title: 'Guide', document: { markdown: 'Text.\n' }, tags: ['beta', { tag: 'new', primary: true }] },
      { operation: 'insert_page', ref: 'faq', document: { markdown: '---\ntags:\n  - api\n  - tag: beta\n    primary: true\n---\n\n# FAQ\n\nAsk.\n' } },
      { operation: 'insert_page', ref: 'plain', title: 'Plain', document: { markdown: 'Nothing.\n' } },
    ]);
    guide = result.changes.find((c: any) => c.ref === 'guide').page.id;
    faq = result.changes.find((c: any) => c.ref === 'faq').page.id;
    plain = result.changes.find((c: any) => c.ref === 'plain').page.id;
  });

  it('lists the tags of the revision in order, emoji as code points and color default when not given', async () => {
    const revision = await ok('GET', `/v1/spaces/${space}/change-requests/${cr}/content`);
    assertMatchesSpec('getRevisionOfChangeRequestById', 200, revision);
    expect(revision.tags).toEqual([
      { slug: 'beta', label: 'Beta', color: 'default', emoji: '1f389' },
      { slug: 'new', label: 'New', color: 'blue', icon: 'sparkle' },
      { slug: 'api', label: 'API', color: '$primary' },
    ]);
    revision.tags.forEach(assertTag);
    const res = await server.graphql(`query($space: ID!, $cr: String) { revisionContent(spaceId: $space, changeRequestId: $cr) { tags { slug label color emoji icon } } }`, {
      token: ada.token,
      variables: { space, cr },
    });
    expect(res.body.data.revisionContent.tags[1]).toEqual({ slug: 'new', label: 'New', color: 'blue', emoji: null, icon: 'sparkle' });
  });

  it('answers the tags of every document page, [] for none, with every layout member of 0.202.0', async () => {
    const read = (id: string) => ok('GET', `/v1/spaces/${space}/change-requests/${cr}/content/page/${id}`);
    const g = await read(guide);
    assertMatchesSpec('getPageInChangeRequestById', 200, g);
    expect(assertPage(g)).toEqual(['beta', 'new*']);
    expect(g.tags).toEqual([{ tag: { kind: 'tag', tag: 'beta' } }, { tag: { kind: 'tag', tag: 'new' }, primary: true }]);
    expect(g.layout).toEqual({
      width: 'default',
      cover: true,
      coverSize: 'hero',
      coverMask: 'none',
      title: true,
      description: true,
      tableOfContents: true,
      outline: true,
      pagination: true,
      metadata: true,
      tags: true,
      actions: true,
      anchors: true,
    });
    const f = await read(faq);
    expect(f.title).toBe('FAQ');
    expect(assertPage(f)).toEqual(['api', 'beta*']);
    const p = await read(plain);
    expect(assertPage(p)).toEqual([]);
    // The tree answers them too, and the revision validates against 0.202.0 with its pages.
    const revision = await ok('GET', `/v1/spaces/${space}/change-requests/${cr}/content`);
    expect(revision.pages.map((page: any) => page.tags.length)).toEqual([2, 2, 0]);
    assertMatchesComponent('RevisionTypeEdits', { ...revision, tags: revision.tags.filter((t: any) => t.emoji === undefined) }, 'next');
  });

  it('sets layout members of 0.202.0 and refuses values they do not take', async () => {
    await edit(space, cr, [{ operation: 'update_page', page: plain, layout: { tags: false, actions: false, coverMask: 'radial' } }]);
    const p = await ok('GET', `/v1/spaces/${space}/change-requests/${cr}/content/page/${plain}`);
    expect(p.layout).toMatchObject({ tags: false, actions: false, anchors: true, coverMask: 'radial', title: true });
    assertPage(p);
    const res = await server.request('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, {
      token: ada.token,
      body: { changes: [{ operation: 'update_page', page: plain, layout: { coverMask: 'square' } }] },
    });
    expectError(res, 400, /changes\[0\]: layout: coverMask: not a value it takes/);
  });

  it('refuses bad tags and page tags with a 400 naming the change and the member, writing nothing', async () => {
    const before = (await ok('GET', `/v1/spaces/${space}/change-requests/${cr}`)).revision;
    const refused = async (change: Record<string, unknown>, message: RegExp) => {
      const res = await server.request('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, {
        token: ada.token,
        body: { changes: [{ operation: 'insert_tag', tag: 'fine', label: 'Fine' }, change] },
      });
      expectError(res, 400, message);
    };
    await refused({ operation: 'insert_tag', tag: 'Not A Slug', label: 'X' }, /changes\[1\]: tag: "Not A Slug": a slug is lowercase letters and digits/);
    await refused({ operation: 'insert_tag', tag: 'long', label: 'x'.repeat(101) }, /changes\[1\]: label: required, 1 to 100 characters/);
    await refused({ operation: 'insert_tag', tag: 'nolabel' }, /changes\[1\]: label: required/);
    await refused({ operation: 'insert_tag', tag: 'pink', label: 'Pink', color: 'magenta' }, /changes\[1\]: color: must be one of default, green/);
    await refused({ operation: 'insert_tag', tag: 'both', label: 'Both', emoji: '🎉', icon: 'gear' }, /changes\[1\]: emoji, icon: a tag has an emoji or an icon, not both/);
    await refused({ operation: 'insert_tag', tag: 'word', label: 'Word', emoji: 'party' }, /changes\[1\]: emoji: "party" is not an emoji/);
    await refused({ operation: 'insert_tag', tag: 'spaced', label: 'Spaced', icon: 'two words' }, /changes\[1\]: icon: "two words" is not an icon name/);
    await refused({ operation: 'insert_tag', tag: 'beta', label: 'Again' }, /changes\[1\]: tag: "beta" is already a tag/);
    await refused({ operation: 'update_tag', tag: 'gone', label: 'Gone' }, /changes\[1\]: tag: no tag "gone" in the change request/);
    await refused({ operation: 'update_tag', tag: 'beta', label: '' }, /changes\[1\]: label: must be 1 to 100 characters/);
    await refused({ operation: 'delete_tag', tag: 'gone' }, /changes\[1\]: tag: no tag "gone"/);
    await refused({ operation: 'update_page', page: guide, tags: ['beta', 'missing'] }, /changes\[1\]: tags: no tag "missing" in the change request/);
    await refused({ operation: 'update_page', page: guide, tags: 'beta' }, /changes\[1\]: tags: must be a list/);
    await refused({ operation: 'update_page', page: guide, tags: ['beta', 'beta'] }, /changes\[1\]: tags: \[1\]: "beta" is listed twice/);
    await refused({ operation: 'update_page', page: guide, tags: [{ tag: 'beta', primary: true }, { tag: 'fine', primary: true }] }, /tags: at most one primary tag/);
    await refused({ operation: 'update_page', page: guide, tags: [{ tag: { kind: 'tag', tag: 'beta', space: 'elsewhere' } }] }, /tags: \[0\]\.tag: space: a page carries the tags of its own space/);
    await refused({ operation: 'insert_page', title: 'X', document: { markdown: '---\ntags:\n  - nope\n---\n\nX.\n' } }, /changes\[1\]: tags: no tag "nope"/);
    await refused({ operation: 'insert_page', title: 'X', document: { markdown: '---\ntags:\n  - Bad Slug\n---\n\nX.\n' } }, /changes\[1\]: tags: \[0\]: "Bad Slug": a slug is/);
    expect((await ok('GET', `/v1/spaces/${space}/change-requests/${cr}`)).revision).toBe(before);
  });

  it('says which tags a change request creates, edits and deletes', async () => {
    const changes = await ok('GET', `/v1/spaces/${space}/change-requests/${cr}/changes?limit=100`);
    changes.changes.forEach((change: any) => validateSemanticChange(change, 'next'));
    expect(changes.changes.filter((c: any) => c.type.startsWith('tag_'))).toEqual([
      { type: 'tag_created', tag: { slug: 'beta', label: 'Beta' } },
      { type: 'tag_created', tag: { slug: 'new', label: 'New' } },
      { type: 'tag_created', tag: { slug: 'api', label: 'API' } },
    ]);
    expect((await merge(space, cr)).result).toBe('merge');
    const next = await changeRequest(space);
    await edit(space, next, [
      { operation: 'update_tag', tag: 'new', label: 'Newest' },
      { operation: 'delete_tag', tag: 'api' },
    ]);
    const edited = await ok('GET', `/v1/spaces/${space}/change-requests/${next}/changes`);
    edited.changes.forEach((change: any) => validateSemanticChange(change, 'next'));
    expect(edited.changes.filter((c: any) => c.type.startsWith('tag_'))).toEqual([
      { type: 'tag_edited', tag: { slug: 'new', label: 'Newest' }, attributes: { label: { before: 'New', after: 'Newest' } } },
      { type: 'tag_deleted', tag: { slug: 'api', label: 'API' } },
    ]);
  });

  it('edits a tag (label, color, emoji to icon and back to none) and keeps its slug; null removes page tags', async () => {
    const other = await changeRequest(space);
    await edit(space, other, [
      { operation: 'update_tag', tag: 'beta', label: 'Beta 2', color: 'green', icon: 'flask' },
      { operation: 'update_page', page: faq, tags: null },
    ]);
    let revision = await ok('GET', `/v1/spaces/${space}/change-requests/${other}/content`);
    expect(revision.tags[0]).toEqual({ slug: 'beta', label: 'Beta 2', color: 'green', icon: 'flask' });
    await edit(space, other, [{ operation: 'update_tag', tag: 'beta', icon: null }]);
    revision = await ok('GET', `/v1/spaces/${space}/change-requests/${other}/content`);
    expect(revision.tags[0]).toEqual({ slug: 'beta', label: 'Beta 2', color: 'green' });
    revision.tags.forEach(assertTag);
    const f = await ok('GET', `/v1/spaces/${space}/change-requests/${other}/content/page/${faq}`);
    expect(f.tags).toEqual([]);
  });

  it('takes a deleted tag from the pages that carry it', async () => {
    const other = await changeRequest(space);
    const result = await edit(space, other, [{ operation: 'delete_tag', tag: 'beta' }]);
    expect(result.changes.map((c: any) => c.object)).toEqual(['updated_page', 'updated_page']);
    const revision = await ok('GET', `/v1/spaces/${space}/change-requests/${other}/content`);
    expect(revision.tags.map((t: any) => t.slug)).toEqual(['new', 'api']);
    expect(revision.pages.map((page: any) => assertPage(page))).toEqual([['new*'], ['api'], []]);
    // A page reverted to before the deletion does not bring the tag back.
    await edit(space, other, [{ operation: 'update_page', page: guide, tags: null }]);
    await edit(space, other, [{ operation: 'revert_page', page: guide }]);
    expect(assertPage(await ok('GET', `/v1/spaces/${space}/change-requests/${other}/content/page/${guide}`))).toEqual(['new*']);
  });

  it('merges tags per slug and page tags as a page field', async () => {
    const s = (await server.createSpace(ada, org, { title: 'Merging tags' })).id;
    const first = await changeRequest(s);
    const made = await edit(s, first, [
      { operation: 'insert_tag', tag: 'a', label: 'A' },
      { operation: 'insert_tag', tag: 'b', label: 'B' },
      { operation: 'insert_page', ref: 'p', title: 'P', document: { markdown: 'P.\n' }, tags: ['a'] },
      { operation: 'insert_page', ref: 'q', title: 'Q', document: { markdown: 'Q.\n' } },
    ]);
    const p = made.changes.find((c: any) => c.ref === 'p').page.id;
    const q = made.changes.find((c: any) => c.ref === 'q').page.id;
    await merge(s, first);

    // Different tags edited, one added on each side: all kept, in the merged change request's order, then the space's new ones.
    const one = await changeRequest(s);
    const two = await changeRequest(s);
    await edit(s, one, [
      { operation: 'update_tag', tag: 'a', label: 'A1' },
      { operation: 'insert_tag', tag: 'c', label: 'C' },
    ]);
    await edit(s, two, [
      { operation: 'update_tag', tag: 'b', color: 'red' },
      { operation: 'insert_tag', tag: 'd', label: 'D' },
      { operation: 'update_page', page: q, tags: ['b'] },
    ]);
    expect((await merge(s, one)).result).toBe('merge');
    expect((await merge(s, two)).result).toBe('merge');
    let revision = await ok('GET', `/v1/spaces/${s}/content`);
    assertMatchesSpec('getCurrentRevision', 200, revision);
    expect(revision.tags.map((t: any) => `${t.slug}:${t.label}:${t.color}`)).toEqual(['a:A1:default', 'b:B:red', 'd:D:default', 'c:C:default']);

    // The same tag changed differently on both sides, and the same page's tags: conflicts.
    const three = await changeRequest(s);
    const four = await changeRequest(s);
    await edit(s, three, [
      { operation: 'update_tag', tag: 'c', label: 'C3' },
      { operation: 'update_page', page: p, tags: ['a', 'b'] },
    ]);
    await edit(s, four, [
      { operation: 'update_tag', tag: 'c', label: 'C4' },
      { operation: 'update_page', page: p, tags: ['d'] },
    ]);
    expect((await merge(s, three)).result).toBe('merge');
    await ok('PATCH', `/v1/spaces/${s}/change-requests/${four}`, { status: 'open' });
    const res = await server.graphql(`mutation($s: ID!, $cr: String!) { mergeChangeRequest(spaceId: $s, changeRequestId: $cr) { result conflicts } }`, {
      token: ada.token,
      variables: { s, cr: four },
    });
    expect(res.body.data.mergeChangeRequest.result).toBe('conflicts');
    expect(res.body.data.mergeChangeRequest.conflicts).toEqual([
      { kind: 'page', id: p, reason: 'both-modified', fields: ['tags'] },
      { kind: 'tag', id: 'c', reason: 'both-modified', fields: ['label'] },
    ]);

    // A tag deleted on one side and given to a page on the other: the page no longer carries it.
    const five = await changeRequest(s);
    const six = await changeRequest(s);
    await edit(s, five, [{ operation: 'delete_tag', tag: 'd' }]);
    await edit(s, six, [{ operation: 'update_page', page: q, tags: ['b', 'd'] }]);
    expect((await merge(s, five)).result).toBe('merge');
    expect((await merge(s, six)).result).toBe('merge');
    revision = await ok('GET', `/v1/spaces/${s}/content`);
    expect(revision.tags.map((t: any) => t.slug)).toEqual(['a', 'b', 'c']);
    const page = await ok('GET', `/v1/spaces/${s}/content/page/${q}`);
    expect(assertPage(page)).toEqual(['b']);
  });
});
