/**
 * Text the PDF fonts can show. The standard PDF fonts (Helvetica, Courier) are
 * WinAnsi-encoded: pdfkit writes any other character as garbage (U+2192 "→"
 * comes out as "!’"). So every string drawn with a standard font goes through
 * `toWinAnsi` first: text is NFC-normalised and split into grapheme clusters;
 * clusters WinAnsi can show are kept; invisible ones (control and format
 * characters, zero-width joiners, variation selectors) are dropped; tabs
 * become four spaces, other spaces one space; a few typographic look-alikes
 * are spelled in ASCII (→ "->", ≤ "<=", ≠ "!=", − "-", ...); a letter with
 * diacritics WinAnsi lacks loses them (ő → o, ā → a); a compatibility form is
 * decomposed (ﬁ → fi, Ａ → A); and anything left (CJK, Cyrillic, Greek, emoji,
 * ...) becomes one "?" per cluster (so 👍🏽 and a flag are each one "?").
 * An embedded font (fonts.ts) goes through `sanitize` with its own coverage,
 * so only the clusters it has no glyph for are replaced the same way.
 */

const WIN_ANSI_HIGH = new Set([
  0x20ac, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x017d, 0x2018,
  0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x017e, 0x0178,
]);
/** Strings made only of characters the standard fonts show as-is (fast path). */
const WIN_ANSI_ONLY =
  /^[\n\x20-\x7e\xa0-\xac\xae-\xff\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013\u2014\u2018-\u201a\u201c-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]*$/;

function winAnsiCovers(cp: number): boolean {
  return (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff && cp !== 0xad) || WIN_ANSI_HIGH.has(cp);
}

/** ASCII spellings of common characters outside WinAnsi. */
const LOOKALIKES: Record<string, string> = {
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2015': '-',
  '\u2043': '-',
  '\u2212': '-',
  '\u2032': "'",
  '\u2033': '"',
  '\u201b': "'",
  '\u201f': '"',
  '\u2190': '<-',
  '\u2192': '->',
  '\u2194': '<->',
  '\u21d0': '<=',
  '\u21d2': '=>',
  '\u21d4': '<=>',
  '\u2264': '<=',
  '\u2265': '>=',
  '\u2260': '!=',
  '\u2248': '~',
  '\u2217': '*',
  '\u2215': '/',
  '\u2044': '/',
  '\u25cf': '\u2022',
  '\u25e6': 'o',
  '\u2219': '\u00b7',
};

const INVISIBLE = /[\p{Cc}\p{Cf}\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}\u{1F3FB}-\u{1F3FF}]/gu;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Replaces what `covers` cannot show, cluster by cluster (see the module comment). */
export function sanitize(text: string, covers: (cp: number) => boolean, cache: Map<string, string>): string {
  let out = '';
  for (const { segment } of graphemes.segment(text.normalize('NFC'))) {
    let clean = cache.get(segment);
    if (clean === undefined) {
      clean = sanitizeCluster(segment, covers);
      cache.set(segment, clean);
    }
    out += clean;
  }
  return out;
}

function sanitizeCluster(cluster: string, covers: (cp: number) => boolean): string {
  if (cluster === '\n' || cluster === '\r\n' || cluster === '\r' || cluster === '\u2028' || cluster === '\u2029') {
    return '\n';
  }
  if (cluster === '\t') return '    ';
  const allCovered = (s: string) => [...s].every((c) => covers(c.codePointAt(0)!));
  if (allCovered(cluster)) return cluster;
  const visible = cluster.replace(INVISIBLE, '');
  if (visible === '') return '';
  if (allCovered(visible)) return visible;
  if (/^\p{Zs}$/u.test(visible)) return ' ';
  const lookalike = LOOKALIKES[visible];
  if (lookalike !== undefined && allCovered(lookalike)) return lookalike;
  const decomposed = visible.normalize('NFKD').replace(/\p{M}/gu, '');
  if (decomposed !== '' && allCovered(decomposed)) return decomposed;
  return '?';
}

const winAnsiCache = new Map<string, string>();

/** Makes text safe for the standard (WinAnsi) PDF fonts; see the module comment. */
export function toWinAnsi(text: string): string {
  if (WIN_ANSI_ONLY.test(text)) return text;
  return sanitize(text.replace(/\r\n?/g, '\n'), winAnsiCovers, winAnsiCache);
}
