/**
 * The limits a Markdown conversion checks before it parses (docs/decisions.md,
 * "Bounded work"). micromark, the parser behind remark, is quadratic in the
 * inline delimiters of one paragraph (its emphasis and label resolvers walk
 * back over every earlier event, and every match splices the event list) and
 * in the container depth of a line; this scan is linear and refuses what
 * would make parsing and the mapping slow or recursive beyond bound:
 *
 * - the length of the Markdown;
 * - how deep block quotes and list items nest (the mapper adds GitBook blocks
 *   and `<details>`, checked as it converts them);
 * - the inline delimiters of one paragraph (runs of `*`, `_`, `~` and
 *   backticks; each `[`, `]` and `<`), which bounds a paragraph's parsing
 *   cost by the cap squared, and a document's by its length times the cap;
 * - the inline constructs one paragraph leaves open (code spans, HTML
 *   comments and the like, see InlineSegment), each of which makes micromark
 *   read the rest of the paragraph again;
 * - the lazy continuation lines of one paragraph (lines of a paragraph in a
 *   block quote or list item without its `>` or indentation): micromark
 *   handles each by walking back over the paragraph's earlier lines;
 * - the cells of the document's tables, a table counting its rows times its
 *   widest row (the document gives every row that many cells): parsing and
 *   converting cost tens of microseconds and several kilobytes per cell;
 * - the blocks of the document (paragraphs and headings, block quotes and list
 *   items, fenced code and HTML blocks, lines starting a GitBook tag): linear,
 *   but each costs micromark, the tree and the mapper some 50 to 150
 *   microseconds, so 100 KB of one-line blocks (`> a` and a blank line, 20,000
 *   times) took three seconds.
 *
 * The scan follows CommonMark's block structure far enough to know where a
 * paragraph ends: container markers, blank lines, fenced and indented code,
 * HTML blocks, link reference definitions and GFM table rows (each row is
 * parsed on its own). Where it cannot be sure, it counts more, never less:
 * an input it passes parses within the bound.
 */
import { MARKDOWN_LIMIT_DEFAULTS } from '../../config.ts';
import { LimitExceededError } from '../../errors/index.ts';

/** The limits; the settings in parentheses configure them (src/config.ts). */
export interface MarkdownLimits {
  /** Longest Markdown converted, in characters (MARKDOWN_MAX_CHARACTERS). */
  maxCharacters: number;
  /** Deepest nesting of block quotes, list items, footnote definitions, GitBook blocks and `<details>` (MARKDOWN_MAX_NESTING). */
  maxNesting: number;
  /** Most inline delimiters in one paragraph, heading or table row (MARKDOWN_MAX_INLINE_DELIMITERS). */
  maxInlineDelimiters: number;
  /** Most inline constructs one paragraph leaves open (MARKDOWN_MAX_UNCLOSED_INLINE). */
  maxUnclosedInline: number;
  /** Most lazy continuation lines in one paragraph (MARKDOWN_MAX_LAZY_LINES). */
  maxLazyLines: number;
  /** Most table cells in one document, each table counted as its rows times its widest row (MARKDOWN_MAX_TABLE_CELLS). */
  maxTableCells: number;
  /** Most blocks in one document (MARKDOWN_MAX_BLOCKS). */
  maxBlocks: number;
}

/** The limits of a conversion outside a request (the settings' defaults). */
export const DEFAULT_MARKDOWN_LIMITS: Readonly<MarkdownLimits> = MARKDOWN_LIMIT_DEFAULTS;

/** What the nesting limit counts, for its message. */
const NESTING_WHAT = 'block quotes, list items, footnote definitions, GitBook blocks and <details> nest';

/** The error a document with more table cells than the limit is refused with (`where`: the table). */
export function tableCellsError(limits: MarkdownLimits, where: string): LimitExceededError {
  return new LimitExceededError(
    `at most ${limits.maxTableCells} table cells in one document, a table counting its rows times its widest row (MARKDOWN_MAX_TABLE_CELLS); ${where} makes more`,
    'MARKDOWN_MAX_TABLE_CELLS',
  );
}

/** The error a document with more blocks than the limit is refused with. */
function blocksError(limits: MarkdownLimits, lineNumber: number): LimitExceededError {
  return new LimitExceededError(
    `at most ${limits.maxBlocks} blocks (paragraphs, headings, block quotes, list items, code and HTML blocks, GitBook tags) in one document (MARKDOWN_MAX_BLOCKS); line ${lineNumber} starts one more`,
    'MARKDOWN_MAX_BLOCKS',
  );
}

