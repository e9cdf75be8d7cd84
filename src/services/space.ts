/** Spaces: loading one the caller may act on, and creating one with its first revision. */
import { SPACE_ACCESS_SELECT } from '../auth/access.ts';
import { authorize, type Action } from '../auth/policies.ts';
import { loadSnapshot, writeRevision } from '../content/revision-store.ts';
import type { Context } from '../context.ts';
import type { Prisma } from '../db/client.ts';
import { jsonInput } from '../db/json.ts';
import { withColumns } from '../db/select.ts';
import { NotFoundError } from '../errors/index.ts';
import { newId } from '../ids.ts';
import { reindexSpace } from '../search/search-index.ts';
import { resolvePosition, type ContentPosition } from './content-position.ts';

/** Deleted spaces stay in the bin this long, restorable, before the sweep removes them. */
export const SPACE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;


/**
 * Loads a space the caller may act on, or answers 404/403. Spaces in the bin
 * are invisible except to `restore` (`inBin: true`). For `space:read`,
 * `shareKey` (the key of an active share link of a published share-link site
 * that publishes the space) lets the caller read it (read-only: the key opens
 * nothing else) and goes into its published URL.
 */
export async function loadSpace<Q extends object>(
  ctx: Context,
  id: string,
  action: Action,
  query?: Q,
  options: { inBin?: boolean; shareKey?: string | null } = {},
) {
  // A site token's holder reads the spaces of its site (Access.space); anything else it is refused.
  ctx.access.requireCaller();
  // What the checks below read, besides what the document selects (Space is in select mode).
  const space = await ctx.db.space.findUnique({ ...withColumns(query ?? {}, { deletedAt: true, ...SPACE_ACCESS_SELECT }), where: { id } });
  if (!space || Boolean(space.deletedAt) !== Boolean(options.inBin)) throw new NotFoundError('Space', id);
  const subject = await ctx.access.space(space, { shareKey: action === 'space:read' ? options.shareKey : null });
  authorize(subject, action, { type: 'Space', id });
  return space;
}

type SpaceQuery = Record<string, unknown>;

/** Creates a space with its first revision: empty, or a copy of `parentRevisionId` (duplicates). */
export async function createSpaceRow(
  ctx: Context,
  query: SpaceQuery,
  data: { organizationId: string; parentId: string | null; title: string; emoji: string; visibility?: string | null; editMode?: string | null; language?: string | null; defaultLevel?: string | null; mergeRules?: Prisma.JsonValue; parentRevisionId?: string | null; position?: ContentPosition | null; after?: string },
) {
  const id = newId();
  const revisionId = newId();
  return ctx.db.$transaction(async (tx) => {
    const position = await resolvePosition(
      tx,
      { organizationId: data.organizationId, parentId: data.parentId, itemId: id },
      data.after ? { after: { type: 'space', space: data.after } } : data.position,
    );
    const space = await tx.space.create({
      ...query,
      data: {
        id,
        organizationId: data.organizationId,
        parentId: data.parentId,
        title: data.title,
        emoji: data.emoji,
        visibility: data.visibility ?? 'private',
        editMode: data.editMode ?? 'live',
        language: data.language ?? null,
        defaultLevel: data.defaultLevel === undefined ? 'inherit' : data.defaultLevel,
        mergeRules: data.mergeRules === undefined ? undefined : jsonInput(data.mergeRules),
        position,
        revisionId,
      },
    });
    if (data.parentRevisionId) {
      // A duplicate starts with a copy of the source's content (documents are shared, not copied).
      const snapshot = await loadSnapshot(tx, data.parentRevisionId, { documents: true, chunks: ctx.revisionChunks });
      await writeRevision(tx, { id: revisionId, spaceId: id, parentId: data.parentRevisionId, type: 'edits', snapshot });
      await reindexSpace(tx, ctx.provider, { spaceId: id, previous: null, current: snapshot });
    } else {
      await tx.revision.create({ data: { id: revisionId, spaceId: id } });
    }
    return space;
  });
}

/** A space row as loadSpace answers it (every column). */
export type SpaceRow = Awaited<ReturnType<typeof loadSpace>>;
