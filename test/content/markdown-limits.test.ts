/**
 * The Markdown limits (src/content/document/markdown-limits.ts): each holds
 * at its value and refuses one past it with a 400 naming its setting, the
 * mapper counts GitBook blocks and <details> in the nesting, the deepest
 * accepted input converts without overflowing the stack, real documents are
 * not refused, and inputs shaped to slip past the scan are counted anyway.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MARKDOWN_LIMITS, markdownLimitProblem } from '../../src/content/document/markdown-limits.ts';
import { markdownToDocument } from '../../src/content/document/markdown-parse.ts';
import { LimitExceededError } from '../../src/errors/index.ts';

const limits = DEFAULT_MARKDOWN_LIMITS;

/** The setting `markdown` is refused by (scan or conversion), or null when it converts. */
function refusedBy(markdown: string): string | null {
  try {
    markdownToDocument(markdown);
    return null;
  } catch (error) {
    if (error instanceof LimitExceededError) {
      expect(error.status).toBe(400);
      expect(error.message).toContain(`(${error.setting})`);
      return error.setting;
    }
    throw error;
  }
}

function depthOf(node: { nodes?: unknown[]; fragments?: unknown[] }): number {
  const children = [...(node.nodes ?? []), ...(node.fragments ?? [])] as { nodes?: unknown[] }[];
  return 1 + Math.max(0, ...children.map(depthOf));
}

