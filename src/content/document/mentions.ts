/**
 * User mentions in a document: GitBook's `mention` inline (DocumentInlineMention) whose ref is a
 * user (`{kind: 'user', user: <id>}`), and the Markdown a caller writes for one: `@` followed by
 * an e-mail address (`@ada@example.com`) or by a user id (`@AbC123...`). The `@` starts the text
 * or follows a character that is not a letter, digit, `_`, `.` or `@` (so `ada@example.com`
 * alone is an address, not a mention). Code (code blocks, code spans) and the text of links hold
 * no mentions. GFM turns an address into a `mailto:` link: an `@` right before such a link
 * whose text is the address is a mention of that address.
 *
 * Pure: finding the tokens, and turning them into mention inlines once the caller resolved them
 * to users (docs/decisions.md, "Comments").
 */
import { type JSONDocument, type JSONNode } from './model.ts';

/** What a caller wrote after an `@`: an e-mail address (lower-cased) or a word that may be a user id. */
export type MentionToken = { kind: 'email'; value: string } | { kind: 'id'; value: string };

type Leaf = NonNullable<JSONNode['leaves']>[number];

const EMAIL = '[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)+';
const WORD = '[A-Za-z0-9]+';
/** `@` + an address or a word, at the start or after a character that cannot be part of an address. */
const TOKEN = new RegExp(`(^|[^A-Za-z0-9_.@])@(${EMAIL}|${WORD})`, 'g');
const ADDRESS = new RegExp(`^${EMAIL}$`);
/** Text ending in an `@` that may start a mention of the address linked right after it. */
const TRAILING_AT = /(^|[^A-Za-z0-9_.@])@$/;

/** Blocks whose text is code: no mentions in them. */
const CODE_BLOCKS = new Set(['code', 'code-line']);

function tokenOf(text: string): MentionToken {
  return ADDRESS.test(text) ? { kind: 'email', value: text.toLowerCase() } : { kind: 'id', value: text };
}

/** The key a token is resolved by (`email:ada@example.com`, `id:AbC123`). */
export function tokenKey(token: MentionToken): string {
  return `${token.kind}:${token.value}`;
}

const isCode = (leaf: Leaf) => leaf.marks.some((m) => m.type === 'code');

/** The address a `mailto:` link stands for, when its text is that address (an autolinked address). */
function autolinkedAddress(node: JSONNode | undefined): string | null {
  if (!node || node.object !== 'inline' || node.type !== 'link') return null;
  const ref = node.data?.ref as { kind?: unknown; url?: unknown } | undefined;
  if (ref?.kind !== 'url' || typeof ref.url !== 'string' || !ref.url.startsWith('mailto:')) return null;
  const address = ref.url.slice('mailto:'.length);
  const text = (node.nodes ?? []).map((n) => (n.leaves ?? []).map((l) => l.text).join('')).join('');
  return text === address && ADDRESS.test(address) ? address : null;
}

/** The last leaf of a text node, when it is not code. */
function lastPlainLeaf(node: JSONNode | undefined): Leaf | null {
  if (!node || node.object !== 'text') return null;
  const leaf = node.leaves?.[node.leaves.length - 1];
  return leaf && !isCode(leaf) ? leaf : null;
}

/** Visits the lists of inline content (the `nodes` of blocks holding text) outside code. */
function eachInlineList(nodes: JSONNode[] | undefined, visit: (list: JSONNode[]) => void): void {
  if (!nodes) return;
  if (nodes.some((n) => n.object === 'text' || n.object === 'inline')) visit(nodes);
  for (const node of nodes) {
    if (node.object !== 'block' && node.object !== 'fragment') continue;
    if (node.type && CODE_BLOCKS.has(node.type)) continue;
    eachInlineList(node.nodes, visit);
    eachInlineList(node.fragments as JSONNode[] | undefined, visit);
  }
}

/** Every mention token of the document's text, in order (repeats included). */
export function mentionTokens(document: JSONDocument): MentionToken[] {
  const tokens: MentionToken[] = [];
  eachInlineList(document.nodes, (list) => {
    list.forEach((node, i) => {
      if (node.object === 'text') {
        for (const leaf of node.leaves ?? []) {
          if (isCode(leaf)) continue;
          for (const match of leaf.text.matchAll(TOKEN)) tokens.push(tokenOf(match[2]!));
        }
      } else {
        const address = autolinkedAddress(node);
        const before = lastPlainLeaf(list[i - 1]);
        if (address && before && TRAILING_AT.test(before.text)) tokens.push({ kind: 'email', value: address.toLowerCase() });
      }
    });
  });
  return tokens;
}

