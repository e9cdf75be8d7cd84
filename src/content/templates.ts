/**
 * Built-in space templates: real starting content, written as Markdown and
 * applied with the same content operations a change request uses. Applying a
 * template adds its pages after the existing ones: nothing is replaced.
 * Refs (`template-*`) link the template's pages to each other; they are never stored.
 */
import type { ContentChange } from './apply-changes.ts';

export interface SpaceTemplate {
  id: string;
  title: string;
  changes: ContentChange[];
}

const page = (ref: string, markdown: string, into?: string): ContentChange => ({
  operation: 'insert_page',
  ref,
  document: { markdown },
  ...(into ? { into } : {}),
});

export const SPACE_TEMPLATES: SpaceTemplate[] = [
  {
    id: 'blank',
    title: 'Blank',
    changes: [page('template-untitled', '# Untitled\n')],
  },
  {
    id: 'getting-started',
    title: 'Getting started',
    changes: [
      page(
        'template-welcome',
        `---
description: What this documentation covers and where to start.
---

# Welcome

This space holds your product documentation. Start with the [quick start](./template-quick-start.md), then read the guides.

{% hint style="info" %}
Every change goes through a change request: edit, ask for a review, merge.
{% endhint %}
`,
      ),
      page(
        'template-quick-start',
        `# Quick start

Get from nothing to a working setup in three steps.

1. Create an API token.
2. Install the client:

\`\`\`bash
npm install @gitbook/api
\`\`\`

3. Make your first call and check the answer.

Next: [writing content](./template-writing-content.md).
`,
      ),
      page('template-guides', '# Guides\n\nTask-oriented guides, one per page.\n'),
      page(
        'template-writing-content',
        `# Writing content

Pages are written in Markdown: **bold**, _italic_, \`code\`, [links](https://example.com), lists and tables.

| Element | Markdown |
| --- | --- |
| Heading | \`# Title\` |
| Link | \`[text](url)\` |
`,
        'template-guides',
      ),
      page(
        'template-publishing',
        `# Publishing

Add the space to a docs site, then publish the site. Readers see the merged content.
`,
        'template-guides',
      ),
    ],
  },
];

export function findTemplate(id: string): SpaceTemplate | undefined {
  return SPACE_TEMPLATES.find((t) => t.id === id);
}