/** The error a conversion refuses Markdown with: a 400 naming the setting and the limit. */
export function nestingError(limits: MarkdownLimits, where: string): LimitExceededError {
  return new LimitExceededError(`${NESTING_WHAT} at most ${limits.maxNesting} deep (MARKDOWN_MAX_NESTING); ${where} nests deeper`, 'MARKDOWN_MAX_NESTING');
}

/** Throws a LimitExceededError when `markdown` is over a limit. */
export function checkMarkdownLimits(markdown: string, limits: MarkdownLimits = DEFAULT_MARKDOWN_LIMITS): void {
  const problem = markdownLimitProblem(markdown, limits);
  if (problem) throw problem;
}

/** The limit `markdown` is over, as the error to throw, or null. Linear in the length of `markdown`. */
export function markdownLimitProblem(markdown: string, limits: MarkdownLimits = DEFAULT_MARKDOWN_LIMITS): LimitExceededError | null {
  if (markdown.length > limits.maxCharacters) {
    return new LimitExceededError(
      `at most ${limits.maxCharacters} characters of Markdown (MARKDOWN_MAX_CHARACTERS); this has ${markdown.length}`,
      'MARKDOWN_MAX_CHARACTERS',
    );
  }
  return new BlockScanner(limits).scan(markdown);
}

/* -------------------------------------------------------------------------- */

/** An open container: a block quote, or a list item whose content starts `indent` columns into its parent's. */
interface Container {
  quote: boolean;
  indent: number;
}

/** A leaf block whose lines are not inline content: fenced code or HTML. */
type OpaqueLeaf =
  | { kind: 'fence'; marker: string; length: number; depth: number }
  | { kind: 'html'; end: string | null; depth: number };

// CommonMark's HTML block conditions 1 to 6 (micromark-util-html-tag-name's lists).
const HTML_RAW_NAMES = new Set(['pre', 'script', 'style', 'textarea']);
const HTML_BLOCK_NAMES = new Set(
  (
    'address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt fieldset figcaption ' +
    'figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav noframes ol ' +
    'optgroup option p param search section summary table tbody td tfoot th thead title tr track ul'
  ).split(' '),
);

/** The start of a GFM footnote definition: `[^label]:`. */
const FOOTNOTE_LABEL = /^\[\^[^\]\s]{1,999}\]:/;

/** An ATX heading's opening: one to six `#` and a space, a tab or the end of the line. */
const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/;

/** Line terminators as CommonMark has them: `\n`, `\r\n` and a lone `\r`. */
const LINE_BREAK = /\r\n|\r|\n/;

class BlockScanner {
  private readonly limits: MarkdownLimits;
  private stack: Container[] = [];
  private leaf: OpaqueLeaf | null = null;
  /** A paragraph (or definitions, which indented lines continue too) is open. */
  private inContent = false;
  /** The open paragraph is only definitions so far. */
  private onlyDefinitions = false;
  /** Rows of a GFM table follow; each is inline content of its own. */
  private inTable = false;
  /** The table being read: where it starts, its rows (the header included) and its widest row. */
  private table = { line: 0, rows: 0, width: 0 };
  /** Cells of the tables read before it. */
  private tableCells = 0;
  /** Blocks started so far. */
  private blocks = 0;
  /** The inline content being read (a paragraph, a heading, a table row). */
  private segment: InlineSegment;
  /** A limit the last segment closed was over. */
  private problem: LimitExceededError | null = null;
  /** The last line read when it was a paragraph's: a table header candidate. */
  private header: { text: string; depth: number } | null = null;

  constructor(limits: MarkdownLimits) {
    this.limits = limits;
    this.segment = new InlineSegment(limits, 1);
  }

  scan(markdown: string): LimitExceededError | null {
    const lines = markdown.split(LINE_BREAK);
    for (let n = 0; n < lines.length; n++) {
      const problem = this.line(lines[n]!, n + 1) ?? this.problem;
      if (problem) return problem;
    }
    this.newSegment(lines.length);
    return this.problem;
  }

  /** Closes the inline content being read (checking what only its end tells) and starts another at `lineNumber`. */
  private newSegment(lineNumber: number) {
    this.problem ??= this.segment.close();
    this.segment = new InlineSegment(this.limits, lineNumber);
  }

