import { describe, expect, it } from 'vitest';
import { bodyToPlain, identifierWords, looksLikeHtml, toSentences } from '../../src/insights/text.ts';

describe('bodyToPlain', () => {
  it('strips HTML to paragraphs, decodes entities, keeps inline code and takes <pre> apart', () => {
    const plain = bodyToPlain('<p>Hi, I&#39;m stuck &amp; the <code>X-Key</code> header fails.</p><pre><code>{"error":"unauthorized"}</code></pre><script>alert(1)</script><p>Where is it<br>documented?</p>');
    expect(plain.paragraphs).toEqual(["Hi, I'm stuck & the X-Key header fails.", 'Where is it documented?']);
    expect(plain.code).toEqual(['{"error":"unauthorized"}']);
  });

  it('reads Markdown: code blocks apart, links and emphasis as their text, a line after punctuation as its own', () => {
    const plain = bodyToPlain('Hello,\n\nThe **OAuth** [guide](https://docs.example.com/oauth) is wrong.\n\n```\ncurl -X POST https://api.example.com\n```\n\nThanks,\nPriya');
    expect(plain.paragraphs).toEqual(['Hello,', 'The OAuth guide is wrong.', 'Thanks,', 'Priya']);
    expect(plain.code).toEqual(['curl -X POST https://api.example.com']);
  });

  it('tells HTML from Markdown', () => {
    expect(looksLikeHtml('<p>hi</p>')).toBe(true);
    expect(looksLikeHtml('a <b>bold</b> word')).toBe(true);
    expect(looksLikeHtml('x < y and `<T>`')).toBe(false);
  });
});

describe('toSentences', () => {
  it('gives lemmas, negation and stop words', () => {
    const [sentence] = toSentences(["The docs don't mention rotating keys."]);
    const byText = Object.fromEntries(sentence.tokens.map((token) => [token.text, token]));
    expect(byText.docs.lemma).toBe('doc');
    expect(byText.mention).toMatchObject({ lemma: 'mention', negated: true });
    expect(byText.rotating.lemma).toBe('rotate');
    expect(byText.The.stop).toBe(true);
  });

  it('splits identifiers into words', () => {
    expect(identifierWords('unsupported_grant_type maxRetries /v1/webhook-endpoints')).toEqual(['unsupported', 'grant', 'type', 'max', 'retries', 'webhook', 'endpoints']);
  });
});
