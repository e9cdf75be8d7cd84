/**
 * The API reference: GET /v1/openapi.json (a valid OpenAPI document of
 * exactly the route table, every $ref resolving, no token needed) and /docs
 * (an HTML page whose assets are all served by this server), and the README's
 * list of endpoint groups against the route table.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dereference, validate } from '@scalar/openapi-parser';
import { describe, expect, it } from 'vitest';
import * as groups from '../../codegen/endpoint-groups.cjs';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import { operationIdOf } from '../helpers/rest-fixture.ts';
import { useTestServer } from '../helpers/server.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every `$ref` string under `node`. */
function refsIn(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsIn(item, out);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else refsIn(value, out);
    }
  }
  return out;
}

/** The value at a local JSON pointer (`#/components/schemas/Space`), or undefined. */
function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), doc);
}

describe('GET /v1/openapi.json', () => {
  const { server } = useTestServer();

  it('answers without a token, a document the OpenAPI parser validates', async () => {
    const res = await server.request('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const result = await validate(res.body);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
    expect(result.version).toBe('3.1');
  });

  it('lists exactly the paths and methods of the route table, each with its endpoint\'s operationId', async () => {
    const { body } = await server.request('GET', '/v1/openapi.json');
    const listed = Object.entries(body.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([p, item]) =>
      Object.keys(item)
        .filter((k) => HTTP_METHODS.includes(k))
        .map((m) => `${m.toUpperCase()} ${p} ${item[m]!.operationId}`),
    );
    const served = restRoutes.map((r) => `${r.method} ${r.path} ${operationIdOf(r)}`);
    expect(listed.sort()).toEqual(served.sort());
  });

  it('resolves every $ref, and keeps only the components the operations reference', async () => {
    const { body } = await server.request('GET', '/v1/openapi.json');
    const refs = refsIn(body);
    expect(refs.length).toBeGreaterThan(100);
    expect(refs.filter((ref) => resolvePointer(body, ref) === undefined)).toEqual([]);
    expect(dereference(body).errors).toEqual([]);
    // Reachable from the paths, transitively: nothing else is carried.
    const reachable = new Set<string>();
    const pending = refsIn(body.paths);
    while (pending.length) {
      const ref = pending.pop()!;
      if (reachable.has(ref)) continue;
      reachable.add(ref);
      pending.push(...refsIn(resolvePointer(body, ref)));
    }
    const carried = Object.entries(body.components as Record<string, Record<string, unknown>>)
      .filter(([kind]) => kind !== 'securitySchemes')
      .flatMap(([kind, byName]) => Object.keys(byName).map((name) => `#/components/${kind}/${name}`));
    expect(carried.filter((ref) => !reachable.has(ref))).toEqual([]);
  });

  it("says what the service is, its version, this server's URL and its bearer token scheme", async () => {
    const { body } = await server.request('GET', '/v1/openapi.json');
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
    expect(body.info.title).toBe('Docs publishing API');
    expect(body.info.description).toMatch(/documentation publishing service/);
    expect(body.info.version).toBe(pkg.version);
    expect(body.servers).toEqual([{ url: server.baseUrl, description: expect.any(String) }]);
    expect(body.components.securitySchemes).toEqual({ user: { type: 'http', scheme: 'bearer', description: expect.any(String) } });
    expect(body.security).toEqual([{ user: [] }]);
    const schemes = new Set(
      Object.values(body.paths as Record<string, Record<string, { security?: Array<Record<string, unknown>> }>>)
        .flatMap((item) => Object.values(item))
        .flatMap((op) => (op.security ?? []).flatMap((s) => Object.keys(s))),
    );
    expect([...schemes]).toEqual(['user']);
  });

  it('answers another method with 405 in the REST error shape, and is not a route of the table', async () => {
    const res = await server.request('POST', '/v1/openapi.json', { body: {} });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ error: { code: 405, message: expect.stringContaining('POST') } });
    expect(restRoutes.some((r) => r.path === '/v1/openapi.json')).toBe(false);
    // The REST runtime still answers what is not served.
    expect((await server.request('GET', '/v1/openapi.yaml')).status).toBe(404);
  });
});

describe('/docs', () => {
  const { server } = useTestServer();

  it('answers a page saying what the service is, whose assets are all served here with their content type', async () => {
    const res = await fetch(`${server.baseUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toMatch(/img-src 'self' data:;/);
    const html = await res.text();
    expect(html).toMatch(/<title>Docs publishing API · REST reference<\/title>/);
    // The intro: what this is, and where the token goes.
    expect(html).toMatch(/documentation publishing service/);
    expect(html).toMatch(/<strong>Authorize<\/strong> and enter it as the bearer token/);
    const urls = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!.replace(/&#38;/g, '&'));
    const assets = urls.filter((u) => u.startsWith('/docs/assets/'));
    // Local: a path of this server, not another host (`//host` or a scheme).
    expect(urls.filter((u) => !/^\/(?!\/)/.test(u))).toEqual([]);
    const types: Record<string, RegExp> = { js: /^text\/javascript/, css: /^text\/css/, png: /^image\/png$/ };
    expect(assets.map((a) => a.slice(a.lastIndexOf('/') + 1)).sort()).toEqual(['favicon-32x32.png', 'start.js', 'swagger-ui-bundle.js', 'swagger-ui.css']);
    for (const asset of assets) {
      const answer = await fetch(`${server.baseUrl}${asset}`);
      expect(answer.status, asset).toBe(200);
      expect(answer.headers.get('content-type'), asset).toMatch(types[asset.slice(asset.lastIndexOf('.') + 1)]!);
      expect(answer.headers.get('cache-control'), asset).toContain('immutable');
      if (asset.endsWith('.png')) continue;
      const text = await answer.text();
      // No web fonts: nothing the page runs names a font service or loads a font from elsewhere.
      expect(text).not.toMatch(/fonts\.googleapis|fonts\.gstatic|fonts\.scalar|@font-face/);
    }
    // Swagger UI reads this server's document, draws no model unasked, and asks no validator.
    const start = await (await fetch(`${server.baseUrl}${assets.find((a) => a.endsWith('/start.js'))}`)).text();
    expect(start).toContain('"url":"/v1/openapi.json"');
    expect(start).toContain('"defaultModelsExpandDepth":-1');
    expect(start).toContain('"validatorUrl":null');
  });

  it('answers an unknown asset with 404 and needs no token', async () => {
    expect((await fetch(`${server.baseUrl}/docs/assets/0.0.0/swagger-ui-bundle.js`)).status).toBe(404);
    const html = await (await fetch(`${server.baseUrl}/docs`)).text();
    const base = html.match(/href="(\/docs\/assets\/[^/]+)\//)![1];
    expect((await fetch(`${server.baseUrl}${base}/index.html`)).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/docs/`)).status).toBe(200);
  });
});

describe('README', () => {
  it('lists the endpoint groups with the counts the route table serves (run `npm run codegen`)', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const list = groups.readmeList(groups.endpointGroups(restRoutes));
    expect(groups.readmeSection(readme)).toBe(list);
    expect(list).toContain(`${restRoutes.length} of the`);
  });
});
