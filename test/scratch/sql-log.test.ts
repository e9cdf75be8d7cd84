import { afterAll, beforeAll, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { createDb } from '../../src/db/client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let token: string;
let log: string[] | null = null;

beforeAll(async () => {
  server = await startTestServer();
  const { parseDatabaseUrl } = await import('../../src/db/provider.ts');
  const { createApp } = await import('../../src/server.ts');
  const db = createDb(parseDatabaseUrl(server.database.url), { onQuery: (sql) => { log?.push(sql); } });
  const app2 = createApp({ config: { ...server.app.config, port: 0 }, db });
  const url = await app2.listen();
  (server as any).base2 = url;
  token = (await server.createUser('Sql')).token;
});
afterAll(() => server.close());

async function seed(withSections: boolean) {
  const r = await server.request('POST', '/v1/orgs', { token, body: { title: 'Org' } }); if (!r.body.id) console.log(r.status, JSON.stringify(r.body)); const org = r.body.id as string;
  const db = server.app.db;
  const siteId = newId();
  const s = [newId(), newId(), newId(), newId()];
  const g = [newId(), newId()];
  await db.site.create({ data: { id: siteId, organizationId: org, title: 'S', basename: `s-${siteId}`, published: true, defaultSectionId: withSections ? s[0] : null } });
  if (withSections) {
    await db.siteSectionGroup.create({ data: { id: g[0]!, siteId, title: 'G', position: 2 } });
    await db.siteSectionGroup.create({ data: { id: g[1]!, siteId, title: 'G2', position: 1, parentGroupId: g[0] } });
    await db.siteSection.create({ data: { id: s[0]!, siteId, title: 'A', path: 'a', position: 1 } });
    await db.siteSection.create({ data: { id: s[1]!, siteId, title: 'B', path: 'b', position: 3, sectionGroupId: g[0] } });
    await db.siteSection.create({ data: { id: s[2]!, siteId, title: 'C', path: 'c', position: 3, sectionGroupId: g[1] } });
  }
  for (let i = 0; i < (withSections ? 3 : 2); i++) {
    const spaceId = newId();
    await db.space.create({ data: { id: spaceId, organizationId: org, title: `Sp${i}`, revisionId: newId() } });
    await db.siteSpace.create({ data: { id: newId(), siteId, sectionId: withSections ? s[i]! : null, spaceId, path: `p${i}`, position: i, isDefault: true } });
  }
  return { org, siteId };
}

it('logs', async () => {
  const orig = (server.app.db as any);
  for (const withSections of [true, false]) {
    const { org, siteId } = await seed(withSections);
    for (const p of ['structure', 'published']) {
      await server.request('GET', `/v1/orgs/${org}/sites/${siteId}/${p}`, { token });
      const before = (await server.app.metrics.dbQueries.get()).values[0]?.value ?? 0;
      const res = await server.request('GET', `/v1/orgs/${org}/sites/${siteId}/${p}`, { token });
      const after = (await server.app.metrics.dbQueries.get()).values[0]?.value ?? 0;
      expect(res.status).toBe(200);
      console.log(`sections=${withSections} ${p}: ${after - before}`);
      log = [];
      await fetch(`${(server as any).base2}/v1/orgs/${org}/sites/${siteId}/${p}`, { headers: { authorization: `Bearer ${token}` } });
      console.log(log.map((l, i) => `${i + 1}. ${l.slice(0, 400)}`).join('\n'));
      log = null;
    }
  }
});