  private endParagraph() {
    if (this.inContent) this.newSegment(0);
    if (this.inTable) this.tableCells += this.table.rows * this.table.width;
    this.inContent = false;
    this.onlyDefinitions = false;
    this.inTable = false;
    this.header = null;
  }

  private line(line: string, lineNumber: number): LimitExceededError | null {
    const cursor = { pos: 0, col: 0 };
    // Containers the line continues.
    let matched = 0;
    for (; matched < this.stack.length; matched++) {
      const container = this.stack[matched]!;
      const { cols, end } = indentAt(line, cursor.pos, cursor.col);
      if (container.quote) {
        if (cols > 3 || line[end] !== '>') break;
        advanceQuote(line, cursor, cols, end);
      } else if (end >= line.length) {
        // A blank line stays in a list item.
        continue;
      } else if (cols >= container.indent) {
        advanceColumns(line, cursor, container.indent);
      } else break;
    }

    const leaf = this.leaf;
    if (leaf) {
      if (matched >= leaf.depth) {
        const rest = line.slice(cursor.pos);
        if (leaf.kind === 'fence') {
          const { cols, end } = indentAt(line, cursor.pos, cursor.col);
          if (cols <= 3 && isClosingFence(line, end, leaf.marker, leaf.length)) this.leaf = null;
        } else if (leaf.end === null ? rest.trim() === '' : rest.toLowerCase().includes(leaf.end)) {
          this.leaf = null;
        }
        this.stack.length = leaf.depth;
        return null;
      }
      // Its container ended, so did the leaf.
      this.leaf = null;
    }

    // Containers the line opens.
    const opened: Container[] = [];
    for (;;) {
      const { cols, end } = indentAt(line, cursor.pos, cursor.col);
      if (cols >= 4 || end >= line.length) break;
      if (matched + opened.length >= this.limits.maxNesting) {
        // One more container would be too deep: no need to read the others.
        if (line[end] === '>' || listMarkerWidth(line, end) > 0 || line.startsWith('[^', end)) return nestingError(this.limits, `line ${lineNumber}`);
        break;
      }
      if (line[end] === '>') {
        advanceQuote(line, cursor, cols, end);
        opened.push({ quote: true, indent: 0 });
        continue;
      }
      const footnote = line[end] === '[' && line[end + 1] === '^' ? FOOTNOTE_LABEL.exec(line.slice(end, end + 1002)) : null;
      if (footnote) {
        // A GFM footnote definition holds blocks indented by 4, as a list item does.
        opened.push({ quote: false, indent: 4 });
        cursor.pos = end + footnote[0].length;
        cursor.col += cols + footnote[0].length;
        continue;
      }
      const width = listMarkerWidth(line, end);
      if (width === 0) break;
      const after = indentAt(line, end + width, cursor.col + cols + width);
      const blankAfter = after.end >= line.length;
      const spaces = blankAfter || after.cols >= 5 ? 1 : after.cols;
      opened.push({ quote: false, indent: cols + width + spaces });
      if (blankAfter) {
        cursor.pos = line.length;
      } else if (after.cols >= 5) {
        cursor.pos = end + width;
        cursor.col += cols + width;
        advanceColumns(line, cursor, 1);
      } else {
        cursor.pos = after.end;
        cursor.col += cols + width + after.cols;
      }
    }

    const { cols, end } = indentAt(line, cursor.pos, cursor.col);
    const blank = end >= line.length;
    // A line that continues none of the open containers may still continue their paragraph (lazily).
    const lazy =
      matched < this.stack.length && opened.length === 0 && this.inContent && !this.inTable && !blank && !(cols <= 3 && startsBlock(line, end));
    if (!lazy) {
      // A container that ends or starts ends the open paragraph or table.
      if (matched < this.stack.length || opened.length > 0) this.endParagraph();
      this.stack.length = matched;
      this.stack.push(...opened);
    }
    if (this.stack.length > this.limits.maxNesting) return nestingError(this.limits, `line ${lineNumber}`);
    if (opened.length && this.countBlocks(opened.length)) return blocksError(this.limits, lineNumber);

    if (blank) {
      this.endParagraph();
      return null;
    }
    // Indented code (it cannot interrupt a paragraph): not inline content.
    if (cols >= 4 && !this.inContent) return null;
    if (cols <= 3) {
      const fence = fenceAt(line, end);
      if (fence) {
        if (this.countBlocks(1)) return blocksError(this.limits, lineNumber);
        this.endParagraph();
        this.leaf = { kind: 'fence', ...fence, depth: this.stack.length };
        return null;
      }
      const html = htmlBlockAt(line, end);
      if (html) {
        if (this.countBlocks(1)) return blocksError(this.limits, lineNumber);
        this.endParagraph();
        const ended = html.end !== null && line.slice(end).toLowerCase().includes(html.end, html.skip);
        if (!ended) this.leaf = { kind: 'html', end: html.end, depth: this.stack.length };
        return null;
      }
    }

    const text = line.slice(end);
    if (this.inTable) {
      if (!(cols <= 3 && startsBlock(text, 0))) {
        // A row is inline content of its own.
        this.newSegment(lineNumber);
        return this.tableRow(text) ?? this.segment.read(text);
      }
      this.endParagraph();
    } else if (this.header && !lazy && opened.length === 0 && this.header.depth === this.stack.length && isDelimiterRow(text, this.header.text)) {
      this.inTable = true;
      this.table = { line: lineNumber - 1, rows: 0, width: 0 };
      const header = this.header.text;
      this.header = null;
      return this.tableRow(header);
    }

    if (!this.inContent || this.onlyDefinitions) {
      if (cols <= 3 && isDefinitionLine(text)) {
        this.inContent = true;
        this.onlyDefinitions = true;
        this.header = null;
        return null;
      }
      this.newSegment(lineNumber);
      if (this.countBlocks(1)) return blocksError(this.limits, lineNumber);
    } else if ((text.startsWith('{%') || (cols <= 3 && ATX_HEADING.test(text))) && this.countBlocks(1)) {
      // A heading interrupts the paragraph, and each line of GitBook tags becomes blocks of its own in the mapper.
      return blocksError(this.limits, lineNumber);
    }
    // Any line of a paragraph may be the header of a table (which then interrupts the paragraph), unless lazy.
    this.header = lazy ? null : { text, depth: this.stack.length };
    this.inContent = true;
    this.onlyDefinitions = false;
    return (lazy ? this.segment.lazyLine() : null) ?? this.segment.read(text);
  }

