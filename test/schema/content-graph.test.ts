/**
 * The content graph in one GraphQL request: spaces with their revision (page
 * tree, documents, files) and change requests (with their own content). The
 * number of SQL statements does not grow with the number of spaces.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.ts';

// Without the process's cache of revision chunks, which would make a request's statements depend on
// what the requests before it read (one statement fewer when every chunk is already kept).
const { server, ada } = useTestServer({ users: ['Ada'], env: { REVISION_CACHE_ENTRIES: '0' } });

/** An organization of `n` spaces, each with the getting-started template and a draft change request adding a page. */
async function seed(n: number): Promise<string> {
  const org = await server.createOrg(ada, `Org of ${n}`);
  for (let i = 0; i < n; i++) {
    const space = (await server.createSpace(ada, org, { title: `Space ${i}` })).id;
    expect((await server.request('POST', `/v1/spaces/${space}/content/template`, { token: ada.token, body: { id: 'getting-started' } })).status).toBe(201);
    const cr = (await server.request('POST', `/v1/spaces/${space}/change-requests`, { token: ada.token, body: { subject: `CR ${i}` } })).body;
    const res = await server.request('POST', `/v1/spaces/${space}/change-requests/${cr.id}/content`, {
      token: ada.token,
      body: { changes: [{ operation: 'insert_page', title: `Draft ${i}`, document: { markdown: `Text of draft ${i}.` } }] },
    });
    expect(res.status).toBe(200);
  }
  return org;
}

const query = `query($id: ID!) {
  organization(id: $id) {
    spaces(limit: 100) {
      items {
        id
        changeRequestsCount
        revision {
          id
          pagesCount
          pages { id title document pages { id title path document } }
          files { id }
        }
        changeRequests(status: draft) {
          number
          subject
          createdBy { id }
          content { pages { title } }
        }
      }
    }
  }
}`;

async function graph(org: string) {
  const res = await server.graphql(query, { token: ada.token, variables: { id: org } });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data.organization.spaces.items as any[];
}

describe('content graph', () => {
  it('returns every space with its page tree, documents and change requests', async () => {
    const org = await seed(2);
    const spaces = await graph(org);
    expect(spaces).toHaveLength(2);
    for (const [i, space] of spaces.entries()) {
      expect(space.changeRequestsCount).toBe(1);
      expect(space.revision.pagesCount).toBe(5);
      expect(space.revision.pages.map((p: any) => p.title)).toEqual(['Welcome', 'Quick start', 'Guides']);
      expect(space.revision.pages[2].pages.map((p: any) => p.path)).toEqual(['guides/writing-content', 'guides/publishing']);
      expect(space.revision.pages[0].document.object).toBe('document');
      expect(space.changeRequests).toHaveLength(1);
      expect(space.changeRequests[0].createdBy.id).toBe(ada.id);
      expect(space.changeRequests[0].content.pages.map((p: any) => p.title)).toEqual(['Welcome', 'Quick start', 'Guides', `Draft ${i}`]);
    }
  });

  it('costs the same number of SQL statements for 3 spaces as for 6', async () => {
    const small = await seed(3);
    const large = await seed(6);
    await graph(small); // warm: the first request pays for nothing extra, but keep the two measured ones alike
    const { statements: forSmall } = await server.countStatements(() => graph(small));
    const { statements: forLarge } = await server.countStatements(() => graph(large));
    expect(forLarge).toBe(forSmall);
    expect(forSmall).toBeLessThanOrEqual(14);
  });
});
