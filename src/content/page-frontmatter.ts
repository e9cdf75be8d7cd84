/**
 * The page metadata a page's Markdown carries in its YAML frontmatter, as
 * GitBook's Git Sync writes it (and as change request Markdown sets it):
 *
 * ```yaml
 * ---
 * description: What this page is about
 * icon: rocket
 * cover: ../.gitbook/assets/banner.png
 * coverY: -40
 * hidden: true
 * noIndex: true
 * noRobotsIndex: true
 * vars:
 *   product: Acme
 * tags:
 *   - beta
 *   - tag: new
 *     primary: true
 * layout:
 *   width: wide
 *   cover:
 *     visible: true
 *     size: hero
 *   title:
 *     visible: true
 * ---
 * ```
 *
 * The page's `layout` (RevisionPageLayoutOptions: flat booleans and values)
 * is written GitBook's way, each boolean as `{ visible }`, the cover options
 * under `layout.cover: { visible, size, mask }`. The cover image is the
 * top-level `cover` (a path relative to the page file, or a URL), or
 * `cover: { light, dark }` with a dark-theme image; `coverY` its vertical
 * position. `tags` lists the slugs of the tags the page carries (defined in
 * `.gitbook/tags.yaml`), `{ tag, primary: true }` for the primary one. Ours, where GitBook writes nothing we know of: `emoji` (a code
 * point such as `1f680`), `coverHeight`, `metaLinks: { canonical, alternates }`
 * (paths of pages or URLs), `computed` and `computedSeed`. A `title` is not
 * read: GitBook takes a page's title from the table of contents or its first
 * heading, never from frontmatter.
 */
import { defaultHref, hrefToRef } from './document/markdown-syntax.ts';
import type { ContentRef } from './document/model.ts';
import type { PageCover, PageMetaLinks, PageTag, Variables } from './snapshot.ts';
import { pageTagsFrom } from './tags.ts';

/** The metadata of a document page that frontmatter holds. */
export interface PageMeta {
  description: string | null;
  icon: string | null;
  emoji: string | null;
  hidden: boolean;
  noIndex: boolean;
  noRobotsIndex: boolean;
  layout: Record<string, unknown> | null;
  cover: PageCover | null;
  metaLinks: PageMetaLinks | null;
  variables: Variables | null;
  computed: Record<string, unknown> | null;
  computedSeed: string | null;
  tags: PageTag[] | null;
}

/** Resolves an href of frontmatter (relative to the page's file) to what it names; null when it names nothing. */
export type ResolveHref = (href: string) => ContentRef | null;
/** The href frontmatter writes for a reference; null when it has none (then `/files/<id>`, `/pages/<id>`, the URL). */
export type HrefFor = (ref: ContentRef) => string | null;

/** The longest string value a variable may hold (VariableValue). */
export const MAX_VARIABLE_STRING = 256;
/** Variable names: what an expression can read as `space.vars.<name>`. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

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
export function metaFromFrontmatter(frontmatter: Record<string, unknown>, resolveHref?: ResolveHref): PageMeta {
  const ref = (href: unknown): ContentRef | null => (typeof href === 'string' && href.trim() !== '' ? hrefToRef(href.trim(), resolveHref) : null);
  return {
    description: typeof frontmatter.description === 'string' ? frontmatter.description : null,
    icon: nonEmptyString(frontmatter.icon),
    emoji: nonEmptyString(frontmatter.emoji),
    hidden: frontmatter.hidden === true,
    noIndex: frontmatter.noIndex === true,
    noRobotsIndex: frontmatter.noRobotsIndex === true,
    layout: layoutFromFrontmatter(frontmatter.layout),
    cover: coverFromFrontmatter(frontmatter, ref),
    metaLinks: metaLinksFromFrontmatter(frontmatter.metaLinks, ref),
    variables: variablesFromFrontmatter(frontmatter.vars),
    computed: isPlainObject(frontmatter.computed) && typeof frontmatter.computed.type === 'string' ? frontmatter.computed : null,
    computedSeed: nonEmptyString(frontmatter.computedSeed),
    tags: tagsFromFrontmatter(frontmatter.tags),
  };
}

/** Frontmatter `tags`: the entries a page tag may be (a slug, `{ tag, primary? }`), each once, the first primary one primary. */
export function tagsFromFrontmatter(value: unknown): PageTag[] | null {
  if (!Array.isArray(value)) return null;
  const out: PageTag[] = [];
  for (const entry of value) {
    const [tag] = pageTagsFrom([entry]).value ?? [];
    if (!tag || out.some((t) => t.tag === tag.tag)) continue;
    out.push(tag.primary && out.some((t) => t.primary) ? { tag: tag.tag } : tag);
  }
  return out.length ? out : null;
}

function finiteNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function coverFromFrontmatter(frontmatter: Record<string, unknown>, ref: (href: unknown) => ContentRef | null): PageCover | null {
  const value = frontmatter.cover;
  const light = isPlainObject(value) ? ref(value.light) : ref(value);
  const dark = isPlainObject(value) ? ref(value.dark) : null;
  if (!light) return null;
  const height = finiteNumber(frontmatter.coverHeight);
  return { ref: light, ...(dark && { refDark: dark }), yPos: finiteNumber(frontmatter.coverY) ?? 0, ...(height !== null && { height }) };
}

function metaLinksFromFrontmatter(value: unknown, ref: (href: unknown) => ContentRef | null): PageMetaLinks | null {
  if (!isPlainObject(value)) return null;
  const canonical = ref(value.canonical);
  const alternates = Array.isArray(value.alternates) ? value.alternates.map(ref).filter((r): r is ContentRef => r !== null) : [];
  if (!canonical && alternates.length === 0) return null;
  return { ...(canonical && { canonical }), ...(alternates.length > 0 && { alternates }) };
}

/** Frontmatter `vars`: the entries whose name and value a variable may have (others are left out). */
export function variablesFromFrontmatter(value: unknown): Variables | null {
  if (!isPlainObject(value)) return null;
  const out: Variables = {};
  for (const [name, entry] of Object.entries(value)) {
    if (!VARIABLE_NAME.test(name)) continue;
    if ((typeof entry === 'string' && entry.length <= MAX_VARIABLE_STRING) || typeof entry === 'boolean' || finiteNumber(entry) !== null) out[name] = entry as string | number | boolean;
  }
  return Object.keys(out).length ? out : null;
}

/** The frontmatter written for a page's metadata; keys without a value are left out. */
export function frontmatterFromMeta(meta: PageMeta, hrefFor?: HrefFor): Record<string, unknown> {
  const href = (ref: ContentRef): string => hrefFor?.(ref) ?? (ref.kind === 'url' && typeof ref.url === 'string' ? ref.url : defaultHref(ref));
  const out: Record<string, unknown> = {};
  if (meta.description !== null) out.description = meta.description;
  if (meta.icon !== null) out.icon = meta.icon;
  if (meta.emoji !== null) out.emoji = meta.emoji;
  if (meta.tags) out.tags = meta.tags.map((t) => (t.primary ? { tag: t.tag, primary: true } : t.tag));
  if (meta.cover) {
    out.cover = meta.cover.refDark ? { light: href(meta.cover.ref), dark: href(meta.cover.refDark) } : href(meta.cover.ref);
    out.coverY = meta.cover.yPos;
    if (meta.cover.height !== undefined) out.coverHeight = meta.cover.height;
  }
  if (meta.hidden) out.hidden = true;
  if (meta.noIndex) out.noIndex = true;
  if (meta.noRobotsIndex) out.noRobotsIndex = true;
  if (meta.metaLinks) {
    out.metaLinks = {
      ...(meta.metaLinks.canonical && { canonical: href(meta.metaLinks.canonical) }),
      ...(meta.metaLinks.alternates && { alternates: meta.metaLinks.alternates.map(href) }),
    };
  }
  if (meta.variables) out.vars = meta.variables;
  if (meta.computed) out.computed = meta.computed;
  if (meta.computedSeed !== null) out.computedSeed = meta.computedSeed;
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