  /** Counts `n` more blocks; true when that is more than the limit. */
  private countBlocks(n: number): boolean {
    this.blocks += n;
    return this.blocks > this.limits.maxBlocks;
  }

  /** Counts a row of the table being read. */
  private tableRow(text: string): LimitExceededError | null {
    this.table.rows++;
    this.table.width = Math.max(this.table.width, cellCount(text));
    if (this.tableCells + this.table.rows * this.table.width <= this.limits.maxTableCells) return null;
    return tableCellsError(this.limits, `the table at line ${this.table.line}`);
  }
}

/**
 * The inline content of one paragraph (or heading, or table row), read line
 * by line: its delimiters, and what it leaves open. micromark tries each
 * backtick run as the start of a code span by looking for a later run of the
 * same length, and each `<?`, `<!--`, `<![CDATA[` and `<!x` for its end;
 * every try that finds none reads to the end of the paragraph. Runs of one
 * length are tried one after the other, so the paragraph is read at most
 * twice per length of run, and once per opener after the last end of its kind.
 */
class InlineSegment {
  private delimiters = 0;
  private lazyLines = 0;
  /** Lengths of the backtick runs (and of a run whose first backtick is escaped, one less). */
  private readonly backtickLengths = new Set<number>();
  /** Openers since the last end of their kind. */
  private instructions = 0;
  private comments = 0;
  private cdata = 0;
  private declarations = 0;

  constructor(
    private readonly limits: MarkdownLimits,
    private readonly line: number,
  ) {}

