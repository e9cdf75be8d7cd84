/**
 * Revision tags (GitBook's RevisionTag, @gitbook/api 0.202.0) and the tags pages carry
 * (RevisionPageTag): what they may hold, checked where they are set (change request content,
 * Markdown frontmatter, Git Sync's `.gitbook/tags.yaml`). Each check answers the tag or the
 * problem in words, naming the member.
 */
import { emojiCode, emojiText, isEmoji } from './emoji.ts';
import type { PageTag, TagSnapshot } from './snapshot.ts';

/** DocumentTextColor of @gitbook/api 0.202.0: the colors a tag may have. */
export const TAG_COLORS = [
  'default',
  'green',
  'blue',
  'red',
  'orange',
  'yellow',
  'purple',
  'pink',
  'violet',
  'cyan',
  '$primary',
  '$info',
  '$success',
  '$warning',
  '$danger',
  '$tint',
] as const;
export const DEFAULT_TAG_COLOR = 'default';

/** The most tags a revision holds, and a page carries. */
export const MAX_TAGS = 500;
export const MAX_PAGE_TAGS = 20;
const MAX_SLUG = 64;
const MAX_LABEL = 100;
/** Emoji and Icon of the wire contract: at most 50 characters. */
const MAX_DECORATION = 50;
/** A tag's slug: lowercase letters and digits, `-` or `_` between them. */
export const TAG_SLUG = /^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$/;
/** An icon's name (GitBook's icon set: `sparkle`, `arrow-right`). */
const ICON_NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

/** What a change (or `.gitbook/tags.yaml`) says of a tag; `null` emoji or icon removes it. */
export interface TagInput {
  tag?: unknown;
  label?: unknown;
  color?: unknown;
  emoji?: unknown;
  icon?: unknown;
}

type Checked<T> = { value: T; problem?: undefined } | { value?: undefined; problem: string };

export function tagSlugProblem(slug: unknown): string | null {
  if (typeof slug !== 'string' || slug === '') return 'required, the slug of a tag';
  if (slug.length > MAX_SLUG || !TAG_SLUG.test(slug)) return `${JSON.stringify(slug)}: a slug is lowercase letters and digits, "-" or "_" between them, at most ${MAX_SLUG} characters`;
  return null;
}

/** An emoji as stored (its code, `1f389`), from its code or its character; null when it is neither. */
function emojiOf(value: string): string | null {
  if (isEmoji(value)) return emojiCode(value);
  return /^[0-9a-f]{1,6}(?:-[0-9a-f]{1,6})*$/i.test(value) && isEmoji(emojiText(value)) ? value.toLowerCase() : null;
}

/**
 * The tag `input` makes (`current` null: insert_tag) or makes of `current` (update_tag: members
 * left out stay; the slug never changes). A tag has an emoji or an icon, not both: setting one
 * removes the other.
 */
export function tagFromInput(input: TagInput, current: TagSnapshot | null): Checked<TagSnapshot> {
  let slug = current?.slug;
  if (!current) {
    const problem = tagSlugProblem(input.tag);
    if (problem) return { problem: `tag: ${problem}` };
    slug = input.tag as string;
  }
  const next: TagSnapshot = current ? { ...current } : { slug: slug!, label: '', color: DEFAULT_TAG_COLOR, emoji: null, icon: null };
  if (input.label !== undefined || !current) {
    const label = typeof input.label === 'string' ? input.label.trim() : null;
    if (label === null || label === '' || label.length > MAX_LABEL) return { problem: `label: ${current ? 'must be' : 'required,'} 1 to ${MAX_LABEL} characters` };
    next.label = label;
  }
  if (input.color !== undefined && input.color !== null) {
    if (!(TAG_COLORS as readonly unknown[]).includes(input.color)) return { problem: `color: must be one of ${TAG_COLORS.join(', ')}` };
    next.color = input.color as string;
  }
  const setsEmoji = typeof input.emoji === 'string' && input.emoji !== '';
  const setsIcon = typeof input.icon === 'string' && input.icon !== '';
  if (setsEmoji && setsIcon) return { problem: 'emoji, icon: a tag has an emoji or an icon, not both' };
  for (const member of ['emoji', 'icon'] as const) {
    const value = input[member];
    if (value === undefined) continue;
    if (value === null || value === '') {
      next[member] = null;
      continue;
    }
    if (typeof value !== 'string' || value.length > MAX_DECORATION) return { problem: `${member}: must be a string of at most ${MAX_DECORATION} characters (or null to remove it)` };
    if (member === 'emoji') {
      const code = emojiOf(value);
      if (!code) return { problem: `emoji: ${JSON.stringify(value)} is not an emoji (a character such as 🎉, or its code such as 1f389)` };
      next.emoji = code;
      next.icon = null;
    } else {
      if (!ICON_NAME.test(value)) return { problem: `icon: ${JSON.stringify(value)} is not an icon name (letters, digits and "-")` };
      next.icon = value;
      next.emoji = null;
    }
  }
  return { value: next };
}