/** A mention inline of a user, as GitBook's document model has it. */
export function mentionInline(userId: string): JSONNode {
  return { object: 'inline', type: 'mention', isVoid: true, data: { ref: { kind: 'user', user: userId } } };
}

const textNode = (leaves: Leaf[]): JSONNode => ({ object: 'text', leaves: leaves.length ? leaves : [{ object: 'leaf', text: '', marks: [] }] });

/**
 * The document with each token `resolve` names a user for turned into a mention inline of that
 * user (surrounded by text nodes, as the editor keeps inlines); tokens it answers null for stay
 * text. A copy: `document` is not changed.
 */
export function linkMentions(document: JSONDocument, resolve: (token: MentionToken) => string | null): JSONDocument {
  const copy = structuredClone(document);
  const rewrite = (list: JSONNode[]): JSONNode[] => {
    const out: JSONNode[] = [];
    list.forEach((node, i) => {
      if (node.object === 'text') {
        out.push(...splitText(node, resolve));
        return;
      }
      const address = autolinkedAddress(node);
      const userId = address ? resolve({ kind: 'email', value: address.toLowerCase() }) : null;
      const before = out[out.length - 1];
      const leaf = lastPlainLeaf(before);
      if (userId && leaf && TRAILING_AT.test(leaf.text) && lastPlainLeaf(list[i - 1])) {
        leaf.text = leaf.text.slice(0, -1);
        out.push(mentionInline(userId), textNode([]));
        return;
      }
      out.push(node);
    });
    return out;
  };
  const walk = (nodes: JSONNode[] | undefined): void => {
    if (!nodes) return;
    for (const node of nodes) {
      if (node.object !== 'block' && node.object !== 'fragment') continue;
      if (node.type && CODE_BLOCKS.has(node.type)) continue;
      if (node.nodes?.some((n) => n.object === 'text' || n.object === 'inline')) node.nodes = rewrite(node.nodes);
      walk(node.nodes);
      walk(node.fragments as JSONNode[] | undefined);
    }
  };
  walk(copy.nodes);
  return copy;
}

/** A text node split around the tokens `resolve` names a user for: text, mention, text... */
function splitText(node: JSONNode, resolve: (token: MentionToken) => string | null): JSONNode[] {
  const out: JSONNode[] = [];
  let leaves: Leaf[] = [];
  for (const leaf of node.leaves ?? []) {
    if (isCode(leaf)) {
      leaves.push(leaf);
      continue;
    }
    let at = 0;
    for (const match of leaf.text.matchAll(TOKEN)) {
      const userId = resolve(tokenOf(match[2]!));
      if (!userId) continue;
      const start = match.index + match[1]!.length;
      if (start > at) leaves.push({ ...leaf, text: leaf.text.slice(at, start) });
      out.push(textNode(leaves), mentionInline(userId));
      leaves = [];
      at = match.index + match[0].length;
    }
    if (at === 0) leaves.push(leaf);
    else if (at < leaf.text.length) leaves.push({ ...leaf, text: leaf.text.slice(at) });
  }
  out.push(textNode(leaves));
  return out;
}

/** The users the document's mention inlines name, in order, without repeats. */
export function mentionedUsers(document: JSONDocument): string[] {
  const users = new Set<string>();
  const walk = (nodes: JSONNode[] | undefined): void => {
    for (const node of nodes ?? []) {
      const ref = node.data?.ref as { kind?: unknown; user?: unknown } | undefined;
      if (node.object === 'inline' && node.type === 'mention' && ref?.kind === 'user' && typeof ref.user === 'string') users.add(ref.user);
      walk(node.nodes);
      walk(node.fragments as JSONNode[] | undefined);
    }
  };
  walk(document.nodes);
  return [...users];
}

/**
 * The document with each user mention written as the text `@<user id>`, as Markdown has no syntax
 * of its own for it (what `linkMentions` reads back as the same mention). A copy.
 */
export function mentionsAsText(document: JSONDocument): JSONDocument {
  const copy = structuredClone(document);
  const walk = (nodes: JSONNode[] | undefined): void => {
    if (!nodes) return;
    nodes.forEach((node, i) => {
      const ref = node.data?.ref as { kind?: unknown; user?: unknown } | undefined;
      if (node.object === 'inline' && node.type === 'mention' && ref?.kind === 'user' && typeof ref.user === 'string') {
        nodes[i] = textNode([{ object: 'leaf', text: `@${ref.user}`, marks: [] }]);
        return;
      }
      walk(node.nodes);
      walk(node.fragments as JSONNode[] | undefined);
    });
  };
  walk(copy.nodes);
  return copy;
}
