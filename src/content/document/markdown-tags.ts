/**
 * The small tokenizer behind GitBook's tag syntax in Markdown: a GitBook tag
 * (`{% hint style="info" %}`, `{% endhint %}`) and the few HTML tags GitBook
 * writes (`<details>`, `<summary>`, `<figure>`, `<br>`), read by hand; and the
 * escaping the printer needs to write them back (`quoteAttr`, `escapeHtml`).
 */

export interface GitBookTag {
  name: string;
  closing: boolean;
  attrs: Record<string, string>;
}

/** True when the text is exactly one `{% ... %}` tag. */
export function isTagText(text: string): boolean {
  return text.length >= 5 && text.startsWith('{%') && text.endsWith('%}') && text.indexOf('%}') === text.length - 2;
}

/** Reads `{% name attr="v" flag %}`; null when the text is not one well-formed tag. */
export function readTag(text: string): GitBookTag | null {
  if (!isTagText(text)) return null;
  const inner = text.slice(2, -2);
  let i = skipSpace(inner, 0);
  const nameStart = i;
  while (i < inner.length && !isSpace(inner[i])) i++;
  const name = inner.slice(nameStart, i);
  if (!name) return null;
  const attrs = readAttributes(inner, i, inner.length);
  if (!attrs) return null;
  const closing = name.startsWith('end') && name.length > 3;
  return { name: closing ? name.slice(3) : name, closing, attrs: attrs.attrs };
}

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

function isTagNameChar(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '-';
}

function skipSpace(s: string, i: number): number {
  while (i < s.length && isSpace(s[i])) i++;
  return i;
}

/**
 * Reads `key="value" key='value' key=value flag` pairs from `s[i..stop)`,
 * stopping early at a `>` or `/>` (HTML). A bare flag reads as "true".
 * Returns null on an unterminated quote.
 */
function readAttributes(s: string, i: number, stop: number, html = false): { attrs: Record<string, string>; end: number } | null {
  const attrs: Record<string, string> = {};
  for (;;) {
    i = skipSpace(s, i);
    if (i >= stop) return { attrs, end: i };
    if (html && (s[i] === '>' || (s[i] === '/' && s[i + 1] === '>'))) return { attrs, end: i };
    const keyStart = i;
    while (i < stop && !isSpace(s[i]) && s[i] !== '=' && !(html && (s[i] === '>' || s[i] === '/'))) i++;
    const key = s.slice(keyStart, i);
    if (!key) return null;
    i = skipSpace(s, i);
    if (s[i] !== '=') {
      attrs[key] = 'true';
      continue;
    }
    i = skipSpace(s, i + 1);
    const quote = s[i] === '"' || s[i] === "'" ? s[i] : null;
    let value = '';
    if (quote) {
      i++;
      while (i < stop && s[i] !== quote) {
        // Backslash escapes only in GitBook tags; HTML has entities instead.
        if (!html && s[i] === '\\' && i + 1 < stop) i++;
        value += s[i];
        i++;
      }
      if (i >= stop) return null;
      i++;
    } else {
      const valueStart = i;
      while (i < stop && !isSpace(s[i]) && !(html && s[i] === '>')) i++;
      value = s.slice(valueStart, i);
    }
    attrs[key] = html ? unescapeHtml(value) : value;
  }
}

interface HtmlTag {
  name: string;
  closing: boolean;
  attrs: Record<string, string>;
  /** Offsets of `<` and just after `>`. */
  start: number;
  end: number;
}

/** Splits an HTML snippet into its tags, with the text between them in `text`; null on a malformed tag. */
function readHtmlTags(html: string): (HtmlTag & { textBefore: string })[] | null {
  const tags: (HtmlTag & { textBefore: string })[] = [];
  let i = 0;
  while (i < html.length) {
    const open = html.indexOf('<', i);
    if (open < 0) break;
    const textBefore = html.slice(i, open);
    let j = open + 1;
    const closing = html[j] === '/';
    if (closing) j++;
    const nameStart = j;
    while (j < html.length && isTagNameChar(html[j])) j++;
    const name = html.slice(nameStart, j).toLowerCase();
    if (!name) return null;
    const attrs = readAttributes(html, j, html.length, true);
    if (!attrs) return null;
    let end = attrs.end;
    if (html[end] === '/') end++;
    if (html[end] !== '>') return null;
    tags.push({ name, closing, attrs: attrs.attrs, start: open, end: end + 1, textBefore });
    i = end + 1;
  }
  return tags;
}