/**
 * A page's tags as a change or frontmatter gives them: a list of slugs, of `{tag, primary?}` (Git
 * Sync's frontmatter) or of RevisionPageTag (`{tag: {kind: 'tag', tag}, primary?}`, what reads
 * answer), at most MAX_PAGE_TAGS, each once, at most one primary. Whether the revision defines
 * them is the caller's to check.
 */
export function pageTagsFrom(value: unknown): Checked<PageTag[]> {
  if (!Array.isArray(value)) return { problem: 'must be a list of tag slugs or { tag, primary? } (null removes them)' };
  if (value.length > MAX_PAGE_TAGS) return { problem: `at most ${MAX_PAGE_TAGS} per page` };
  const out: PageTag[] = [];
  for (const [i, entry] of value.entries()) {
    let slug: unknown = entry;
    let primary: unknown;
    if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
      const record = entry as Record<string, unknown>;
      const extra = Object.keys(record).find((key) => key !== 'tag' && key !== 'primary');
      if (extra) return { problem: `[${i}]: ${extra}: not a member of a page tag` };
      slug = record.tag;
      primary = record.primary;
      if (typeof slug === 'object' && slug !== null && !Array.isArray(slug)) {
        const ref = slug as Record<string, unknown>;
        if (ref.kind !== 'tag') return { problem: `[${i}].tag: kind must be tag` };
        if (ref.space !== undefined && ref.space !== null) return { problem: `[${i}].tag: space: a page carries the tags of its own space` };
        slug = ref.tag;
      }
    }
    const problem = tagSlugProblem(slug);
    if (problem) return { problem: `[${i}]: ${problem}` };
    if (primary !== undefined && primary !== null && typeof primary !== 'boolean') return { problem: `[${i}].primary: must be a boolean` };
    if (out.some((t) => t.tag === slug)) return { problem: `[${i}]: ${JSON.stringify(slug)} is listed twice` };
    out.push(primary === true ? { tag: slug as string, primary: true } : { tag: slug as string });
  }
  if (out.filter((t) => t.primary).length > 1) return { problem: 'at most one primary tag' };
  return { value: out };
}

/** A revision row's `tags` (entries of another shape are left out), in order. */
export function tagsOf(json: unknown): TagSnapshot[] {
  if (!Array.isArray(json)) return [];
  return json.flatMap((entry) => {
    const e = entry as Record<string, unknown> | null;
    if (!e || typeof e.slug !== 'string' || typeof e.label !== 'string') return [];
    return [
      {
        slug: e.slug,
        label: e.label,
        color: typeof e.color === 'string' ? e.color : DEFAULT_TAG_COLOR,
        emoji: typeof e.emoji === 'string' ? e.emoji : null,
        icon: typeof e.icon === 'string' ? e.icon : null,
      },
    ];
  });
}

/** A tag as a revision row stores it (and RevisionTag answers it): emoji and icon only when set. */
export function storedTag(tag: TagSnapshot): Record<string, string> {
  return { slug: tag.slug, label: tag.label, color: tag.color, ...(tag.emoji !== null && { emoji: tag.emoji }), ...(tag.icon !== null && { icon: tag.icon }) };
}
