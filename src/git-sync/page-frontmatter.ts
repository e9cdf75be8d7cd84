/**
 * The page metadata a Git Sync page file carries in its YAML frontmatter, as
 * GitBook writes it:
 *
 * ```yaml
 * ---
 * description: What this page is about
 * icon: rocket
 * hidden: true
 * noIndex: true
 * noRobotsIndex: true
 * layout:
 *   width: wide
 *   title:
 *     visible: true
 *   outline:
 *     visible: false
 * ---
 * ```
 *
 * The page's `layout` (RevisionPageLayoutOptions: flat booleans and values)
 * is written GitBook's way, each boolean as `{ visible }`, the cover options
 * under `cover: { visible, size, mask }`. `emoji` is ours (a code point such
 * as `1f680`, the page's `emoji` field). Other keys (`cover`, `coverY`, a
 * `title`) are not read: GitBook takes a page's title from the table of
 * contents or its first heading, never from frontmatter.
 */

/** The metadata of a document page that frontmatter holds. */
export interface PageMeta {
  description: string | null;
  icon: string | null;
  emoji: string | null;
  hidden: boolean;
  noIndex: boolean;
  noRobotsIndex: boolean;
  layout: Record<string, unknown> | null;
}

/** Layout keys in the order GitBook writes them; unknown keys follow, sorted. */
const LAYOUT_ORDER = ['width', 'cover', 'coverSize', 'coverMask', 'title', 'description', 'tableOfContents', 'outline', 'pagination', 'metadata', 'tags', 'actions', 'anchors'];
const COVER_KEYS: Record<string, string> = { cover: 'visible', coverSize: 'size', coverMask: 'mask' };

function nonEmptyString(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The page metadata of parsed frontmatter (anything unreadable is left at its default). */
export function metaFromFrontmatter(frontmatter: Record<string, unknown>): PageMeta {
  return {
    description: typeof frontmatter.description === 'string' ? frontmatter.description : null,
    icon: nonEmptyString(frontmatter.icon),
    emoji: nonEmptyString(frontmatter.emoji),
    hidden: frontmatter.hidden === true,
    noIndex: frontmatter.noIndex === true,
    noRobotsIndex: frontmatter.noRobotsIndex === true,
    layout: layoutFromFrontmatter(frontmatter.layout),
  };
}

/** The frontmatter written for a page's metadata; keys without a value are left out. */
export function frontmatterFromMeta(meta: PageMeta): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (meta.description !== null) out.description = meta.description;
  if (meta.icon !== null) out.icon = meta.icon;
  if (meta.emoji !== null) out.emoji = meta.emoji;
  if (meta.hidden) out.hidden = true;
  if (meta.noIndex) out.noIndex = true;
  if (meta.noRobotsIndex) out.noRobotsIndex = true;
  const layout = meta.layout ? layoutToFrontmatter(meta.layout) : null;
  if (layout && Object.keys(layout).length) out.layout = layout;
  return out;
}

function layoutKeys(layout: Record<string, unknown>): string[] {
  const known = LAYOUT_ORDER.filter((k) => k in layout);
  const rest = Object.keys(layout).filter((k) => !LAYOUT_ORDER.includes(k)).sort();
  return [...known, ...rest];
}

function layoutToFrontmatter(layout: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of layoutKeys(layout)) {
    const value = layout[key];
    if (value === undefined) continue;
    if (key in COVER_KEYS) {
      const cover = isPlainObject(out.cover) ? out.cover : {};
      cover[COVER_KEYS[key]] = value;
      out.cover = cover;
    } else if (key === 'width' || typeof value !== 'boolean') out[key] = value;
    else out[key] = { visible: value };
  }
  return out;
}

function layoutFromFrontmatter(value: unknown): Record<string, unknown> | null {
  if (!isPlainObject(value)) return null;
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key === 'cover' && isPlainObject(entry)) {
      for (const [flat, nested] of Object.entries(COVER_KEYS)) if (entry[nested] !== undefined) out[flat] = entry[nested];
    } else if (isPlainObject(entry) && typeof entry.visible === 'boolean' && Object.keys(entry).length === 1) out[key] = entry.visible;
    else out[key] = entry;
  }
  return Object.keys(out).length ? out : null;
}
