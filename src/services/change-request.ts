/**
 * Change requests: finding one of a space by id or number, loading one the
 * caller may act on, and moving one to new content.
 */
import { z } from 'zod';
import type { Action } from '../auth/policies.ts';
import { documentProblem } from '../content/document/validate.ts';
import { writeRevision, type WriteRevisionInput } from '../content/revision-store.ts';
import type { Context } from '../context.ts';
import type { Prisma, Tx } from '../db/client.ts';
import { nullableJsonInput } from '../db/json.ts';
import type { Provider } from '../db/provider/config.ts';
import { lockRowStatement } from '../db/provider/statements.ts';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors/index.ts';
import { newId } from '../ids.ts';
import { loadSpace } from './space.ts';

/** The contract's ChangeRequestSubject (requests and replies alike): the inputs that take a subject validate it with this. */
export const changeRequestSubject = z.string().max(100, 'must be at most 100 characters');

/** A change request's subject and description as a caller changes them (undefined: unchanged; a null description removes it). */
export interface ChangeRequestFieldsInput {
  subject?: string | null;
  description?: unknown;
}

/**
 * The row changes of `input` (the subject already checked by `changeRequestSubject`); 400 when the
 * description is not a document. Empty when nothing changes.
 */
export function changeRequestFieldsData(input: ChangeRequestFieldsInput): Prisma.ChangeRequestUpdateManyMutationInput {
  const { subject, description } = input;
  const problem = description === undefined || description === null ? null : documentProblem(description);
  if (problem) throw new InvalidInputError(`description: ${problem}`);
  return {
    ...(subject !== undefined && subject !== null ? { subject } : {}),
    ...(description !== undefined ? { description: nullableJsonInput(description) } : {}),
  };
}

/** Finds a change request of a space by id or by its per-space number. */
export async function findChangeRequest(ctx: Context, spaceId: string, idOrNumber: string) {
  const number = /^\d{1,9}$/.test(idOrNumber) ? Number(idOrNumber) : null;
  const changeRequest = await ctx.db.changeRequest.findFirst({
    where: { spaceId, OR: [{ id: idOrNumber }, ...(number !== null ? [{ number }] : [])] },
  });
  if (!changeRequest) throw new NotFoundError('Change request', idOrNumber);
  return changeRequest;
}

/** A change request the caller may act on (the space's rules decide), by id or number. */
export async function loadChangeRequest(ctx: Context, spaceId: string, idOrNumber: string, action: Action) {
  const space = await loadSpace(ctx, spaceId, action);
  const changeRequest = await findChangeRequest(ctx, space.id, idOrNumber);
  return { space, changeRequest };
}

export interface CommitChangeRequestRevisionInput extends Omit<WriteRevisionInput, 'parentId' | 'changeRequestId'> {
  changeRequest: { id: string; revisionId: string };
  /** What else the change request's row gets with its new revision. */
  data?: Prisma.ChangeRequestUpdateManyMutationInput;
  /** The 409's message when the change request moved meanwhile. */
  conflict: string;
}

/**
 * Moves a change request to new content, in the caller's transaction: writes
 * the revision on top of its current one, and points it there only if nobody
 * else moved it meanwhile (compare-and-set on `revisionId`; 409 otherwise).
 */
export async function commitChangeRequestRevision(tx: Tx, input: CommitChangeRequestRevisionInput): Promise<string> {
  const { changeRequest, data, conflict, ...write } = input;
  const revisionId = await writeRevision(tx, { ...write, parentId: changeRequest.revisionId, changeRequestId: changeRequest.id });
  const moved = await tx.changeRequest.updateMany({
    where: { id: changeRequest.id, revisionId: changeRequest.revisionId },
    data: { ...data, revisionId },
  });
  if (moved.count !== 1) throw new ConflictError(conflict);
  return revisionId;
}

/**
 * The change request `id` as it is now, its row locked until `tx` ends (lockRowStatement): edits,
 * updates and merges of one change request take turns instead of failing each other's
 * compare-and-set, and each works on the content the one before it left.
 */
export async function lockChangeRequest(tx: Tx, provider: Provider, id: string) {
  await lockRow(tx, provider, 'ChangeRequest', id);
  return tx.changeRequest.findUniqueOrThrow({ where: { id } });
}

/** The space `id`'s current revision, its row locked until `tx` ends (lock the space before its change requests). */
export async function lockSpaceRevision(tx: Tx, provider: Provider, id: string): Promise<string> {
  await lockRow(tx, provider, 'Space', id);
  return (await tx.space.findUniqueOrThrow({ where: { id }, select: { revisionId: true } })).revisionId;
}

async function lockRow(tx: Tx, provider: Provider, table: 'Space' | 'ChangeRequest', id: string): Promise<void> {
  const sql = lockRowStatement(provider, table, 'id');
  if (sql) await tx.$queryRawUnsafe(sql, id);
}

/**
 * Opens a change request on `space` (loaded for `change-request:create`) from its current
 * revision, numbered next in the space: an atomic increment, so concurrent creations get distinct
 * numbers. `from` names the issues cluster it was opened from (docs insights).
 */
export async function createChangeRequest<Q extends object>(
  ctx: Context,
  space: { id: string },
  input: { subject?: string | null; description?: Prisma.InputJsonValue | null; conversationsIssuesClusterId?: string | null },
  query?: Q,
) {
  const viewer = ctx.access.requireViewer();
  return ctx.db.$transaction(async (tx) => {
    const { lastChangeRequestNumber, revisionId } = await tx.space.update({
      where: { id: space.id },
      data: { lastChangeRequestNumber: { increment: 1 } },
      select: { lastChangeRequestNumber: true, revisionId: true },
    });
    return tx.changeRequest.create({
      ...(query ?? {}),
      data: {
        id: newId(),
        spaceId: space.id,
        number: lastChangeRequestNumber,
        subject: input.subject ?? '',
        ...(input.description ? { description: input.description } : {}),
        ...(input.conversationsIssuesClusterId ? { conversationsIssuesClusterId: input.conversationsIssuesClusterId } : {}),
        createdById: viewer.userId,
        revisionId,
        revisionInitialId: revisionId,
      },
    });
  });
}
