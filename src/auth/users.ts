/** Creating users and issuing tokens: used by the CLI and by tests. */
import type { Db } from '../db/client.ts';
import { ConflictError, NotFoundError } from '../errors/index.ts';
import { newId } from '../ids.ts';
import type { Urls } from '../urls.ts';
import { issueApiToken, type IssueTokenInput } from './tokens.ts';

type UserRow = { id: string; displayName: string; email: string; photoURL: string | null };

/** The user in the API's User shape (as `GET /v1/user` answers). */
export function presentUser(urls: Urls, user: UserRow) {
  return {
    object: 'user' as const,
    id: user.id,
    displayName: user.displayName,
    email: user.email,
    ...(user.photoURL ? { photoURL: user.photoURL } : {}),
    urls: { location: urls.api(`/users/${user.id}`) },
  };
}

/** Issues a new API token for a user; returns the secret (only its hash is stored). */
export async function issueToken(db: Db, userId: string, input: IssueTokenInput = {}): Promise<string> {
  return (await issueApiToken(db, userId, input)).token;
}

export async function createUserWithToken(db: Db, input: { email: string; displayName: string } & IssueTokenInput) {
  const email = input.email.toLowerCase();
  if (await db.user.findUnique({ where: { email } })) {
    throw new ConflictError(`A user with e-mail ${email} already exists; use token:create to issue a token`);
  }
  const user = await db.user.create({ data: { id: newId(), email, displayName: input.displayName.trim() || email } });
  return { user, ...(await issueApiToken(db, user.id, input)) };
}

/** The user with this e-mail address, or a 404 naming it. */
export async function findUserByEmail(db: Db, email: string) {
  const user = await db.user.findUnique({ where: { email: email.toLowerCase() } });
  if (!user) throw new NotFoundError('User with e-mail', email);
  return user;
}

export async function issueTokenForEmail(db: Db, email: string, input: IssueTokenInput = {}) {
  const user = await findUserByEmail(db, email);
  return { user, ...(await issueApiToken(db, user.id, input)) };
}
