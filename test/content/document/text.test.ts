import { describe, expect, it } from 'vitest';
import { type JSONDocument } from '../../../src/content/document/model.ts';
import {
  createAnchorSlugger,
  documentAnchors,
  documentPlainText,
  documentSections,
  slugify,
} from '../../../src/content/document/text.ts';
import { toDocument } from './helpers.ts';

describe('documentSections', () => {
  it('splits the document at headings, the text before the first heading having no id and title', () => {
    const document = toDocument(
      [
        'Welcome to **the** [docs](/pages/x).',
        'Second intro line.',
        '## Getting started',
        'Install it:',
        '```sh\nnpm install x\nnpx x init\n```',
        '### Options',
        '* `--force`: overwrite\n* `--dry-run`',
        '## Getting started',
        '> Again, *quoted*.',
      ].join('\n\n'),
    );
    expect(documentSections(document)).toEqual([
      { id: '', title: '', body: 'Welcome to the docs.\nSecond intro line.' },
      { id: 'getting-started', title: 'Getting started', body: 'Install it:\nnpm install x\nnpx x init' },
      { id: 'options', title: 'Options', body: '--force: overwrite\n--dry-run' },
      { id: 'getting-started-1', title: 'Getting started', body: 'Again, quoted.' },
    ]);
  });

  it('has no untitled section when the document starts with a heading', () => {
    expect(documentSections(toDocument('## A\n\ntext'))).toEqual([{ id: 'a', title: 'A', body: 'text' }]);
  });

  it('includes the text of hints, tabs, tables, expandables and captions', () => {
    const document = toDocument(
      [
        '## Reference',
        '{% hint style="info" %}\nA hint.\n{% endhint %}',
        '{% tabs %}\n{% tab title="One" %}\nTab text.\n{% endtab %}\n{% endtabs %}',
        '| Name | Value |\n| --- | --- |\n| a | **b** |',
        '<details>\n\n<summary>More</summary>\n\nHidden.\n\n</details>',
        '![alt text](/files/f "Figure 1")',
        '{% embed url="https://x.y" %}',
      ].join('\n\n'),
    );
    expect(documentSections(document)).toEqual([{ id: 'reference', title: 'Reference', body: 'A hint.\nTab text.\nName\nValue\na\nb\nMore\nHidden.\nFigure 1' }]);
  });

  it('splits at headings nested in containers too, and prefers an explicit heading id', () => {
    const document: JSONDocument = {
      object: 'document',
      data: {},
      nodes: [
        { object: 'block', type: 'heading-1', data: { id: 'custom-id' }, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Shown title', marks: [] }] }] },
        ...toDocument('Body.\n\n{% hint style="info" %}\n### In a hint\n\ninside\n{% endhint %}').nodes,
      ],
    };
    expect(documentSections(document)).toEqual([
      { id: 'custom-id', title: 'Shown title', body: 'Body.' },
      { id: 'in-a-hint', title: 'In a hint', body: 'inside' },
    ]);
    expect(documentAnchors(document)).toEqual(['custom-id', 'in-a-hint']);
  });

  it('gives an empty document no sections', () => {
    expect(documentSections({ object: 'document', data: {}, nodes: [] })).toEqual([]);
  });
});

describe('anchors', () => {
  it('slugs heading text', () => {
    expect(slugify('Getting Started!')).toBe('getting-started');
    expect(slugify('  API -- v2.0 (beta)  ')).toBe('api-v20-beta');
    expect(slugify('Café & Crème')).toBe('cafe-creme');
    expect(slugify('snake_case name')).toBe('snake_case-name');
    expect(slugify('日本語 見出し')).toBe('日本語-見出し');
    expect(slugify('!!!')).toBe('section');
  });

  it('keeps anchors unique within a page', () => {
    const anchor = createAnchorSlugger();
    expect(['Intro', 'Intro', 'Intro 1', 'Intro', '!!!', '???'].map(anchor)).toEqual(['intro', 'intro-1', 'intro-1-1', 'intro-2', 'section', 'section-1']);
  });
});

describe('documentPlainText', () => {
  it('gives all text with headings, one line per text block, markup removed', () => {
    const document = toDocument('Intro *text*.\n\n## Title\n\n1. one\n2. [two](/pages/two)\n\n```\ncode line\n```');
    expect(documentPlainText(document)).toBe('Intro text.\nTitle\none\ntwo\ncode line');
  });
});