describe('Markdown limits', () => {
  it('refuses Markdown longer than MARKDOWN_MAX_CHARACTERS', () => {
    const small = { ...limits, maxCharacters: 100 };
    expect(markdownLimitProblem('a'.repeat(100), small)).toBeNull();
    const problem = markdownLimitProblem('a'.repeat(101), small);
    expect(problem?.setting).toBe('MARKDOWN_MAX_CHARACTERS');
    expect(problem?.message).toBe('at most 100 characters of Markdown (MARKDOWN_MAX_CHARACTERS); this has 101');
  });

  it('lets block quotes, list items and footnote definitions nest MARKDOWN_MAX_NESTING deep, not deeper', () => {
    const n = limits.maxNesting;
    for (const marker of ['> ', '- ', '1. ', '[^a]: ']) {
      expect(refusedBy(`${marker.repeat(n)}a`), marker).toBeNull();
      expect(refusedBy(`${marker.repeat(n + 1)}a`), marker).toBe('MARKDOWN_MAX_NESTING');
    }
    const indented = (levels: number) => Array.from({ length: levels }, (_, i) => `${'  '.repeat(i)}- item ${i}\n`).join('');
    expect(refusedBy(indented(n))).toBeNull();
    expect(refusedBy(indented(n + 1))).toBe('MARKDOWN_MAX_NESTING');
    // The 8 KB of `>` found by trying the service: a 400, not a stack overflow.
    expect(refusedBy('>'.repeat(4_000))).toBe('MARKDOWN_MAX_NESTING');
    expect(refusedBy('- '.repeat(4_000))).toBe('MARKDOWN_MAX_NESTING');
  });

  it('counts GitBook blocks and <details> in the nesting as it converts them', () => {
    const n = limits.maxNesting;
    const hints = (levels: number) => `${'{% hint style="info" %}\n\n'.repeat(levels)}x\n\n${'{% endhint %}\n\n'.repeat(levels)}`;
    expect(refusedBy(hints(n))).toBeNull();
    expect(refusedBy(hints(n + 1))).toBe('MARKDOWN_MAX_NESTING');
    // Hints in block quotes: both count.
    expect(refusedBy(`${'> '.repeat(n - 2)}{% hint %}\n${'> '.repeat(n - 2)}\n${'> '.repeat(n - 2)}x`)).toBeNull();
    const quotedHints = `${'> '.repeat(n)}{% hint %}\n${'> '.repeat(n)}\n${'> '.repeat(n)}x\n${'> '.repeat(n)}\n${'> '.repeat(n)}{% endhint %}`;
    expect(refusedBy(quotedHints)).toBe('MARKDOWN_MAX_NESTING');
    const details = (levels: number) => `${'<details><summary>s</summary>'.repeat(levels)}x${'</details>'.repeat(levels)}`;
    expect(refusedBy(details(n))).toBeNull();
    expect(refusedBy(details(n + 1))).toBe('MARKDOWN_MAX_NESTING');
    const tabs = (levels: number) => `${'{% tabs %}\n\n{% tab title="t" %}\n\n'.repeat(levels)}x\n\n${'{% endtab %}\n\n{% endtabs %}\n\n'.repeat(levels)}`;
    expect(refusedBy(tabs(n))).toBe('MARKDOWN_MAX_NESTING');
  });

  it('converts the deepest input it accepts without overflowing the stack', () => {
    const levels = Math.floor((limits.maxInlineDelimiters - 4) / 4);
    const emphasis = `${'*a **a '.repeat(levels)}b${' a** a*'.repeat(levels)}`;
    const deepest = `${'> '.repeat(limits.maxNesting)}${emphasis}`;
    expect(markdownLimitProblem(deepest)).toBeNull();
    const { document } = markdownToDocument(deepest);
    expect(depthOf(document)).toBeGreaterThan(limits.maxNesting);
  });

  it('allows MARKDOWN_MAX_INLINE_DELIMITERS delimiters in a paragraph, each paragraph on its own', () => {
    const at = '*a'.repeat(limits.maxInlineDelimiters);
    expect(refusedBy(at)).toBeNull();
    expect(refusedBy(`${at}*`)).toBe('MARKDOWN_MAX_INLINE_DELIMITERS');
    expect(refusedBy(`${at}\n\n${at}\n\n${at}`)).toBeNull();
    // A blank line inside a block quote ends its paragraph too.
    expect(refusedBy(`> ${at}\n>\n> ${at}`)).toBeNull();
    expect(refusedBy(`> ${at}\n> ${at}`)).toBe('MARKDOWN_MAX_INLINE_DELIMITERS');
    // The 64 KB of `*a` found by trying the service.
    const problem = markdownLimitProblem('*a'.repeat(32_000));
    expect(problem?.message).toBe(
      'at most 500 inline delimiters (runs of *, _, ~ and backticks; [, ] and <) in one paragraph (MARKDOWN_MAX_INLINE_DELIMITERS); the paragraph at line 1 has more',
    );
  });

  it('allows MARKDOWN_MAX_UNCLOSED_INLINE constructs left open in a paragraph', () => {
    const n = limits.maxUnclosedInline;
    const runs = (count: number) => Array.from({ length: count }, (_, i) => `x${'`'.repeat(i + 1)}`).join(' ');
    expect(refusedBy(runs(n))).toBeNull();
    expect(refusedBy(runs(n + 1))).toBe('MARKDOWN_MAX_UNCLOSED_INLINE');
    expect(refusedBy(`a ${'<?'.repeat(n + 1)}`)).toBe('MARKDOWN_MAX_UNCLOSED_INLINE');
    expect(refusedBy(`a ${'<!-- c '.repeat(n + 1)}`)).toBe('MARKDOWN_MAX_UNCLOSED_INLINE');
    // Closed ones are no trouble, however many.
    expect(refusedBy('`a` and ``b`` '.repeat(100))).toBeNull();
    expect(refusedBy(`a ${'<!-- c --> <?p?> '.repeat(100)}`)).toBeNull();
  });

  it('allows MARKDOWN_MAX_LAZY_LINES lazy continuation lines in a paragraph', () => {
    const n = limits.maxLazyLines;
    expect(refusedBy(`> a\n${'b\n'.repeat(n)}`)).toBeNull();
    expect(refusedBy(`> a\n${'b\n'.repeat(n + 1)}`)).toBe('MARKDOWN_MAX_LAZY_LINES');
    expect(refusedBy(`- a\n${'b\n'.repeat(n + 1)}`)).toBe('MARKDOWN_MAX_LAZY_LINES');
    // Lines that keep their markers are not lazy.
    expect(refusedBy(`> a\n${'> b\n'.repeat(5 * n)}`)).toBeNull();
    expect(refusedBy(`- a\n${'  b\n'.repeat(5 * n)}`)).toBeNull();
  });

  it('allows MARKDOWN_MAX_TABLE_CELLS table cells in a document, a table counting its rows times its widest row', () => {
    const n = limits.maxTableCells;
    const table = (rows: number, width = 2) => `${'| a '.repeat(width)}|\n${'| - '.repeat(width)}|\n${'| b '.repeat(width).concat('|\n').repeat(rows)}`;
    // The header row counts too.
    expect(refusedBy(table(n / 2 - 1))).toBeNull();
    expect(refusedBy(table(n / 2))).toBe('MARKDOWN_MAX_TABLE_CELLS');
    // A table right after a paragraph line interrupts the paragraph: counted the same.
    expect(refusedBy(`Some text:\n${table(n / 2)}`)).toBe('MARKDOWN_MAX_TABLE_CELLS');
    // Two tables of a document add up.
    expect(refusedBy(`${table(n / 4 - 1)}\n${table(n / 4 - 1)}`)).toBeNull();
    expect(refusedBy(`${table(n / 4)}\n${table(n / 4)}`)).toBe('MARKDOWN_MAX_TABLE_CELLS');
    // One wide row widens every row: thousands of narrow rows and one of 1,000 cells.
    const widened = `| a |\n| - |\n${'b\n'.repeat(n / 10)}${'| c '.repeat(1_000)}|\n`;
    expect(markdownLimitProblem(widened)?.message).toBe(
      `at most ${n} table cells in one document, a table counting its rows times its widest row (MARKDOWN_MAX_TABLE_CELLS); the table at line 1 makes more`,
    );
  });

  it('allows MARKDOWN_MAX_BLOCKS blocks in a document, whatever their kind, and names the line that starts one more', () => {
    const n = limits.maxBlocks;
    const kinds: Record<string, [string, number]> = {
      paragraphs: ['a\n\n', 1],
      headings: ['# a\n', 1],
      'block quotes': ['> a\n\n', 2],
      'list items': ['- a\n', 2],
      'nested list items': ['- a\n  - b\n', 4],
      'fenced code': ['```\nx\n```\n', 1],
      'HTML blocks': ['<div>\n\n', 1],
      'GitBook tags': ['{% hint style="info" %}\n', 1],
    };
    for (const [kind, [block, count]] of Object.entries(kinds)) {
      const times = Math.floor(n / count);
      expect(markdownLimitProblem(block.repeat(times)), kind).toBeNull();
      expect(markdownLimitProblem(block.repeat(times + 1))?.setting, kind).toBe('MARKDOWN_MAX_BLOCKS');
    }
    expect(markdownLimitProblem('a\n\n'.repeat(n + 1))?.message).toBe(
      `at most ${n} blocks (paragraphs, headings, block quotes, list items, code and HTML blocks, GitBook tags) in one document (MARKDOWN_MAX_BLOCKS); line ${2 * n + 1} starts one more`,
    );
    // The lines of one paragraph, and those of a code block, are one block.
    expect(markdownLimitProblem('a\n'.repeat(3 * n))).toBeNull();
    expect(markdownLimitProblem(`\`\`\`\n${'x\n'.repeat(3 * n)}\`\`\`\n`)).toBeNull();
  });

  it('does not count what is not inline content: code, HTML blocks, definitions, table rows', () => {
    const brackets = '[x] <y> *z* '.repeat(400);
    expect(refusedBy(`\`\`\`\n${brackets}\n\`\`\`\n`)).toBeNull();
    expect(refusedBy(`> - ~~~\n>   ${brackets}\n>   ~~~\n`)).toBeNull();
    expect(refusedBy(`para\n\n    ${brackets}\n    ${brackets}\n`)).toBeNull();
    expect(refusedBy(`<table>\n${'<tr><td>[a]</td><td>*b*</td></tr>\n'.repeat(300)}</table>\n`)).toBeNull();
    expect(refusedBy(`<!--\n${brackets}\n-->\n`)).toBeNull();
    expect(refusedBy(Array.from({ length: 400 }, (_, i) => `[ref-${i}]: https://example.com/${i} "Title ${i}"\n`).join(''))).toBeNull();
    const table = `| name | link | note |\n| --- | --- | --- |\n${Array.from({ length: 1_500 }, (_, i) => `| *row* ${i} | [link](./page-${i}.md) | \`code\` |\n`).join('')}`;
    expect(refusedBy(table)).toBeNull();
    // A list of many linked code names, as Rust's release notes have one.
    expect(refusedBy(`* Stabilized APIs:\n${'  [`Vec::new`], [`HashMap::get`],\n'.repeat(60)}`)).toBeNull();
  });

  it('counts lines shaped to look like what is not inline content', () => {
    const many = '*a'.repeat(200);
    // Header and delimiter rows with different cell counts: no table, one paragraph.
    expect(refusedBy(`a|b\n-|-|-\n${`${many}\n`.repeat(3)}`)).toBe('MARKDOWN_MAX_INLINE_DELIMITERS');
    // An indented line right after a paragraph line continues it (indented code cannot interrupt a paragraph).
    expect(refusedBy(`${many}\n    ${many}\n    ${many}`)).toBe('MARKDOWN_MAX_INLINE_DELIMITERS');
    // A definition whose title does not close is paragraph text.
    expect(refusedBy(`[a]: /u "t ${many}\n${many}\n${many}`)).toBe('MARKDOWN_MAX_INLINE_DELIMITERS');
    // A fence in a block quote ends with the block quote: the lines after it are a paragraph.
    expect(refusedBy(`> \`\`\`\n> x\n${many}\n${many}\n${many}`)).toBe('MARKDOWN_MAX_INLINE_DELIMITERS');
    // A backtick fence whose info string holds a backtick is no fence.
    expect(refusedBy(`\`\`\` a\`b\n${many}\n${many}\n${many}`)).toBe('MARKDOWN_MAX_INLINE_DELIMITERS');
  });

  it('passes the Markdown of this repository', async () => {
    const fs = await import('node:fs');
    for (const file of ['README.md', 'docs/decisions.md', 'docs/architecture.md']) {
      expect(markdownLimitProblem(fs.readFileSync(file, 'utf8')), file).toBeNull();
    }
  });
});
