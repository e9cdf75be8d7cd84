/**
 * Emoji as the API stores them: the hex code points of the character joined
 * by `-` (GitBook's Emoji, `1f680`; `1f6e0-fe0f` keeps the variation
 * selector, so the character written back is the one read).
 */
import emojiRegex from 'emoji-regex';

/** The character(s) of an emoji code; '' for a code that names none. */
export function emojiText(code: unknown): string {
  if (typeof code !== 'string' || code === '') return '';
  const points = code.split('-').map((hex) => Number.parseInt(hex, 16));
  return points.every((p) => Number.isInteger(p) && p >= 0 && p <= 0x10ffff) ? String.fromCodePoint(...points) : '';
}

/** An emoji character (sequence) as its code: `🚀` -> `1f680`. */
export function emojiCode(text: string): string {
  return [...text].map((c) => c.codePointAt(0)!.toString(16)).join('-');
}

/** Whether `value` is one emoji (a character or sequence of the Unicode emoji set, with its modifiers). */
export function isEmoji(value: string): boolean {
  const matches = value.match(emojiRegex());
  return matches !== null && matches.length === 1 && matches[0] === value;
}

/** The emoji a text starts with, followed by white space, and the text after it: `🚀 Launch` -> ['1f680', 'Launch']; null when none. */
export function splitLeadingEmoji(text: string): { code: string; rest: string } | null {
  const match = emojiRegex().exec(text);
  if (!match || match.index !== 0) return null;
  const after = text.slice(match[0].length);
  if (!/^\s/.test(after)) return null;
  return { code: emojiCode(match[0]), rest: after.trimStart() };
}