  read(text: string): LimitExceededError | null {
    let count = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === '`') {
        if (text[i - 1] === c) continue;
        count++;
        let j = i;
        while (text[j] === '`') j++;
        this.backtickLengths.add(j - i);
        if (text[i - 1] === '\\' && j - i > 1) this.backtickLengths.add(j - i - 1);
      } else if (c === '<') {
        count++;
        if (text[i + 1] === '?') this.instructions++;
        else if (text.startsWith('<!--', i)) this.comments++;
        else if (text.startsWith('<![CDATA[', i)) this.cdata++;
        else if (text[i + 1] === '!' && /[a-z]/i.test(text[i + 2] ?? '')) this.declarations++;
      } else if (c === '>') {
        if (text[i - 1] === '?') this.instructions = 0;
        if (text[i - 1] === '-' && text[i - 2] === '-') this.comments = 0;
        if (text[i - 1] === ']' && text[i - 2] === ']') this.cdata = 0;
        this.declarations = 0;
      } else if (c === '[' || c === ']') count++;
      else if ((c === '*' || c === '_' || c === '~') && text[i - 1] !== c) count++;
    }
    this.delimiters += count;
    if (this.delimiters <= this.limits.maxInlineDelimiters) return null;
    return new LimitExceededError(
      `at most ${this.limits.maxInlineDelimiters} inline delimiters (runs of *, _, ~ and backticks; [, ] and <) in one paragraph (MARKDOWN_MAX_INLINE_DELIMITERS); ` +
        `the paragraph at line ${this.line} has more`,
      'MARKDOWN_MAX_INLINE_DELIMITERS',
    );
  }

  /** Counts a lazy continuation line. */
  lazyLine(): LimitExceededError | null {
    this.lazyLines++;
    if (this.lazyLines <= this.limits.maxLazyLines) return null;
    return new LimitExceededError(
      `at most ${this.limits.maxLazyLines} lazy continuation lines (lines without the > or the indentation of their block quote or list item) ` +
        `in one paragraph (MARKDOWN_MAX_LAZY_LINES); the paragraph at line ${this.line} has more`,
      'MARKDOWN_MAX_LAZY_LINES',
    );
  }

  /** The limit on what the paragraph leaves open, checked at its end. */
  close(): LimitExceededError | null {
    const open = this.backtickLengths.size + this.instructions + this.comments + this.cdata + this.declarations;
    if (open <= this.limits.maxUnclosedInline) return null;
    return new LimitExceededError(
      `at most ${this.limits.maxUnclosedInline} inline constructs left open (distinct lengths of backtick runs; <?, <!--, <![CDATA[ and <!x without their end) ` +
        `in one paragraph (MARKDOWN_MAX_UNCLOSED_INLINE); the paragraph at line ${this.line} has ${open}`,
      'MARKDOWN_MAX_UNCLOSED_INLINE',
    );
  }

}

/** Columns of whitespace from `pos` (tabs to the next multiple of 4), and where it ends. */
function indentAt(line: string, pos: number, col: number): { cols: number; end: number } {
  let c = col;
  let i = pos;
  for (; i < line.length; i++) {
    if (line[i] === ' ') c++;
    else if (line[i] === '\t') c += 4 - (c % 4);
    else break;
  }
  return { cols: c - col, end: i };
}

/** Moves past `cols` columns of whitespace (a tab is taken whole). */
function advanceColumns(line: string, cursor: { pos: number; col: number }, cols: number) {
  const target = cursor.col + cols;
  while (cursor.col < target && cursor.pos < line.length) {
    if (line[cursor.pos] === '\t') cursor.col += 4 - (cursor.col % 4);
    else if (line[cursor.pos] === ' ') cursor.col++;
    else break;
    cursor.pos++;
  }
}

/** Moves past a block quote marker at `end` and the one space after it. */
function advanceQuote(line: string, cursor: { pos: number; col: number }, cols: number, end: number) {
  cursor.col += cols + 1;
  cursor.pos = end + 1;
  if (line[cursor.pos] === ' ' || line[cursor.pos] === '\t') {
    cursor.col++;
    cursor.pos++;
  }
}

/** The width of a list item marker at `i` (`-`, `+`, `*`, or up to 9 digits and `.` or `)`) followed by whitespace or the end; 0 if none. */
function listMarkerWidth(line: string, i: number): number {
  const c = line[i];
  let width = 0;
  if (c === '-' || c === '+' || c === '*') width = 1;
  else {
    let j = i;
    while (j < line.length && j - i < 9 && line[j]! >= '0' && line[j]! <= '9') j++;
    if (j === i || (line[j] !== '.' && line[j] !== ')')) return 0;
    width = j - i + 1;
  }
  const next = line[i + width];
  return next === undefined || next === ' ' || next === '\t' ? width : 0;
}

/** An opening code fence at `i`: three or more backticks (with no backtick after) or tildes. */
function fenceAt(line: string, i: number): { marker: string; length: number } | null {
  const marker = line[i];
  if (marker !== '`' && marker !== '~') return null;
  let j = i;
  while (line[j] === marker) j++;
  if (j - i < 3) return null;
  if (marker === '`' && line.includes('`', j)) return null;
  return { marker, length: j - i };
}

