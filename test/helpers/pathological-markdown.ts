/**
 * The CommonMark project's pathological inputs (cmark and cmark-gfm's
 * `test/pathological_tests.py`), made to a given size, plus the shapes issue
 * 14 found by hand (`*a` repeated, `>` repeated, `- ` nested on one line) and
 * long and wide GFM tables. Each case repeats its unit until the input is
 * about `bytes` long, so one case at 10 KB and at 100 KB shows how conversion
 * time grows with the input.
 */

/** A named input generator: `make(bytes)` returns Markdown of about that many bytes. */
export interface PathologicalCase {
  name: string;
  make: (bytes: number) => string;
}

/** `unit` repeated to about `bytes` characters (at least once). */
function repeat(unit: string, bytes: number): string {
  return unit.repeat(Math.max(1, Math.round(bytes / unit.length)));
}

/** Lines `line(i)` for i = 0, 1, ... until the text is about `bytes` long. */
function lines(line: (i: number) => string, bytes: number): string {
  const out: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    const next = line(i);
    out.push(next);
    length += next.length;
  }
  return out.join('');
}

export const PATHOLOGICAL_CASES: PathologicalCase[] = [
  // cmark's set
  {
    name: 'nested strong emph',
    make: (bytes) => {
      const n = Math.max(1, Math.round(bytes / 14));
      return `${'*a **a '.repeat(n)}b${' a** a*'.repeat(n)}`;
    },
  },
  { name: 'many emph closers with no openers', make: (bytes) => repeat('a_ ', bytes) },
  { name: 'many emph openers with no closers', make: (bytes) => repeat('_a ', bytes) },
  { name: 'many link closers with no openers', make: (bytes) => repeat('a]', bytes) },
  { name: 'many link openers with no closers', make: (bytes) => repeat('[a', bytes) },
  { name: 'mismatched openers and closers', make: (bytes) => repeat('*a_ ', bytes) },
  { name: 'openers and closers multiple of 3', make: (bytes) => `a**b${repeat('c* ', bytes - 4)}` },
  { name: 'link openers and emph closers', make: (bytes) => repeat('[ a_', bytes) },
  { name: 'pattern [ (]( repeated', make: (bytes) => repeat('[ (](', bytes) },
  { name: 'pattern ![[]() repeated', make: (bytes) => repeat('![[]()', bytes) },
  {
    name: 'nested brackets',
    make: (bytes) => {
      const n = Math.max(1, Math.round(bytes / 2));
      return `${'['.repeat(n)}a${']'.repeat(n)}`;
    },
  },
  { name: 'nested block quotes', make: (bytes) => `${repeat('> ', bytes)}a` },
  { name: 'deeply nested lists', make: (bytes) => lines((i) => `${'  '.repeat(i)}* a\n`, bytes) },
  { name: 'backticks', make: (bytes) => lines((i) => `e${'`'.repeat(i + 1)}`, bytes) },
  { name: 'unclosed links A', make: (bytes) => repeat('[a](<b', bytes) },
  { name: 'unclosed links B', make: (bytes) => repeat('[a](b', bytes) },
  { name: 'unclosed <!--', make: (bytes) => `</${repeat('<!--', bytes)}` },
  { name: 'tables (cmark-gfm)', make: (bytes) => repeat('aaa\rbbb\n-\v\n', bytes) },
  {
    name: 'many references',
    make: (bytes) => {
      const definitions = lines((i) => `[${i + 1}]: u\n`, bytes / 2);
      return definitions + repeat('[0] ', bytes / 2);
    },
  },
  // Found by trying the service (issue 14), and GitBook-shaped variants
  { name: 'emphasis openers *a', make: (bytes) => repeat('*a', bytes) },
  { name: 'strong openers **a', make: (bytes) => repeat('**a', bytes) },
  { name: 'strikethrough openers ~~a', make: (bytes) => repeat('~~a', bytes) },
  { name: 'block quote markers >', make: (bytes) => repeat('>', bytes) },
  { name: 'nested list markers on one line', make: (bytes) => `${repeat('- ', bytes)}a` },
  { name: 'nested ordered list markers', make: (bytes) => `${repeat('1. ', bytes)}a` },
  {
    name: 'long table',
    make: (bytes) => `| a | b | c |\n| --- | --- | --- |\n${lines((i) => `| ${i} | *x* | [l](u) |\n`, bytes)}`,
  },
  {
    name: 'wide table',
    make: (bytes) => {
      const n = Math.max(1, Math.round(bytes / 8));
      return `${'| a '.repeat(n)}|\n${'| - '.repeat(n)}|\n${'| b '.repeat(n)}|\n`;
    },
  },
  { name: 'many table rows without pipes', make: (bytes) => `| a |\n| - |\n${repeat('b\n', bytes)}` },
  { name: 'many html openers', make: (bytes) => repeat('<a ', bytes) },
  { name: 'many autolink openers', make: (bytes) => repeat('<http://a', bytes) },
  { name: 'many gitbook tags', make: (bytes) => repeat('{% hint style="info" %}\n', bytes) },
  { name: 'many details openers', make: (bytes) => repeat('<details>\n\n', bytes) },
  // Found while measuring micromark: each makes it read a paragraph, its lines or the document again and again
  { name: 'processing instructions left open', make: (bytes) => `a ${repeat('<?', bytes)}` },
  { name: 'code spans left open, then text', make: (bytes) => lines((i) => (i < 40 ? `x${'`'.repeat(i + 1)}` : 'lorem ipsum '), bytes) },
  { name: 'separate block quotes', make: (bytes) => repeat('> a\n\n', bytes) },
  { name: 'list items with a nested item each', make: (bytes) => repeat('- a\n  - b\n', bytes) },
  { name: 'lazy lines in a block quote', make: (bytes) => `> a\n${repeat('b\n', bytes)}` },
  { name: 'lazy lines in a list item', make: (bytes) => `- a\n${repeat('b\n', bytes)}` },
  { name: 'nested footnote definitions', make: (bytes) => `${repeat('[^a]: ', bytes)}x` },
  { name: 'a table header that is not one, then emphasis', make: (bytes) => `a|b\n-|-|-\n${repeat('*a*a\n', bytes)}` },
  { name: 'autolink literal emails', make: (bytes) => repeat('x@y.', bytes) },
  {
    name: 'nested GitBook hints',
    make: (bytes) => {
      const n = Math.max(1, Math.round(bytes / 40));
      return `${'{% hint style="info" %}\n\n'.repeat(n)}x\n\n${'{% endhint %}\n\n'.repeat(n)}`;
    },
  },
  {
    name: 'nested <details> in one HTML block',
    make: (bytes) => {
      const n = Math.max(1, Math.round(bytes / 50));
      return `${'<details><summary>s</summary>'.repeat(n)}x${'</details>'.repeat(n)}`;
    },
  },
];
