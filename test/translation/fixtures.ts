/**
 * Documents and fake translators shared by the translation tests.
 */
import { markdownToDocument } from '../../src/content/document/markdown-parse.ts';
import { type JSONDocument, type JSONNode } from '../../src/content/document/model.ts';
import { tokenize } from '../../src/translation/segments.ts';
import type { Translator } from '../../src/translation/translator.ts';

export const RICH_MARKDOWN = `# Ignored title

Intro with **bold and *nested italic* text**, a [link to a page](/pages/page-2) and [a website](https://example.com/docs).

Run \`npm install\` then **see [the **guide**](https://example.com/guide) now**.

## Getting started

* First item with ~~old~~ text
* Second item

{% hint style="warning" %}
A hint with a [link to the heading](#getting-started).
{% endhint %}

\`\`\`js
const greeting = 'hello'; // never translated
\`\`\`

| Name | Description |
| ---- | ----------- |
| **Key** | Some text |

<figure><img src="https://example.com/diagram.png" alt="A diagram"><figcaption><p>The caption</p></figcaption></figure>

Literal <m1> in prose, AT&amp;amp;T and a < b.
`;

type Marks = NonNullable<JSONNode['leaves']>[number]['marks'];

const t = (text: string, key?: string, marks: Marks = []): JSONNode =>
  key ? { object: 'text', key, leaves: [{ object: 'leaf', text, marks }] } : { object: 'text', leaves: [{ object: 'leaf', text, marks }] };

/** Blocks as GitBook's editor writes them: keys everywhere, text nodes around every inline, void inlines. */
export const EDITOR_BLOCKS: JSONNode[] = [
  {
    object: 'block',
    type: 'paragraph',
    key: 'p1',
    data: {},
    nodes: [
      t('Hello ', 't1'),
      { object: 'inline', type: 'emoji', key: 'e1', isVoid: true, data: { code: '1f44b' } },
      t(' ', 't2', [{ object: 'mark', type: 'color', data: { text: 'red', background: 'default' } }]),
      { object: 'inline', type: 'mention', key: 'm1', isVoid: true, data: { ref: { kind: 'page', page: 'page-2' } } },
      t(', the value is ', 't3'),
      { object: 'inline', type: 'expression', key: 'x1', isVoid: true, data: { expression: 'space.vars.version' } },
      t(' and ', 't4'),
      { object: 'inline', type: 'inline-math', key: 'im1', isVoid: true, data: { formula: 'e = mc^2' } },
      {
        object: 'text',
        key: 't5',
        leaves: [{ object: 'leaf', text: '. Press ', marks: [] }, { object: 'leaf', text: 'Ctrl+C', marks: [{ object: 'mark', type: 'keyboard' }] }, { object: 'leaf', text: ' to copy ', marks: [] }],
      },
      {
        object: 'inline',
        type: 'link',
        key: 'l1',
        isVoid: false,
        data: { ref: { kind: 'url', url: 'https://example.com/copy' } },
        nodes: [t('this', 'tl', [{ object: 'mark', type: 'italic' }])],
      },
      t('.', 't6'),
    ],
  },
  {
    object: 'block',
    type: 'tabs',
    key: 'tabs',
    data: {},
    nodes: [
      {
        object: 'block',
        type: 'tabs-item',
        key: 'tab1',
        data: { title: 'First tab' },
        nodes: [{ object: 'block', type: 'paragraph', key: 'p2', data: {}, nodes: [t('Inside the tab.', 't7')] }],
      },
    ],
  },
  {
    object: 'block',
    type: 'expandable',
    key: 'exp',
    isVoid: true,
    data: {},
    fragments: [
      { object: 'fragment', type: 'expandable-title', fragment: 'expandable-title', key: 'f1', nodes: [{ object: 'block', type: 'paragraph', key: 'p3', data: {}, nodes: [t('More details', 't8')] }] },
      { object: 'fragment', type: 'expandable-body', fragment: 'expandable-body', key: 'f2', nodes: [{ object: 'block', type: 'paragraph', key: 'p4', data: {}, nodes: [t('Hidden text.', 't9')] }] },
    ],
  },
  { object: 'block', type: 'math', key: 'math', isVoid: true, data: { formula: 'a^2 + b^2' } },
  { object: 'block', type: 'embed', key: 'embed', isVoid: true, data: { url: 'https://www.youtube.com/watch?v=abc' } },
];

/** The rich document: Markdown-converted blocks, then editor-style ones. */
export function richDocument(): JSONDocument {
  const { document } = markdownToDocument(RICH_MARKDOWN);
  return { ...document, nodes: [...document.nodes, ...structuredClone(EDITOR_BLOCKS)] };
}

/** Upper-cases the text of a segment, leaving tags and escapes as they are. */
export function upperCaseSegment(text: string): string {
  return tokenize(text)
    .map((token) => (token.kind === 'tag' ? token.raw : token.text.toUpperCase().replaceAll('&', '&amp;').replaceAll('<', '&lt;')))
    .join('');
}

/** A translator that upper-cases, counting its calls and what it was sent. */
export function fakeTranslator(options: { batchSize?: number; transform?: (text: string) => string } = {}) {
  const calls: string[][] = [];
  const translator: Translator & { calls: string[][] } = {
    name: 'fake',
    batchSize: options.batchSize,
    calls,
    async translate(texts, { signal }) {
      signal?.throwIfAborted();
      calls.push([...texts]);
      return texts.map(options.transform ?? upperCaseSegment);
    },
  };
  return translator;
}

/** All text of a node, as a reader sees it. */
export function allText(node: JSONNode | JSONDocument): string {
  if (node.object === 'text') return ((node as JSONNode).leaves ?? []).map((l) => l.text).join('');
  return [...((node.nodes as JSONNode[] | undefined) ?? []), ...(((node as JSONNode).fragments as JSONNode[] | undefined) ?? [])].map(allText).join('|');
}
