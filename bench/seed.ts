/**
 * Seeds a fresh, migrated SQLite database for the benchmark: one user with a
 * token, one organization where the user is admin, one collection, and
 * SPACES spaces (each with its first revision), the first few of them in the
 * collection.
 */
import { createTestDatabase } from '../test/helpers/database.ts';
import { createUserWithToken } from '../src/auth/users.ts';
import { createDb } from '../src/db/client.ts';
import { newId } from '../src/ids.ts';

export interface Seed {
  databaseUrl: string;
  databaseFile: string;
  token: string;
  userId: string;
  organizationId: string;
  collectionId: string;
  /** All space ids, in list order (createdAt, id). */
  spaceIds: string[];
  /** The ids of the spaces that are in the collection. */
  inCollection: string[];
  drop(): Promise<void>;
}

export async function seed(options: { spaces?: number; inCollection?: number } = {}): Promise<Seed> {
  const spaces = options.spaces ?? 1000;
  const inCollection = options.inCollection ?? 5;
  if (process.env.TEST_DATABASE_URL) throw new Error('The benchmark runs on SQLite: unset TEST_DATABASE_URL');
  const database = await createTestDatabase();
  const db = createDb(database.config);
  try {
    const { user, token } = await createUserWithToken(db, { email: 'bench@example.com', displayName: 'Bench', label: 'bench' });
    const organizationId = newId();
    await db.organization.create({ data: { id: organizationId, title: 'Bench Org' } });
    await db.member.create({ data: { id: newId(), organizationId, userId: user.id, role: 'admin' } });
    const collectionId = newId();
    await db.collection.create({ data: { id: collectionId, organizationId, title: 'Bench collection', defaultLevel: 'inherit' } });

    const base = Date.UTC(2025, 0, 1);
    const rows = Array.from({ length: spaces }, (_, i) => ({
      id: newId(),
      revisionId: newId(),
      organizationId,
      parentId: i < inCollection ? collectionId : null,
      title: `Space ${String(i).padStart(4, '0')}`,
      emoji: i % 3 === 0 ? '📘' : '',
      visibility: i < inCollection ? 'in-collection' : 'private',
      language: i % 10 === 0 ? 'en' : null,
      position: i,
      createdAt: new Date(base + i * 1000),
      updatedAt: new Date(base + i * 1000),
    }));
    await db.space.createMany({ data: rows });
    await db.revision.createMany({ data: rows.map((r) => ({ id: r.revisionId, spaceId: r.id, createdAt: r.createdAt })) });
    const ordered = [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return {
      databaseUrl: database.url,
      databaseFile: database.config.file!,
      token,
      userId: user.id,
      organizationId,
      collectionId,
      spaceIds: ordered.map((r) => r.id),
      inCollection: rows.slice(0, inCollection).map((r) => r.id),
      drop: () => database.drop(),
    };
  } finally {
    await db.$disconnect();
  }
}
