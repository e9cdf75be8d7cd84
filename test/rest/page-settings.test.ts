/**
 * Page settings and variables over HTTP: a page's cover, layout, metaLinks,
 * variables and computed source set through change request content (from the
 * change's fields and from Markdown frontmatter as Git Sync writes it), the
 * space's variables (`set_variables`), both kept by merges per variable, a
 * cover or canonical link as a link of the report (broken when its target is
 * not in the revision), and bad values refused with a 400 that writes nothing.
 * Every 200 body is validated against @gitbook/api's OpenAPI document.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { contentEdits } from '../helpers/content-edits.ts';
import { expectError, useTestServer } from '../helpers/server.ts';

const { server, ada } = useTestServer({ users: ['Ada'] });
const { ok, changeRequest, edit, merge } = contentEdits(server, ada, 'Settings');
let org: string;

beforeAll(async () => {
  org = await server.createOrg(ada);
});

async function page(space: string, id: string, cr?: string) {
  const path = cr ? `/v1/spaces/${space}/change-requests/${cr}/content/page/${id}` : `/v1/spaces/${space}/content/page/${id}`;
  const body = await ok('GET', path);
  assertMatchesSpec(cr ? 'getPageInChangeRequestById' : 'getPageById', 200, body);
  return body;
}

const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

describe('page settings through change request content', () => {
  let space: string;
  let cr: string;
  let home: string;
  let guide: string;
  let banner: string;

  beforeAll(async () => {
    space = (await server.createSpace(ada, org, { title: 'Settings' })).id;
    cr = await changeRequest(space);
    const result = await edit(space, cr, [
      { operation: 'insert_files', files: [{ ref: 'banner.png', name: 'banner.png', contentType: 'image/png', base64: PNG_1X1 }] },
      { operation: 'insert_page', ref: 'guide', title: 'Guide', document: { markdown: '# Guide\n\nText.\n' } },
      {
        operation: 'insert_page',
        ref: 'home',
        document: {
          markdown: [
            '---',
            'description: Start here',
            'cover: ./banner.png',
            'coverY: -30',
            'vars:',
            '  product: Acme',
            '  seats: 5',
            'metaLinks:',
            '  canonical: ./guide.md',
            '  alternates:',
            '    - https://example.fr/accueil',
            'layout:',
            '  width: wide',
            '  outline:',
            '    visible: false',
            '---',
            '',
            '# Home',
            '',
            'Welcome.',
            '',
          ].join('\n'),
        },
      },
    ]);
    home = result.changes.find((c: any) => c.ref === 'home').page.id;
    guide = result.changes.find((c: any) => c.ref === 'guide').page.id;
    banner = result.insertedFiles[0].id;
  });

  it('reads the cover, variables, meta links and layout of Markdown frontmatter, resolving its paths', async () => {
    const body = await page(space, home, cr);
    expect(body.title).toBe('Home');
    expect(body.description).toBe('Start here');
    expect(body.cover).toEqual({ ref: { kind: 'file', file: banner }, yPos: -30 });
    expect(body.variables).toEqual({ product: 'Acme', seats: 5 });
    expect(body.metaLinks).toEqual({ canonical: { kind: 'page', page: guide }, alternates: [{ kind: 'url', url: 'https://example.fr/accueil' }] });
    expect(body.layout).toMatchObject({ width: 'wide', outline: false, title: true });
  });

  it('sets, changes and removes settings from the fields of update_page', async () => {
    await edit(space, cr, [
      {
        operation: 'update_page',
        page: guide,
        cover: { ref: { kind: 'url', url: 'https://cdn.example.com/guide.png' }, refDark: { kind: 'file', file: banner }, yPos: 10, height: 300 },
        layout: { width: 'default', pagination: false },
        computed: { type: 'integration:openapi-sync:reference', props: { spec: 'petstore' } },
        computedSeed: 'seed-42',
      },
      { operation: 'update_page', page: home, variables: null, metaLinks: { canonical: { kind: 'url', url: 'https://example.com/home' } } },
    ]);
    const g = await page(space, guide, cr);
    expect(g.cover).toEqual({ ref: { kind: 'url', url: 'https://cdn.example.com/guide.png' }, refDark: { kind: 'file', file: banner }, yPos: 10, height: 300 });
    expect(g.layout).toMatchObject({ width: 'default', pagination: false });
    expect(g.computed).toEqual({ type: 'integration:openapi-sync:reference', props: { spec: 'petstore' } });
    expect(g.computedSeed).toBe('seed-42');
    const h = await page(space, home, cr);
    expect(h.variables).toBeUndefined();
    expect(h.metaLinks).toEqual({ canonical: { kind: 'url', url: 'https://example.com/home' } });
    expect(h.cover).toEqual({ ref: { kind: 'file', file: banner }, yPos: -30 }); // untouched
  });

  it("sets the space's variables with set_variables, null removing one", async () => {
    await edit(space, cr, [{ operation: 'set_variables', variables: { product: 'Acme', version: '2.1', beta: true } }]);
    await edit(space, cr, [{ operation: 'set_variables', variables: { beta: null, seats: 10 } }]);
    const revision = await ok('GET', `/v1/spaces/${space}/change-requests/${cr}/content`);
    assertMatchesSpec('getRevisionOfChangeRequestById', 200, revision);
    expect(revision.variables).toEqual({ product: 'Acme', version: '2.1', seats: 10 });
  });

  it('merges them into the space', async () => {
    expect((await merge(space, cr)).result).toBe('merge');
    const revision = await ok('GET', `/v1/spaces/${space}/content`);
    assertMatchesSpec('getCurrentRevision', 200, revision);
    expect(revision.variables).toEqual({ product: 'Acme', version: '2.1', seats: 10 });
    expect((await page(space, guide)).computedSeed).toBe('seed-42');
  });

  it('lists covers and canonical links in the link report and the backlinks; a cover of a missing file is broken', async () => {
    const next = await changeRequest(space);
    await edit(space, next, [{ operation: 'update_page', page: home, cover: { ref: { kind: 'file', file: 'no-such-file' } } }]);
    await merge(space, next);
    const links = await ok('GET', `/v1/spaces/${space}/links`);
    assertMatchesSpec('listSpaceLinks', 200, links);
    const item = (kind: string, id: string) =>
      links.items.find((i: any) => i.targetReference?.kind === kind && (i.targetReference.file?.id ?? i.targetReference.url) === id);
    expect(links.items.some((i: any) => i.status === 'broken' && i.locationReferences.some((l: any) => l.page.id === home))).toBe(true);
    expect(links.stats.broken.total).toBe(1);
    expect(item('file', banner)?.locationReferences.map((l: any) => l.page.id)).toEqual([guide]);
    expect(item('url', 'https://example.com/home')?.status).toBe('ok');
    const backlinks = await ok('GET', `/v1/spaces/${space}/content/files/${banner}/backlinks`);
    assertMatchesSpec('listSpaceFileBacklinks', 200, backlinks);
    expect(backlinks.items.map((l: any) => l.page.id)).toEqual([guide]);
  });

  it('refuses bad settings with a 400 naming the change, and writes nothing', async () => {
    const next = await changeRequest(space);
    const before = (await ok('GET', `/v1/spaces/${space}/change-requests/${next}`)).revision;
    const bad = async (change: Record<string, unknown>, message: RegExp) => {
      const res = await server.request('POST', `/v1/spaces/${space}/change-requests/${next}/content`, { token: ada.token, body: { changes: [change] } });
      expectError(res, 400, message);
    };
    await bad({ operation: 'update_page', page: guide, cover: { ref: { kind: 'file', file: banner }, height: 5 } }, /changes\[0\]: cover: height: must be a number from 10 to 700/);
    await bad({ operation: 'update_page', page: guide, cover: { ref: { kind: 'page', page: home } } }, /cover: ref: kind must be file or url/);
    await bad({ operation: 'update_page', page: guide, metaLinks: { canonical: { kind: 'file', file: banner } } }, /metaLinks: canonical: kind must be page or url/);
    await bad({ operation: 'update_page', page: guide, variables: { ok: { nested: true } } }, /variables: ok: must be a string, a number or a boolean/);
    await bad({ operation: 'update_page', page: guide, layout: { width: 'huge' } }, /layout: width: not a value it takes/);
    await bad({ operation: 'update_page', page: guide, computed: { props: {} } }, /computed: type: required/);
    await bad({ operation: 'set_variables', variables: { 'not a name': 1 } }, /variables: "not a name": a name is/);
    await bad({ operation: 'set_variables', variables: { long: 'x'.repeat(257) } }, /variables: long: must be at most 256 characters/);
    await bad({ operation: 'insert_page', document: { markdown: '---\ncover: ./missing.png\n---\n\n# Page\n' } }, /cover: ref: url must be an http\(s\) URL/);
    expect((await ok('GET', `/v1/spaces/${space}/change-requests/${next}`)).revision).toBe(before);
  });
});

describe('merging variables', () => {
  it('keeps variables set on either side, and a variable both set differently is a conflict', async () => {
    const space = (await server.createSpace(ada, org, { title: 'Variables' })).id;
    const base = await changeRequest(space);
    await edit(space, base, [
      { operation: 'set_variables', variables: { product: 'Acme', version: '1.0' } },
      { operation: 'insert_page', ref: 'p', title: 'Page', variables: { a: 1, b: 2 }, document: { markdown: 'Text.\n' } },
    ]);
    await merge(space, base);
    const pageId = (await ok('GET', `/v1/spaces/${space}/content/pages`)).pages[0].id;

    const one = await changeRequest(space);
    const two = await changeRequest(space);
    await edit(space, one, [
      { operation: 'set_variables', variables: { version: '2.0', owner: 'docs' } },
      { operation: 'update_page', page: pageId, variables: { a: 10, b: 2 } },
    ]);
    await edit(space, two, [
      { operation: 'set_variables', variables: { product: 'Acme Cloud' } },
      { operation: 'update_page', page: pageId, variables: { a: 1, b: 2, c: 3 } },
    ]);
    expect((await merge(space, one)).result).toBe('merge');
    expect((await merge(space, two)).result).toBe('merge');
    expect((await ok('GET', `/v1/spaces/${space}/content`)).variables).toEqual({ product: 'Acme Cloud', version: '2.0', owner: 'docs' });
    expect((await page(space, pageId)).variables).toEqual({ a: 10, b: 2, c: 3 });

    const three = await changeRequest(space);
    const four = await changeRequest(space);
    await edit(space, three, [{ operation: 'set_variables', variables: { version: '3.0' } }]);
    await edit(space, four, [{ operation: 'set_variables', variables: { version: '3.1' } }]);
    expect((await merge(space, three)).result).toBe('merge');
    const conflicted = await merge(space, four);
    assertMatchesSpec('mergeChangeRequest', 200, conflicted);
    expect(conflicted.result).toBe('conflicts');
    expect((await ok('GET', `/v1/spaces/${space}/content`)).variables.version).toBe('3.0');
  });
});

describe('expressions on page reads', () => {
  let space: string;
  let pageId: string;

  beforeAll(async () => {
    space = (await server.createSpace(ada, org, { title: 'Expressions' })).id;
    const cr = await changeRequest(space);
    await edit(space, cr, [
      { operation: 'set_variables', variables: { product: 'Acme', seats: 5 } },
      {
        operation: 'insert_page',
        ref: 'p',
        title: 'Pricing',
        variables: { plan: 'pro' },
        document: {
          markdown:
            'Buy <code class="expression">space.vars.product</code> <code class="expression">page.vars.plan</code> for <code class="expression">space.vars.seats * 2</code> seats. ' +
            'Hello <code class="expression">visitor.claims.name ?? "you"</code>. Broken: <code class="expression">space.vars.missing</code>, <code class="expression">space.vars.product(</code>.\n',
        },
      },
    ]);
    await merge(space, cr);
    pageId = (await ok('GET', `/v1/spaces/${space}/content/pages`)).pages[0].id;
  });

  const text = (document: any): string =>
    (document.nodes ?? []).map((n: any) => (n.object === 'text' ? n.leaves.map((l: any) => l.text).join('') : n.type === 'expression' ? `{${n.data.expression}}` : text(n))).join('');

  it('leaves expressions as they are by default', async () => {
    const body = await page(space, pageId);
    expect(text(body.document)).toContain('Buy {space.vars.product} {page.vars.plan}');
  });

  it('evaluates them with evaluated=true, in the document and in Markdown; a wrong one keeps its node with the error', async () => {
    const res = await server.request('GET', `/v1/spaces/${space}/content/page/${pageId}?evaluated=true`, { token: ada.token });
    expect(res.status).toBe(200);
    assertMatchesSpec('getPageById', 200, res.body);
    expect(text(res.body.document)).toBe('Buy Acme pro for 10 seats. Hello you. Broken: {space.vars.missing}, {space.vars.product(}.');
    const errors = res.body.document.nodes[0].nodes.filter((n: any) => n.type === 'expression').map((n: any) => n.data.error);
    expect(errors).toEqual(['unknown variable space.vars.missing', expect.stringContaining('does not parse')]);
    const markdown = await server.request('GET', `/v1/spaces/${space}/content/page/${pageId}?format=markdown&evaluate=true`, { token: ada.token });
    assertMatchesSpec('getPageById', 200, markdown.body);
    expect(markdown.body.markdown).toContain('Buy Acme pro for 10 seats. Hello you.');
  });

  it('evaluates only what reads no visitor with deterministic-only', async () => {
    const body = (await server.request('GET', `/v1/spaces/${space}/content/page/${pageId}?evaluated=deterministic-only`, { token: ada.token })).body;
    expect(text(body.document)).toContain('Buy Acme pro for 10 seats. Hello {visitor.claims.name ?? "you"}.');
  });

  it('refuses an evaluation mode it does not know with a 400', async () => {
    expectError(await server.request('GET', `/v1/spaces/${space}/content/page/${pageId}?evaluated=maybe`, { token: ada.token }), 400, /evaluated: must be true, false or deterministic-only/);
  });
});
