import { describe, expect, it } from 'vitest';
import { type JSONDocument } from '../../../src/content/document/model.ts';
import { extractReferences } from '../../../src/content/document/references.ts';
import { validateSchema } from '../../helpers/openapi-schema.ts';
import { toDocument } from './helpers.ts';

describe('extractReferences', () => {
  it('finds links, images, files and embeds of converted Markdown in document order', () => {
    const document = toDocument(
      [
        'See [the guide](/pages/guide), [setup](/pages/guide#setup), [below](#faq) and [the site](https://example.com).',
        '![Diagram](/files/diagram "Caption with [a link](/pages/caption)")',
        '{% hint style="info" %}\nDownload [the PDF](/files/pdf).\n{% endhint %}',
        '{% file src="/files/attachment" %}',
        '{% embed url="https://youtu.be/x" %}',
        '| Link |\n| --- |\n| [cell](/pages/cell) ![icon](/files/icon) |',
        '{% tabs %}\n{% tab title="A" %}\n[in a tab](/pages/tab)\n{% endtab %}\n{% endtabs %}',
        '<details>\n\n<summary>More</summary>\n\n[hidden](https://hidden.example)\n\n</details>',
        '[other page](./other.md)',
      ].join('\n\n'),
      { resolveHref: (href) => (href === './other.md' ? { kind: 'page', page: 'other' } : null) },
    );
    expect(extractReferences(document)).toEqual([
      { ref: { kind: 'page', page: 'guide' } },
      { ref: { kind: 'anchor', anchor: 'setup', page: 'guide' } },
      { ref: { kind: 'anchor', anchor: 'faq' } },
      { ref: { kind: 'url', url: 'https://example.com' } },
      { ref: { kind: 'file', file: 'diagram' } },
      { ref: { kind: 'file', file: 'pdf' } },
      { ref: { kind: 'file', file: 'attachment' } },
      { ref: { kind: 'url', url: 'https://youtu.be/x' } },
      { ref: { kind: 'page', page: 'cell' } },
      { ref: { kind: 'file', file: 'icon' } },
      { ref: { kind: 'page', page: 'tab' } },
      { ref: { kind: 'url', url: 'https://hidden.example' } },
      { ref: { kind: 'page', page: 'other' } },
    ]);
  });

  it('finds refs of any node in a GitBook document, with node keys', () => {
    const text = (t: string) => ({ object: 'text' as const, key: `t-${t}`, leaves: [{ object: 'leaf' as const, text: t, marks: [] }] });
    const document: JSONDocument = {
      object: 'document',
      data: {},
      nodes: [
        { object: 'block', type: 'content-ref', key: 'cr', isVoid: true, data: { ref: { kind: 'space', space: 's1' } } },
        {
          object: 'block',
          type: 'paragraph',
          key: 'p',
          nodes: [
            text('Ask '),
            { object: 'inline', type: 'mention', key: 'm', isVoid: true, data: { ref: { kind: 'user', user: 'u1' } } },
            text(' or '),
            { object: 'inline', type: 'link', key: 'l', data: { ref: { kind: 'page', page: 'p1', space: 's2' } }, nodes: [text('here')] },
            text(''),
          ],
        },
        {
          object: 'block',
          type: 'images',
          key: 'imgs',
          isVoid: false,
          data: {},
          nodes: [{ object: 'block', type: 'image', key: 'img', isVoid: true, data: { ref: { kind: 'file', file: 'light' }, refDark: { kind: 'url', url: 'https://x/dark.png' } }, fragments: [] }],
        },
        {
          object: 'block',
          type: 'table',
          key: 'tbl',
          isVoid: true,
          data: {
            view: { type: 'grid', columns: ['c'], hideHeader: false },
            definition: { c: { id: 'c', title: 'Target', type: 'content-ref' } },
            records: {
              second: { orderIndex: 'a1', values: { c: { kind: 'page', page: 'second' } } },
              first: { orderIndex: 'a0', values: { c: { kind: 'page', page: 'first' } } },
            },
          },
          fragments: [],
        },
      ],
    };
    validateSchema('JSONDocument', document);
    expect(extractReferences(document)).toEqual([
      { ref: { kind: 'space', space: 's1' }, nodeKey: 'cr' },
      { ref: { kind: 'user', user: 'u1' }, nodeKey: 'm' },
      { ref: { kind: 'page', page: 'p1', space: 's2' }, nodeKey: 'l' },
      { ref: { kind: 'file', file: 'light' }, nodeKey: 'img' },
      { ref: { kind: 'url', url: 'https://x/dark.png' }, nodeKey: 'img' },
      { ref: { kind: 'page', page: 'first' }, nodeKey: 'tbl' },
      { ref: { kind: 'page', page: 'second' }, nodeKey: 'tbl' },
    ]);
  });

  it('finds nothing in a document without refs', () => {
    expect(extractReferences(toDocument('Just **text**.\n\n```\ncode\n```'))).toEqual([]);
    expect(extractReferences({ object: 'document', data: {}, nodes: [] })).toEqual([]);
  });
});
