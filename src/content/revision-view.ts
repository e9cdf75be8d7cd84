/**
 * A revision as it is read through a space (or one of its change requests),
 * and its page tree: the views the API answers with. Built once per request
 * per revision (ctx.loaders.revisionTree).
 */
import type { Prisma } from '../db/client.ts';
import { childrenByParent, pagePaths } from './page-tree.ts';
import type { FileSnapshot, PageSnapshot } from './snapshot.ts';

/** A revision row and the organization of the space it is read through. */
export interface RevisionView {
  id: string;
  spaceId: string;
  organizationId: string;
  parentId: string | null;
  mergedParentId: string | null;
  type: string;
  createdAt: Date;
  /** Map of variable name to value (Revision.variables). */
  variables: Prisma.JsonValue;
  /** [{ id, title, documentHash }] (Revision.reusableContents). */
  reusableContents: Prisma.JsonValue;
  /** [{ source, page }] (Revision.redirects). */
  redirects: Prisma.JsonValue;
  /** [{ slug, label, color, emoji?, icon? }] (Revision.tags). */
  tags: Prisma.JsonValue;
  changeRequestId: string | null;
  /** False when the read asked to leave Git metadata out (`metadata=false`). */
  metadata?: boolean;
}

export interface PageView {
  page: PageSnapshot;
  /** Slugs of the page's ancestors and its own, joined by `/`. */
  path: string;
  revision: RevisionView;
}

export interface FileView {
  file: FileSnapshot;
  revision: RevisionView;
}

export interface RevisionTree {
  byId: Map<string, PageView>;
  /** parent page id (null: the root) -> its children, in order */
  children: Map<string | null, PageView[]>;
}

/** The tree of `revision` from its pages (in any order). */
export function buildRevisionTree(revision: RevisionView, list: readonly PageSnapshot[]): RevisionTree {
  const pages = new Map(list.map((p) => [p.id, p]));
  const paths = pagePaths(pages);
  const byId = new Map<string, PageView>();
  for (const page of list) byId.set(page.id, { page, path: paths.get(page.id) ?? page.slug, revision });
  const children = new Map<string | null, PageView[]>();
  for (const [parentId, siblings] of childrenByParent(pages)) children.set(parentId, siblings.map((p) => byId.get(p.id)!));
  return { byId, children };
}
