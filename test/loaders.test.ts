/**
 * The request's loaders forget what a write changed, whoever writes: the
 * database client reports every write (in transactions and raw statements
 * too) to the loaders of the execution it happens in, and to no other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, reportingWrites, type Db } from '../src/db/client.ts';
import { newId } from '../src/ids.ts';
import { Loaders, requestLoaders } from '../src/loaders.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';

let database: TestDatabase;
let base: Db;
let db: Db;
let organizationId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  base = createDb(database.config);
  db = reportingWrites(base, (model) => requestLoaders.getStore()?.invalidate(model));
  organizationId = newId();
  await db.organization.create({ data: { id: organizationId, title: 'Loaders' } });
});
afterAll(async () => {
  await base?.$disconnect();
  await database?.drop();
});

async function newSite(title: string) {
  const id = newId();
  await db.site.create({ data: { id, organizationId, title, basename: id } });
  return id;
}

describe('the request loaders', () => {
  it('forget the sites a write in the request changed', async () => {
    const siteId = await newSite('Site');
    const loaders = new Loaders(db);
    await requestLoaders.run(loaders, async () => {
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

  it('keep what writes to other models do not change, and what other requests write', async () => {
    const siteId = await newSite('Kept');
    const loaders = new Loaders(db);
    const other = new Loaders(db);
    await requestLoaders.run(loaders, () => loaders.siteFactsById.load(siteId));
    // Another request writes: this request's cache is its own (it reads its own writes, not others').
    await requestLoaders.run(other, () => db.site.update({ where: { id: siteId }, data: { basename: 'elsewhere' } }));
    await requestLoaders.run(loaders, async () => {
      await db.user.create({ data: { id: newId(), email: `${newId()}@example.com`, displayName: 'Unrelated' } });
      expect((await loaders.siteFactsById.load(siteId)).basename).toBe(siteId);
    });
  });

  it('batch the loads of a tick without caching them', async () => {
    const loaders = new Loaders(db);
    const calls: string[][] = [];
    const batch = () => loaders.batch<string, string>('test', async (keys) => (calls.push([...keys]), keys.map((k) => k.toUpperCase())));
    expect(await Promise.all([batch().load('a'), batch().load('b')])).toEqual(['A', 'B']);
    expect(await batch().load('a')).toBe('A');
    expect(calls).toEqual([['a', 'b'], ['a']]);
  });
});
