/**
 * From a message body (Markdown or HTML) to what the engine reads: the prose
 * as sentences of lemmatised tokens (wink-nlp and its English model), and the
 * code apart. Code (fenced or indented blocks, `<pre>`) is never read as
 * sentences: a JSON error or a curl command says nothing about documentation,
 * but its identifiers still say what the conversation is about, so they are
 * split into words (`unsupported_grant_type` → unsupported grant type) and
 * counted at half weight (./extract.ts). Inline code stays in its sentence.
 *
 * HTML is read with htmlparser2 (block elements end a paragraph, `<br>` a
 * line, scripts and styles are dropped), Markdown with remark-parse
 * (CommonMark). Bodies are cut at MAX_BODY_CHARS first, which bounds the work
 * per message.
 */
import { Parser } from 'htmlparser2';
import type * as md from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import winkNLP, { type ItemSentence, type ItemToken, type ItsFunction } from 'wink-nlp';
import model from 'wink-eng-lite-web-model';

/** Characters of a body read at most: support messages are far shorter; a pasted log is not worth more. */
export const MAX_BODY_CHARS = 16_000;

/** A body as plain text: paragraphs (each a line or a few sentences) and code blocks. */
export interface PlainBody {
  paragraphs: string[];
  code: string[];
}

export interface Token {
  /** As written. */
  text: string;
  /** Lower case lemma ("docs" → doc, "couldn't" → could, not). */
  lemma: string;
  /** Universal part of speech (NOUN, VERB, ...). */
  pos: string;
  /** A stop word of the model's list. */
  stop: boolean;
  /** Within the scope of a negation ("isn't documented": documented). */
  negated: boolean;
  /** wink's token type: word, number, url, email, punctuation, ... */
  type: string;
}

export interface Sentence {
  text: string;
  tokens: Token[];
}

const BLOCK_TAGS = new Set([
  'p', 'div', 'li', 'ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'tr', 'table', 'section', 'article', 'header', 'footer', 'dd', 'dt', 'hr',
]);
const SKIPPED_TAGS = new Set(['script', 'style', 'head', 'title']);

/** Whether a body is HTML rather than Markdown: it opens with a tag, or closes a block or a break somewhere. */
export function looksLikeHtml(body: string): boolean {
  return /^\s*<([a-z][a-z0-9]*)\b[^>]*>/i.test(body) || /<\/(p|div|li|pre|code|b|strong|em|i|span|a|td)>|<br\s*\/?>/i.test(body);
}

/** HTML to paragraphs and code blocks. */
export function htmlToPlain(html: string): PlainBody {
  const paragraphs: string[] = [];
  const code: string[] = [];
  let current = '';
  let codeText = '';
  let preDepth = 0;
  let skipDepth = 0;
  const endParagraph = () => {
    for (const line of splitLines(current)) paragraphs.push(line);
    current = '';
  };
  const parser = new Parser(
    {
      onopentag(name) {
        if (SKIPPED_TAGS.has(name)) skipDepth++;
        else if (name === 'pre') {
          endParagraph();
          preDepth++;
        } else if (name === 'br') current += '\n';
        else if (BLOCK_TAGS.has(name)) endParagraph();
      },
      ontext(text) {
        if (skipDepth > 0) return;
        if (preDepth > 0) codeText += text;
        else current += text;
      },
      onclosetag(name) {
        if (SKIPPED_TAGS.has(name)) skipDepth = Math.max(0, skipDepth - 1);
        else if (name === 'pre') {
          preDepth = Math.max(0, preDepth - 1);
          if (preDepth === 0 && codeText.trim()) code.push(codeText);
          if (preDepth === 0) codeText = '';
        } else if (BLOCK_TAGS.has(name) || name === 'td' || name === 'th') {
          if (name === 'td' || name === 'th') current += ' ';
          else endParagraph();
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  if (codeText.trim()) code.push(codeText);
  endParagraph();
  return { paragraphs, code };
}

// CommonMark without GFM: tables and strikethrough are rare in support messages (a table reads as its text),
// and remark-gfm's extensions, combined again for every parse, cost a third of the engine's time.
const markdownParser = unified().use(remarkParse);

/** Markdown to paragraphs and code blocks; HTML inside it is read as HTML. */
export function markdownToPlain(markdown: string): PlainBody {
  const tree = markdownParser.parse(markdown);
  const paragraphs: string[] = [];
  const code: string[] = [];
  const inline = (node: md.Nodes): string => {
    switch (node.type) {
      case 'text':
      case 'inlineCode':
        return node.value;
      case 'break':
        return '\n';
      case 'html':
        return htmlToPlain(node.value).paragraphs.join(' ');
      case 'image':
        return node.alt ?? '';
      default:
        return 'children' in node ? node.children.map((child) => inline(child as md.Nodes)).join('') : '';
    }
  };
  const block = (node: md.Nodes) => {
    switch (node.type) {
      case 'code':
        code.push(node.value);
        return;
      case 'html': {
        const plain = htmlToPlain(node.value);
        paragraphs.push(...plain.paragraphs);
        code.push(...plain.code);
        return;
      }
      case 'paragraph':
      case 'heading':
        paragraphs.push(...splitLines(inline(node)));
        return;
      case 'thematicBreak':
        return;
      default:
        if ('children' in node) for (const child of node.children) block(child as md.Nodes);
    }
  };
  block(tree);
  return { paragraphs: paragraphs.filter((paragraph) => paragraph.trim()), code };
}

/**
 * The lines of a paragraph that stand alone: a line break after punctuation
 * ("Thanks,⏎Priya") or before a list marker ends a sentence; one inside a
 * sentence (a wrapped e-mail line) is a space.
 */
function splitLines(text: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) {
      if (current) out.push(current);
      current = '';
      continue;
    }
    if (current && (/[.!?:;,)]$/.test(current) || /^([-*•]|\d+[.)])\s/.test(line))) {
      out.push(current);
      current = line;
    } else current = current ? `${current} ${line}` : line;
  }
  if (current) out.push(current);
  return out.map((line) => line.replace(/\s+/g, ' ').trim()).filter(Boolean);
}

