/**
 * What changed between two contents, as GitBook's RevisionSemanticChanges
 * says it: pages created, edited (the attributes that changed, by page type),
 * moved (to another parent) and deleted; files created, edited and deleted;
 * the space's variables edited; reusable contents created, edited and
 * deleted; tags created, edited (label, and the color, emoji and icon the
 * contract's attributes admit beside it) and deleted. Pages in the tree order
 * of the content they are read from (a deleted page: of the content before),
 * then files, variables, reusable contents and tags (in the order of the
 * content after, deleted ones in the order before). Pure: the caller loads both contents (without documents: a
 * document change is its id's) and says how a file is downloaded.
 */
import { stringify } from 'safe-stable-stringify';
import { pagePaths, pagesInOrder } from './page-tree.ts';
import type { FileSnapshot, PageSnapshot, ReusableContentSnapshot, RevisionSnapshot, TagSnapshot, VariableValue } from './snapshot.ts';

/** What of a content the changes are read from. */
export type ChangeableContent = Pick<RevisionSnapshot, 'pages' | 'files' | 'reusableContents' | 'variables' | 'tags'>;

interface ChangedPage {
  id: string;
  type: string;
  title: string;
  path?: string;
}

interface ChangedFile {
  id: string;
  name: string;
  contentType: string;
  downloadURL: string;
}

type Attribute<T> = { before?: T; after?: T };

export type SemanticChange =
  | { type: 'page_created' | 'page_deleted'; page: ChangedPage }
  | { type: 'page_edited'; page: ChangedPage; attributes: Record<string, Attribute<unknown>> }
  | { type: 'page_moved'; page: ChangedPage; parent: { before?: ChangedPage; after?: ChangedPage } }
  | { type: 'file_created' | 'file_deleted'; file: ChangedFile }
  | { type: 'file_edited'; file: ChangedFile; attributes: Record<string, Attribute<unknown>> }
  | { type: 'variables_edited'; variables: Record<string, Attribute<VariableValue>> }
  | { type: 'reusable_content_created' | 'reusable_content_deleted'; reusableContent: { id: string; title: string; document: string } }
  | { type: 'reusable_content_edited'; reusableContent: { id: string; title: string; document: string }; attributes: Record<string, Attribute<string>> }
  | { type: 'tag_created' | 'tag_deleted'; tag: { slug: string; label: string } }
  | { type: 'tag_edited'; tag: { slug: string; label: string }; attributes: Record<string, Attribute<string>> };

/** The attributes RevisionPage*ChangeAttributes name, by page type, read from a page. */
const PAGE_ATTRIBUTES: Record<string, Record<string, (page: PageSnapshot) => unknown>> = {
  document: {
    title: (p) => p.title,
    description: (p) => p.description,
    slug: (p) => p.slug,
    document: (p) => p.documentHash,
    cover: (p) => p.cover,
    emoji: (p) => p.emoji,
    layout: (p) => p.layout,
    variables: (p) => p.variables,
  },
  group: { title: (p) => p.title, emoji: (p) => p.emoji, slug: (p) => p.slug },
  link: { title: (p) => p.title, emoji: (p) => p.emoji, target: (p) => p.linkTarget },
};

const same = (a: unknown, b: unknown) => stringify(a ?? null) === stringify(b ?? null);

/** `{before, after}` without the side that has no value (null: unset). */
function attribute<T>(before: T | null | undefined, after: T | null | undefined): Attribute<T> {
  const out: Attribute<T> = {};
  if (before !== null && before !== undefined) out.before = before;
  if (after !== null && after !== undefined) out.after = after;
  return out;
}

