/** Change requests: finding one of a space by id or number, and loading one the caller may act on. */
import type { Action } from '../auth/policies.ts';
import type { Context } from '../context.ts';
import { NotFoundError } from '../errors/index.ts';
import { loadSpace } from './space.ts';

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