/** A body (Markdown or HTML) as plain paragraphs and code, cut at MAX_BODY_CHARS. */
export function bodyToPlain(body: string): PlainBody {
  const cut = body.length > MAX_BODY_CHARS ? body.slice(0, MAX_BODY_CHARS) : body;
  return looksLikeHtml(cut) ? htmlToPlain(cut) : markdownToPlain(cut);
}

let nlpInstance: ReturnType<typeof winkNLP> | null = null;

/** wink-nlp with its English model, loaded on first use (about 150 ms). */
function nlp() {
  nlpInstance ??= winkNLP(model, ['sbd', 'pos', 'negation']);
  return nlpInstance;
}

/** Paragraphs split into sentences of tokens. */
export function toSentences(paragraphs: string[]): Sentence[] {
  if (paragraphs.length === 0) return [];
  const engine = nlp();
  const its = engine.its;
  // One document for all the paragraphs: a blank line ends a sentence for wink's splitter.
  const doc = engine.readDoc(paragraphs.join('\n\n'));
  const sentences: Sentence[] = [];
  doc.sentences().each((sentence: ItemSentence) => {
    const tokens: Token[] = [];
    sentence.tokens().each((token: ItemToken) => {
      const type = token.out(its.type);
      if (type === 'tabCRLF' || type === 'spaces') return;
      tokens.push({
        text: token.out(),
        // wink-nlp's declaration of its.lemma (which takes the model's addons) does not fit `out`'s parameter; the call is what its documentation shows.
        lemma: token.out(its.lemma as unknown as ItsFunction<string>).toLowerCase(),
        pos: token.out(its.pos) as string,
        stop: token.out(its.stopWordFlag) as unknown as boolean,
        negated: token.out(its.negationFlag) as unknown as boolean,
        type,
      });
    });
    const text = sentence.out().replace(/\s+/g, ' ').trim();
    if (tokens.length > 0) sentences.push({ text, tokens });
  });
  return sentences;
}

/**
 * Identifiers in code or links as words: snake_case, kebab-case, camelCase,
 * paths and dotted names split; numbers and one-letter pieces dropped.
 */
export function identifierWords(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z]+/)
    .map((word) => word.toLowerCase())
    .filter((word) => word.length > 2);
}

/** Lemmas of loose words (from identifierWords), through the same model as prose. */
export function lemmatiseWords(words: string[]): Token[] {
  if (words.length === 0) return [];
  return toSentences([words.join(' ')]).flatMap((sentence) => sentence.tokens);
}
