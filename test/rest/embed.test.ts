/**
 * GET /v1/spaces/{spaceId}/embed?url=: what a URL embeds as, read from a page
 * served here: its oEmbed HTML (rich), else its title, site name and icon
 * (link); a page that cannot be read still embeds as a link. A URL that is not
 * http(s) is a 400; private addresses are refused unless the service allows
 * them (here it does, to reach the page served by the test). Bodies are
 * validated against @gitbook/api 0.146.0.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPage } from '../../src/services/embed.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, useTestServer } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'], env: { FETCH_ALLOW_PRIVATE_ADDRESSES: 'true' } });
let site: http.Server;
let base: string;
let space: string;

const PAGES: Record<string, { type: string; body: string }> = {
  '/video': {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html><head><title>A video page</title><meta property="og:site_name" content="Tube">
      <link rel="icon" href="/favicon.png"><link rel="alternate" type="application/json+oembed" href="/oembed?u=video"></head><body>Hi</body></html>`,
  },
  '/oembed': { type: 'application/json', body: JSON.stringify({ type: 'video', title: 'The video', provider_name: 'Tube', html: '<iframe src="https://tube.example/embed/1"></iframe>' }) },
  '/article': {
    type: 'text/html',
    body: '<html><head><title>\n  Release   notes &amp; more </title><meta property="og:title" content="Release notes"><link rel="shortcut icon" href="https://cdn.example/i.ico"></head></html>',
  },
  '/plain': { type: 'text/html', body: '<html><head><title>Plain</title></head></html>' },
  '/report.pdf': { type: 'application/pdf', body: '%PDF-1.4' },
};

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const page = PAGES[new URL(req.url ?? '/', 'http://x').pathname];
    if (!page) {
      res.writeHead(404).end('not here');
      return;
    }
    res.writeHead(200, { 'content-type': page.type }).end(page.body);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const org = await server.createOrg(ada);
  space = (await server.createSpace(ada, org, { title: 'Embeds' })).id;
});

afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())));

async function embed(url: string) {
  const res = await server.request('GET', `/v1/spaces/${space}/embed?url=${encodeURIComponent(url)}`, { token: ada.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  assertMatchesSpec('getEmbedByUrlInSpace', 200, res.body);
  return res.body;
}

describe('embeds', () => {
  it("embeds a page's oEmbed HTML, with its title and provider", async () => {
    expect(await embed(`${base}/video`)).toEqual({
      type: 'rich',
      title: 'The video',
      site: 'Tube',
      icon: `${base}/favicon.png`,
      html: '<iframe src="https://tube.example/embed/1"></iframe>',
    });
  });

  it("embeds any other page as a link with its title, site and icon", async () => {
    expect(await embed(`${base}/article`)).toEqual({ type: 'link', title: 'Release notes', site: '127.0.0.1', icon: 'https://cdn.example/i.ico' });
    expect(await embed(`${base}/plain`)).toEqual({ type: 'link', title: 'Plain', site: '127.0.0.1' });
  });

  it('embeds what it cannot read (not HTML, not found) as a link named by its address', async () => {
    expect(await embed(`${base}/report.pdf`)).toEqual({ type: 'link', title: `${base}/report.pdf`, site: '127.0.0.1' });
    expect(await embed(`${base}/missing`)).toEqual({ type: 'link', title: `${base}/missing`, site: '127.0.0.1' });
  });

  it('refuses what is not an http(s) URL with a 400, and hides the space from outsiders', async () => {
    for (const url of ['ftp://example.com/x', 'not a url', `https://example.com/${'x'.repeat(2100)}`]) {
      expectError(await server.request('GET', `/v1/spaces/${space}/embed?url=${encodeURIComponent(url)}`, { token: ada.token }), 400, /url: must be an absolute http\(s\) URL/);
    }
    expect((await server.request('GET', `/v1/spaces/${space}/embed?url=${encodeURIComponent(`${base}/plain`)}`, { token: bob.token })).status).toBe(404);
  });

  it('reads the first title, Open Graph, icon and oEmbed link of a head', () => {
    expect(readPage('<title>One</title><title>Two</title><meta name="og:site_name" content="S"><link rel="apple-touch-icon" href="/a.png">')).toEqual({
      title: 'One',
      ogTitle: null,
      siteName: 'S',
      icon: '/a.png',
      oembed: null,
    });
  });
});

describe('embeds of private addresses', () => {
  const strict = useTestServer({ users: ['Cleo'] });
  it('are links: the page is not fetched', async () => {
    const org = await strict.server.createOrg(strict.cleo);
    const own = (await strict.server.createSpace(strict.cleo, org, { title: 'Strict' })).id;
    const res = await strict.server.request('GET', `/v1/spaces/${own}/embed?url=${encodeURIComponent(`${base}/article`)}`, { token: strict.cleo.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ type: 'link', title: `${base}/article`, site: '127.0.0.1' });
  });
});
