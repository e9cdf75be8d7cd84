/** Slugs: the URL path segments made from titles (site basenames, section and site space paths). */

/** A URL path segment from a title: `Getting Started!` -> `getting-started`; `fallback` when nothing is left. */
export function slugify(text: string, fallback: string, max = 100): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/g, '');
  return slug || fallback;
}

/** `base`, or `base-2`, `base-3`...: the first not in `taken`, at most `max` characters. */
export function uniqueSlug(base: string, taken: ReadonlySet<string>, max = 100): string {
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) {
    const suffix = `-${i}`;
    const candidate = `${base.slice(0, max - suffix.length).replace(/-+$/g, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