/** The changes from `before` to `after` (an empty content for a first revision). */
export function semanticChanges(before: ChangeableContent, after: ChangeableContent, options: { fileUrl: (file: FileSnapshot) => string }): SemanticChange[] {
  const changes: SemanticChange[] = [];
  const beforePaths = pagePaths(before.pages);
  const afterPaths = pagePaths(after.pages);
  const changed = (page: PageSnapshot, paths: Map<string, string>): ChangedPage => ({ id: page.id, type: page.kind, title: page.title, path: paths.get(page.id) ?? page.slug });
  const parentOf = (page: PageSnapshot, content: ChangeableContent, paths: Map<string, string>) => {
    const parent = page.parentId === null ? undefined : content.pages.get(page.parentId);
    return parent ? changed(parent, paths) : undefined;
  };

  for (const { page } of pagesInOrder(after.pages)) {
    const was = before.pages.get(page.id);
    if (!was) {
      changes.push({ type: 'page_created', page: changed(page, afterPaths) });
      continue;
    }
    const attributes: Record<string, Attribute<unknown>> = {};
    for (const [name, read] of Object.entries(PAGE_ATTRIBUTES[page.kind] ?? {})) {
      if (!same(read(was), read(page))) attributes[name] = attribute(read(was), read(page));
    }
    if (Object.keys(attributes).length) changes.push({ type: 'page_edited', page: changed(page, afterPaths), attributes });
    if (was.parentId !== page.parentId) {
      changes.push({ type: 'page_moved', page: changed(page, afterPaths), parent: { before: parentOf(was, before, beforePaths), after: parentOf(page, after, afterPaths) } });
    }
  }
  for (const { page } of pagesInOrder(before.pages)) if (!after.pages.has(page.id)) changes.push({ type: 'page_deleted', page: changed(page, beforePaths) });

  const changedFile = (file: FileSnapshot): ChangedFile => ({ id: file.id, name: file.name, contentType: file.contentType, downloadURL: options.fileUrl(file) });
  for (const file of after.files.values()) {
    const was = before.files.get(file.id);
    if (!was) {
      changes.push({ type: 'file_created', file: changedFile(file) });
      continue;
    }
    const attributes: Record<string, Attribute<unknown>> = {};
    if (was.name !== file.name) attributes.name = attribute(was.name, file.name);
    if (was.storageKey !== file.storageKey) attributes.downloadURL = attribute(options.fileUrl(was), options.fileUrl(file));
    if (was.size !== file.size) attributes.size = attribute(was.size, file.size);
    if (was.contentType !== file.contentType) attributes.contentType = attribute(was.contentType, file.contentType);
    const dimensions = (f: FileSnapshot) => (f.width !== null && f.height !== null ? { width: f.width, height: f.height } : null);
    if (!same(dimensions(was), dimensions(file))) attributes.dimensions = attribute(dimensions(was), dimensions(file));
    if (Object.keys(attributes).length) changes.push({ type: 'file_edited', file: changedFile(file), attributes });
  }
  for (const file of before.files.values()) if (!after.files.has(file.id)) changes.push({ type: 'file_deleted', file: changedFile(file) });

  const variables: Record<string, Attribute<VariableValue>> = {};
  for (const name of new Set([...Object.keys(before.variables), ...Object.keys(after.variables)])) {
    const b = Object.hasOwn(before.variables, name) ? before.variables[name] : undefined;
    const a = Object.hasOwn(after.variables, name) ? after.variables[name] : undefined;
    if (b !== a) variables[name] = attribute(b, a);
  }
  if (Object.keys(variables).length) changes.push({ type: 'variables_edited', variables });

  const content = (c: ReusableContentSnapshot) => ({ id: c.id, title: c.title, document: c.documentHash });
  for (const reusable of after.reusableContents.values()) {
    const was = before.reusableContents.get(reusable.id);
    if (!was) {
      changes.push({ type: 'reusable_content_created', reusableContent: content(reusable) });
      continue;
    }
    const attributes: Record<string, Attribute<string>> = {};
    if (was.title !== reusable.title) attributes.title = attribute(was.title, reusable.title);
    if (was.documentHash !== reusable.documentHash) attributes.document = attribute(was.documentHash, reusable.documentHash);
    if (Object.keys(attributes).length) changes.push({ type: 'reusable_content_edited', reusableContent: content(reusable), attributes });
  }
  for (const reusable of before.reusableContents.values()) {
    if (!after.reusableContents.has(reusable.id)) changes.push({ type: 'reusable_content_deleted', reusableContent: content(reusable) });
  }

  const changedTag = (t: TagSnapshot) => ({ slug: t.slug, label: t.label });
  for (const tag of after.tags.values()) {
    const was = before.tags.get(tag.slug);
    if (!was) {
      changes.push({ type: 'tag_created', tag: changedTag(tag) });
      continue;
    }
    const attributes: Record<string, Attribute<string>> = {};
    for (const member of ['label', 'color', 'emoji', 'icon'] as const) if (was[member] !== tag[member]) attributes[member] = attribute(was[member], tag[member]);
    if (Object.keys(attributes).length) changes.push({ type: 'tag_edited', tag: changedTag(tag), attributes });
  }
  for (const tag of before.tags.values()) if (!after.tags.has(tag.slug)) changes.push({ type: 'tag_deleted', tag: changedTag(tag) });
  return changes;
}
