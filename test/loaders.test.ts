/**
 * The loaders of executions in progress forget what a write changed, whoever
 * writes: the database client reports the table of every write (Prisma's and
 * raw statements, in transactions too, again when they commit) to the live
 * loaders; loaders no longer running keep theirs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../src/db/client.ts';
import { newId } from '../src/ids.ts';
import { LiveLoaders, Loaders } from '../src/loaders.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';

let database: TestDatabase;
let db: Db;
let organizationId: string;
const live = new LiveLoaders();

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb(database.config, { onWrite: (table) => live.invalidate(table) });
  organizationId = newId();
  await db.organization.create({ data: { id: organizationId, title: 'Loaders' } });
});
afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

async function newSite(title: string) {
  const id = newId();
  await db.site.create({ data: { id, organizationId, title, basename: id } });
  return id;
}

describe('the request loaders', () => {
  it('forget the sites a write changed', async () => {
    const siteId = await newSite('Site');
    const loaders = new Loaders(db);
    await live.during(loaders, async () => {
      expect((await loaders.siteFactsById.load(siteId)).basename).toBe(siteId);
      await db.site.update({ where: { id: siteId }, data: { basename: 'renamed' } });
      expect((await loaders.siteFactsById.load(siteId)).basename).toBe('renamed');
      await db.$transaction(async (tx) => {
        await tx.site.update({ where: { id: siteId }, data: { basename: 'in-a-transaction' } });
      });
      expect((await loaders.siteFactsById.load(siteId)).basename).toBe('in-a-transaction');
      await db.$executeRaw`UPDATE "Site" SET "basename" = 'raw' WHERE "id" = ${siteId}`;
      expect((await loaders.siteFactsById.load(siteId)).basename).toBe('raw');
    });
  });

  it('keep what writes to other models change, and stop forgetting once their execution ended', async () => {
    const siteId = await newSite('Kept');
    const loaders = new Loaders(db);
    const other = new Loaders(db);
    await live.during(loaders, async () => {
      await loaders.siteFactsById.load(siteId);
      await live.during(other, () => db.user.create({ data: { id: newId(), email: `${newId()}@example.com`, displayName: 'Unrelated' } }));
      expect(await loaders.siteFactsById.load(siteId)).toMatchObject({ basename: siteId });
      // Another execution's write reaches this one's loaders too.
      await live.during(other, () => db.site.update({ where: { id: siteId }, data: { basename: 'by-another' } }));
      expect(await loaders.siteFactsById.load(siteId)).toMatchObject({ basename: 'by-another' });
    });
    // Ended: no longer live, its cache is what it was.
    await db.site.update({ where: { id: siteId }, data: { basename: 'later' } });
    expect(await loaders.siteFactsById.load(siteId)).toMatchObject({ basename: 'by-another' });
  });

  it('batch the loads of a tick without caching them', async () => {
    const loaders = new Loaders(db);
    const calls: string[][] = [];
    const batch = () => loaders.batch<string, string>('test', async (keys) => (calls.push([...keys]), keys.map((k) => k.toUpperCase())));
    expect(await Promise.all([batch().load('a'), batch().load('b')])).toEqual(['A', 'B']);
    expect(await batch().load('a')).toBe('A');
    expect(calls).toEqual([['a', 'b'], ['a']]);
  });

  it('load what follows gathered lookups in one batch, whichever lookup answers first', async () => {
    const loaders = new Loaders(db);
    const calls: string[][] = [];
    const users = () => loaders.batch<string, string>('users', async (keys) => (calls.push([...keys]), [...keys]));
    const answer = (ms: number, value: string) => new Promise<string>((resolve) => setTimeout(resolve, ms, value));
    const gathering = loaders.gathering('people');
    const userOf = async (lookup: Promise<string>) => {
      const name = await lookup;
      await gathering.settled();
      return users().load(name);
    };
    // The first lookup answers long before the second: without the gathering its user goes alone.
    const found = await Promise.all([userOf(gathering.join(answer(1, 'rita'))), userOf(gathering.join(answer(40, 'eve')))]);
    expect(found).toEqual(['rita', 'eve']);
    expect(calls.map((keys) => keys.sort())).toEqual([['eve', 'rita']]);
    // A failed lookup settles the gathering too.
    await expect(gathering.join(Promise.reject(new Error('gone')))).rejects.toThrow('gone');
    await gathering.settled();
  });
});
