/**
 * semanticChanges: what changed between two contents, in GitBook's
 * RevisionSemanticChange shapes (validated against the OpenAPI document).
 */
import { describe, expect, it } from 'vitest';
import { semanticChanges, type ChangeableContent } from '../../src/content/semantic-changes.ts';
import type { FileSnapshot, PageSnapshot, TagSnapshot } from '../../src/content/snapshot.ts';
import { validateSemanticChange } from '../helpers/openapi-schema.ts';
import { pageSnapshot } from '../helpers/snapshot.ts';

const file = (id: string, fields: Partial<FileSnapshot> = {}): FileSnapshot => ({
  id,
  name: `${id}.png`,
  contentType: 'image/png',
  size: 10,
  storageKey: `key-${id}`,
  width: 1,
  height: 1,
  ...fields,
});

function content(pages: PageSnapshot[], more: Partial<ChangeableContent> = {}): ChangeableContent {
  return { pages: new Map(pages.map((p) => [p.id, p])), files: new Map(), reusableContents: new Map(), variables: {}, tags: new Map(), ...more };
}

const fileUrl = (f: FileSnapshot) => `https://files.example.com/${f.storageKey}`;

describe('semanticChanges', () => {
  it('says every page, file, variable and reusable content of a first revision was created', () => {
    const after = content([pageSnapshot({ id: 'a', title: 'A', slug: 'a' }), pageSnapshot({ id: 'g', kind: 'group', title: 'G', slug: 'g', index: 1 })], {
      files: new Map([['f', file('f')]]),
      variables: { product: 'Acme' },
      reusableContents: new Map([['r', { id: 'r', title: 'R', documentHash: 'h1' }]]),
    });
    const changes = semanticChanges(content([]), after, { fileUrl });
    expect(changes).toEqual([
      { type: 'page_created', page: { id: 'a', type: 'document', title: 'A', path: 'a' } },
      { type: 'page_created', page: { id: 'g', type: 'group', title: 'G', path: 'g' } },
      { type: 'file_created', file: { id: 'f', name: 'f.png', contentType: 'image/png', downloadURL: 'https://files.example.com/key-f' } },
      { type: 'variables_edited', variables: { product: { after: 'Acme' } } },
      { type: 'reusable_content_created', reusableContent: { id: 'r', title: 'R', document: 'h1' } },
    ]);
    for (const change of changes) validateSemanticChange(change);
  });

  it('says what was edited (by page type), moved and deleted, and nothing of what stayed', () => {
    const before = content(
      [
        pageSnapshot({ id: 'a', title: 'A', slug: 'a', documentHash: 'd1', description: 'old' }),
        pageSnapshot({ id: 'b', title: 'B', slug: 'b', index: 1 }),
        pageSnapshot({ id: 'l', kind: 'link', title: 'L', slug: 'l', index: 2, linkTarget: { kind: 'url', url: 'https://a.example' } }),
        pageSnapshot({ id: 'gone', title: 'Gone', slug: 'gone', index: 3 }),
      ],
      {
        files: new Map([
          ['f', file('f')],
          ['x', file('x')],
        ]),
        variables: { product: 'Acme', stays: 1 },
        reusableContents: new Map([['r', { id: 'r', title: 'R', documentHash: 'h1' }]]),
      },
    );
    const after = content(
      [
        pageSnapshot({ id: 'a', title: 'A2', slug: 'a', documentHash: 'd2', description: null }),
        pageSnapshot({ id: 'b', title: 'B', slug: 'b', parentId: 'a' }),
        pageSnapshot({ id: 'l', kind: 'link', title: 'L', slug: 'l', index: 1, linkTarget: { kind: 'url', url: 'https://b.example' } }),
      ],
      {
        files: new Map([['f', file('f', { name: 'renamed.png', storageKey: 'key-f2', width: 2 })]]),
        variables: { product: 'Acme Cloud', stays: 1 },
        reusableContents: new Map([['r', { id: 'r', title: 'R', documentHash: 'h2' }]]),
      },
    );
    const changes = semanticChanges(before, after, { fileUrl });
    expect(changes).toEqual([
      {
        type: 'page_edited',
        page: { id: 'a', type: 'document', title: 'A2', path: 'a' },
        attributes: { title: { before: 'A', after: 'A2' }, description: { before: 'old' }, document: { before: 'd1', after: 'd2' } },
      },
      { type: 'page_moved', page: { id: 'b', type: 'document', title: 'B', path: 'a/b' }, parent: { after: { id: 'a', type: 'document', title: 'A2', path: 'a' } } },
      {
        type: 'page_edited',
        page: { id: 'l', type: 'link', title: 'L', path: 'l' },
        attributes: { target: { before: { kind: 'url', url: 'https://a.example' }, after: { kind: 'url', url: 'https://b.example' } } },
      },
      { type: 'page_deleted', page: { id: 'gone', type: 'document', title: 'Gone', path: 'gone' } },
      {
        type: 'file_edited',
        file: { id: 'f', name: 'renamed.png', contentType: 'image/png', downloadURL: 'https://files.example.com/key-f2' },
        attributes: {
          name: { before: 'f.png', after: 'renamed.png' },
          downloadURL: { before: 'https://files.example.com/key-f', after: 'https://files.example.com/key-f2' },
          dimensions: { before: { width: 1, height: 1 }, after: { width: 2, height: 1 } },
        },
      },
      { type: 'file_deleted', file: { id: 'x', name: 'x.png', contentType: 'image/png', downloadURL: 'https://files.example.com/key-x' } },
      { type: 'variables_edited', variables: { product: { before: 'Acme', after: 'Acme Cloud' } } },
      { type: 'reusable_content_edited', reusableContent: { id: 'r', title: 'R', document: 'h2' }, attributes: { document: { before: 'h1', after: 'h2' } } },
    ]);
    for (const change of changes) validateSemanticChange(change);
    expect(semanticChanges(after, after, { fileUrl })).toEqual([]);
  });

  it("says which tags were created, edited (label, color, emoji, icon) and deleted, after the rest, in the content's order", () => {
    const tag = (slug: string, fields: Partial<TagSnapshot> = {}): [string, TagSnapshot] => [slug, { slug, label: slug.toUpperCase(), color: 'default', emoji: null, icon: null, ...fields }];
    const before = content([], { tags: new Map([tag('beta', { emoji: '1f389' }), tag('old'), tag('same')]), variables: { a: 1 } });
    const after = content([], { tags: new Map([tag('same'), tag('new'), tag('beta', { label: 'Beta', color: 'blue', icon: 'flask' })]), variables: { a: 2 } });
    const changes = semanticChanges(before, after, { fileUrl });
    expect(changes).toEqual([
      { type: 'variables_edited', variables: { a: { before: 1, after: 2 } } },
      { type: 'tag_created', tag: { slug: 'new', label: 'NEW' } },
      {
        type: 'tag_edited',
        tag: { slug: 'beta', label: 'Beta' },
        attributes: { label: { before: 'BETA', after: 'Beta' }, color: { before: 'default', after: 'blue' }, emoji: { before: '1f389' }, icon: { after: 'flask' } },
      },
      { type: 'tag_deleted', tag: { slug: 'old', label: 'OLD' } },
    ]);
    for (const change of changes) validateSemanticChange(change, 'next');
  });
});