function isClosingFence(line: string, i: number, marker: string, length: number): boolean {
  let j = i;
  while (line[j] === marker) j++;
  return j - i >= length && line.slice(j).trim() === '';
}

/**
 * The start of an HTML block of CommonMark's conditions 1 to 6 at `i`: its
 * end marker (null: a blank line ends it), and where in the line to look for
 * the end marker on the same line.
 */
function htmlBlockAt(line: string, i: number): { end: string | null; skip: number } | null {
  if (line[i] !== '<') return null;
  const rest = line.slice(i, i + 12).toLowerCase();
  if (rest.startsWith('<!--')) return { end: '-->', skip: 4 };
  if (rest.startsWith('<?')) return { end: '?>', skip: 2 };
  if (rest.startsWith('<![cdata[')) return { end: ']]>', skip: 9 };
  if (/^<![a-z]/.test(rest)) return { end: '>', skip: 2 };
  const match = /^<(\/?)([a-z][a-z0-9-]*)/.exec(line.slice(i, i + 40).toLowerCase());
  if (!match) return null;
  const [whole, closing, name] = match;
  const after = line[i + whole.length];
  if (!closing && HTML_RAW_NAMES.has(name!) && (after === undefined || after === ' ' || after === '\t' || after === '>')) {
    return { end: `</${name}>`, skip: whole.length };
  }
  if (HTML_BLOCK_NAMES.has(name!) && (after === undefined || after === ' ' || after === '\t' || after === '>' || (after === '/' && line[i + whole.length + 1] === '>'))) {
    return { end: null, skip: 0 };
  }
  return null;
}

/** Whether a line could start a block, which ends a lazy paragraph continuation or a table. */
function startsBlock(line: string, i: number): boolean {
  const c = line[i];
  return c === '>' || c === '#' || c === '`' || c === '~' || c === '<' || c === '-' || c === '*' || c === '_' || c === '+' || c === '=' || listMarkerWidth(line, i) > 0;
}

/** The cells of a table row as GFM counts them: split at unescaped pipes, a leading and a trailing pipe being no cell. */
function cells(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && (text[i + 1] === '|' || text[i + 1] === '\\')) {
      current += c + text[i + 1];
      i++;
    } else if (c === '|') {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  if (parts.length > 1 && parts[0]!.trim() === '') parts.shift();
  if (parts.length > 1 && parts[parts.length - 1]!.trim() === '') parts.pop();
  return parts;
}

/** How many cells `cells(text)` has, without making them. */
function cellCount(text: string): number {
  let pipes = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && (text[i + 1] === '|' || text[i + 1] === '\\')) i++;
    else if (text[i] === '|') pipes++;
  }
  const trimmed = text.trim();
  let count = pipes + 1;
  if (pipes > 0 && trimmed.startsWith('|')) count--;
  if (pipes > 0 && trimmed.endsWith('|') && !trimmed.endsWith('\\|') && count > 1) count--;
  return count;
}

/** Whether `text` is a GFM delimiter row with as many cells as the header `header`. */
function isDelimiterRow(text: string, header: string): boolean {
  if (!text.includes('|') && !text.includes(':')) return false;
  if (!/^[|:-]/.test(text)) return false;
  const delimiterCells = cells(text.trimEnd());
  if (!delimiterCells.every((cell) => /^[ \t]*:?-+:?[ \t]*$/.test(cell))) return false;
  const headerCells = cells(header.trimEnd());
  // A header of one cell needs a pipe (else `a` and `-` make a setext heading).
  if (headerCells.length === 1 && !header.includes('|')) return false;
  return headerCells.length === delimiterCells.length;
}

/**
 * A link reference definition complete on one line (`[label]: destination
 * "title"`): not inline content. Stricter than CommonMark (no parentheses in a
 * bare destination, titles in quotes only), so what is taken for a
 * definition is one.
 */
function isDefinitionLine(text: string): boolean {
  return /^\[(?:[^\\[\]]|\\.){1,999}\]:[ \t]*(?:<[^<>\n]*>|[^\s<()]+)(?:[ \t]+(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'))?[ \t]*$/.test(text) && /\S/.test(text.slice(1, text.indexOf(']:')));
}