/**
 * The start of a `<details>` HTML block: its summary (if in the same block)
 * and what follows it. `closedBody` is the Markdown inside when the block also
 * holds `</details>`.
 */
export function readDetailsOpen(html: string): { title: string | null; rest: string; closedBody: string | null } | null {
  const text = html.trim();
  const tags = readHtmlTags(text);
  if (!tags?.length || tags[0].name !== 'details' || tags[0].closing || tags[0].start !== 0) return null;
  let restStart = tags[0].end;
  let title: string | null = null;
  if (tags[1]?.name === 'summary' && !tags[1].closing && tags[1].textBefore.trim() === '') {
    const close = tags.findIndex((t, k) => k > 1 && t.name === 'summary' && t.closing);
    if (close < 0) return null;
    title = unescapeHtml(text.slice(tags[1].end, tags[close].start).trim());
    restStart = tags[close].end;
  }
  const rest = text.slice(restStart);
  const last = tags[tags.length - 1];
  const closed = tags.length > 1 && last.name === 'details' && last.closing && last.end === text.length;
  return { title, rest: closed ? '' : rest, closedBody: closed ? text.slice(restStart, last.start) : null };
}

export function readSummary(html: string): string | null {
  const text = html.trim();
  const tags = readHtmlTags(text);
  if (!tags || tags.length !== 2 || tags[0].name !== 'summary' || tags[0].closing || tags[0].start !== 0) return null;
  if (tags[1].name !== 'summary' || !tags[1].closing || tags[1].end !== text.length) return null;
  return unescapeHtml(text.slice(tags[0].end, tags[1].start).trim());
}

export function isDetailsClose(html: string): boolean {
  const tags = readHtmlTags(html.trim());
  return tags?.length === 1 && tags[0].name === 'details' && tags[0].closing && tags[0].start === 0 && tags[0].end === html.trim().length;
}

/** GitBook's image HTML: `<figure><img src alt><figcaption><p>caption</p></figcaption></figure>`. */
export function readFigure(html: string): { src: string; alt: string; caption: string | null } | null {
  const text = html.trim();
  const tags = readHtmlTags(text);
  if (!tags?.length || tags[0].name !== 'figure' || tags[0].start !== 0) return null;
  const last = tags[tags.length - 1];
  if (last.name !== 'figure' || !last.closing || last.end !== text.length) return null;
  let img: HtmlTag | null = null;
  let caption = '';
  let inCaption = false;
  for (const tag of tags) {
    if (inCaption) caption += tag.textBefore;
    else if (tag.textBefore.trim() !== '') return null;
    if (tag.name === 'figcaption') inCaption = !tag.closing;
    else if (tag.name === 'img' && !img) img = tag;
    else if (!['figure', 'p', 'img'].includes(tag.name) && !inCaption) return null;
  }
  if (!img?.attrs.src) return null;
  const captionText = unescapeHtml(caption.trim());
  return { src: img.attrs.src, alt: img.attrs.alt ?? '', caption: captionText || null };
}

/** `<br>`, `<br/>`, `<br />`: the line break GFM tables use. */
export function isBreakTag(html: string): boolean {
  const tag = readHtmlTags(html.trim());
  return tag !== null && tag.length === 1 && tag[0].name === 'br' && !tag[0].closing && tag[0].end === html.trim().length && tag[0].start === 0;
}

/** A tag attribute value, double-quoted; quotes and backslashes escaped, newlines flattened. */
export function quoteAttr(value: string): string {
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', ' ')}"`;
}

/** Text as HTML: `&`, `<` and `>` escaped (a `<summary>` title). */
export function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function unescapeHtml(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');
}
