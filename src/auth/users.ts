/** Creating users and issuing tokens: used by the CLI and by tests. */
import type { Db } from '../db/client.ts';
import { ConflictError, NotFoundError } from '../errors/index.ts';
import { newId } from '../ids.ts';
import type { Urls } from '../urls.ts';
import { generateToken } from './viewer.ts';

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
export async function issueToken(db: Db, userId: string, label?: string): Promise<string> {
  const { token, hash } = generateToken();
  await db.apiToken.create({ data: { id: newId(), userId, tokenHash: hash, label: label ?? null } });
  return token;
}

export async function createUserWithToken(db: Db, input: { email: string; displayName: string; label?: string }) {
  const email = input.email.toLowerCase();
  if (await db.user.findUnique({ where: { email } })) {
    throw new ConflictError(`A user with e-mail ${email} already exists; use token:create to issue a token`);
  }
  const user = await db.user.create({ data: { id: newId(), email, displayName: input.displayName.trim() || email } });
  return { user, token: await issueToken(db, user.id, input.label) };
}

export async function issueTokenForEmail(db: Db, email: string, label?: string) {
  const user = await db.user.findUnique({ where: { email: email.toLowerCase() } });
  if (!user) throw new NotFoundError('User with e-mail', email);
  return { user, token: await issueToken(db, user.id, label) };
}
