import { describe, expect, it } from 'vitest';
import { isBreakTag, isDetailsClose, quoteAttr, readDetailsOpen, readFigure, readSummary, readTag } from '../../../src/content/document/markdown-tags.ts';

describe('readTag', () => {
  it('reads a tag name and its attributes: double, single, unquoted and bare', () => {
    expect(readTag(`{% code title="a b" overflow='wrap' lineNumbers=true fullWidth %}`)).toEqual({
      name: 'code',
      closing: false,
      attrs: { title: 'a b', overflow: 'wrap', lineNumbers: 'true', fullWidth: 'true' },
    });
  });

  it('reads a closing tag as the name it closes', () => {
    expect(readTag('{% endhint %}')).toEqual({ name: 'hint', closing: true, attrs: {} });
    expect(readTag('{% end %}')).toEqual({ name: 'end', closing: false, attrs: {} });
  });

  it('reads back what quoteAttr writes', () => {
    const title = 'say "hi" \\ bye';
    expect(readTag(`{% tab title=${quoteAttr(title)} %}`)?.attrs.title).toBe(title);
  });

  it('refuses anything but one well-formed tag', () => {
    expect(readTag('{% %}')).toBeNull();
    expect(readTag('{% hint style="info %}')).toBeNull();
    expect(readTag('{% a %} {% b %}')).toBeNull();
    expect(readTag('text {% hint %}')).toBeNull();
  });
});

describe('HTML tags', () => {
  it('reads a details block with its summary, open or closed', () => {
    expect(readDetailsOpen('<details><summary>More &amp; less</summary>')).toEqual({ title: 'More & less', rest: '', closedBody: null });
    expect(readDetailsOpen('<details>\n<summary>T</summary>\n\nbody\n</details>')).toEqual({ title: 'T', rest: '', closedBody: '\n\nbody\n' });
    expect(readDetailsOpen('<div>')).toBeNull();
    expect(readSummary('<summary>Title</summary>')).toBe('Title');
    expect(isDetailsClose(' </details> ')).toBe(true);
    expect(isDetailsClose('</details> x')).toBe(false);
  });

  it("reads GitBook's figure", () => {
    expect(readFigure('<figure><img src="a.png" alt="A"><figcaption><p>Cap</p></figcaption></figure>')).toEqual({ src: 'a.png', alt: 'A', caption: 'Cap' });
    expect(readFigure('<figure><img alt="no src"></figure>')).toBeNull();
  });

  it('knows a line break tag', () => {
    expect(['<br>', '<br/>', '<br />'].map(isBreakTag)).toEqual([true, true, true]);
    expect(isBreakTag('<br> x')).toBe(false);
  });
});
