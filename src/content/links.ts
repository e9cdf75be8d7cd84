/**
 * The links of a revision: every target (a page, a file, a URL or an OpenAPI spec) the
 * documents of some of its pages reference, with the pages it is found on,
 * whether it resolves in the revision, and the counts a link report shows.
 * Pure: the caller loads the pages, the files and the references
 * (DocumentReference rows, extracted when a document is stored).
 */

/** A reference as stored (`DocumentReference`): the kind of content and its id, or the URL. */
export interface StoredReference {
  targetKind: string;
  target: string;
}

import type { ContentRef } from './document/model.ts';
import type { PageSnapshot } from './snapshot.ts';

/** `ok`; `broken`: the page or file is not in the revision, or the organization has no spec of that slug; `in-app`: a URL into this service's app. */
export type LinkStatus = 'ok' | 'broken' | 'in-app';

export type LinkTarget =
  | { kind: 'page'; pageId: string }
  | { kind: 'file'; fileId: string }
  | { kind: 'url'; url: string }
  | { kind: 'openapi'; specSlug: string };

/** One target and every page that links to it. */
export interface Link {
  /** `<kind>:<id or URL>`, unique; links are sorted by it. */
  key: string;
  status: LinkStatus;
  target: LinkTarget;
  /** The pages whose document references the target, in the order the pages were given. */
  locations: string[];
}

export interface LinkStats {
  total: number;
  broken: { total: number; changeRequest: number };
}

export interface RevisionLinksInput {
  /** The pages read for links, in the order their locations are listed, each with its document's references. */
  pages: readonly { pageId: string; references: readonly StoredReference[] }[];
  /** Whether the revision has this page; a link to a page it lacks is broken. */
  hasPage: (pageId: string) => boolean;
  /** Whether the revision has this file; a link to a file it lacks is broken. */
  hasFile: (fileId: string) => boolean;
  /** Whether the space's organization has an OpenAPI spec of this slug; a reference to one it lacks is broken. */
  hasOpenAPISpec: (slug: string) => boolean;
  /** The app's base URL: a URL under it is `in-app`. */
  appUrl: string;
}

/** The OpenAPI specs (slugs) the pages reference: what `hasOpenAPISpec` is asked about. */
export function referencedOpenAPISpecs(pages: RevisionLinksInput['pages']): string[] {
  const slugs = new Set<string>();
  for (const { references } of pages) for (const r of references) if (r.targetKind === 'openapi') slugs.add(r.target);
  return [...slugs];
}

/**
 * The links of `pages`, one per target, sorted by kind then target (code unit
 * order, the same on every database). References to other kinds of content
 * (spaces, users...) are not links here: they have no location in the revision to check.
 */
export function revisionLinks(input: RevisionLinksInput): Link[] {
  const byKey = new Map<string, Link>();
  for (const { pageId, references } of input.pages) {
    for (const reference of references) {
      const key = `${reference.targetKind}:${reference.target}`;
      const known = byKey.get(key);
      if (known) {
        if (!known.locations.includes(pageId)) known.locations.push(pageId);
        continue;
      }
      const link = linkTo(reference, input);
      if (link) byKey.set(key, { key, ...link, locations: [pageId] });
    }
  }
  // Keys compare as (kind, target): no kind is a prefix of another, so the comparison is decided within the kind or, when kinds are equal, within the target.
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function linkTo(reference: StoredReference, input: RevisionLinksInput): Pick<Link, 'status' | 'target'> | null {
  switch (reference.targetKind) {
    case 'page':
      return { status: input.hasPage(reference.target) ? 'ok' : 'broken', target: { kind: 'page', pageId: reference.target } };
    case 'file':
      return { status: input.hasFile(reference.target) ? 'ok' : 'broken', target: { kind: 'file', fileId: reference.target } };
    case 'url':
      return { status: reference.target.startsWith(`${input.appUrl}/`) ? 'in-app' : 'ok', target: { kind: 'url', url: reference.target } };
    case 'openapi':
      return { status: input.hasOpenAPISpec(reference.target) ? 'ok' : 'broken', target: { kind: 'openapi', specSlug: reference.target } };
    default:
      return null;
  }
}

/**
 * What a page's settings point at (its cover's images, its canonical and alternate links), as
 * stored references: links of the page as much as its document's are, so a cover whose file is
 * gone is a broken link of the report.
 */
export function pageSettingReferences(page: Pick<PageSnapshot, 'cover' | 'metaLinks'>): StoredReference[] {
  const refs: (ContentRef | undefined)[] = [page.cover?.ref, page.cover?.refDark, page.metaLinks?.canonical, ...(page.metaLinks?.alternates ?? [])];
  const out: StoredReference[] = [];
  for (const ref of refs) {
    if (!ref || ('space' in ref && ref.space !== undefined)) continue;
    const id = (ref as Record<string, unknown>)[ref.kind];
    if ((ref.kind === 'page' || ref.kind === 'file' || ref.kind === 'url') && typeof id === 'string') out.push({ targetKind: ref.kind, target: id });
  }
  return out;
}

/**
 * Counts over every link (whatever a status filter keeps). `broken.changeRequest` counts the
 * broken links when they are a change request's content, and is 0 for a space's.
 */
export function linkStats(links: readonly Link[], inChangeRequest: boolean): LinkStats {
  const broken = links.filter((l) => l.status === 'broken').length;
  return { total: links.length, broken: { total: broken, changeRequest: inChangeRequest ? broken : 0 } };
}
