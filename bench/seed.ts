/**
 * Seeds a fresh, migrated database for the REST and site graph benchmarks
 * (createBenchDatabase: SQLite, or a schema of BENCH_DATABASE_URL's
 * PostgreSQL): one user with a token, one organization where the user is
 * admin, one collection, and SPACES spaces (each with its first revision),
 * the first few of them in the collection.
 */
import { createUserWithToken } from '../src/auth/users.ts';
import { createDb } from '../src/db/client.ts';
import { newId } from '../src/ids.ts';
import { createBenchDatabase, type BenchDatabase, type Endpoint } from './harness.ts';

export interface Seed {
  database: BenchDatabase;
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

export async function seed(name: string, options: { spaces?: number; inCollection?: number } = {}): Promise<Seed> {
  const spaces = options.spaces ?? 1000;
  const inCollection = options.inCollection ?? 5;
  const database = await createBenchDatabase(name);
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
      database,
      token,
      userId: user.id,
      organizationId,
      collectionId,
      spaceIds: ordered.map((r) => r.id),
      inCollection: rows.slice(0, inCollection).map((r) => r.id),
      drop: () => database.drop(),
    };
  } catch (error) {
    await database.drop();
    throw error;
  } finally {
    await db.$disconnect();
  }
}

/** The endpoints of the REST benchmark (bench/rest.ts and bench/ab.ts). */
export function restEndpoints(data: { spaceIds: string[]; organizationId: string }): { byId: Endpoint; list: Endpoint } {
  return {
    byId: { key: 'get-space', label: 'GET /v1/spaces/{spaceId}', paths: data.spaceIds.map((id) => `/v1/spaces/${id}`) },
    list: { key: 'list-spaces', label: 'GET /v1/orgs/{organizationId}/spaces?limit=100', paths: [`/v1/orgs/${data.organizationId}/spaces?limit=100`] },
  };
}
