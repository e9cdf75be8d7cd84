/**
 * GraphQL Code Generator plugin: the OpenAPI document of exactly the routes
 * this server serves (src/rest/generated/openapi.json, served at
 * GET /v1/openapi.json and rendered at /docs). Paths and methods come from the
 * route table (the same `@rest` documents as routes.ts), so the document
 * cannot list a path the server does not serve; each operation, with its
 * parameters, request body and responses, is GitBook's (the wire contract the
 * tests validate against: `@gitbook/api@0.146.0`, or 0.202.0 for the
 * operations only that version has, or codegen/extras.openapi.json for api.md's endpoints
 * no GitBook document has), with only the components they reference, transitively.
 *
 * 0.146.0 is OpenAPI 3.0 and 0.202.0 is 3.1: the first is upgraded to 3.1
 * (Scalar's upgrader, as its parser does) so that one document holds both.
 * The server adds `info.version` (package.json) and `servers` (PUBLIC_URL)
 * when it first serves the document (src/plugins/use-api-reference.ts).
 */
const fs = require('node:fs');
const path = require('node:path');
const { routesOf } = require('./rest-routes.cjs');

const PREFIX = '/v1';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** What the reference says this service is (README: "API reference"). */
const INFO = {
  title: 'Docs publishing API',
  description: [
    'The REST API of a self-hosted documentation publishing service: organizations, spaces, pages and files,',
    'change requests, collections, docs sites, Git sync and translations. It speaks GitBook\'s REST API',
    '(paths, parameters and bodies as in GitBook\'s OpenAPI document, so GitBook\'s clients work against it);',
    'this document lists only the endpoints this server serves.',
    '',
    'Every endpoint takes a personal API token as `Authorization: Bearer <token>`; the server\'s CLI makes one',
    '(`npm run cli -- user:create --email you@example.com --name You`). The same data is served as GraphQL',
    'at `/graphql`. Errors are `{"error": {"code": <status>, "message": "..."}}`.',
  ].join('\n'),
};

/** The one scheme this server accepts: GitBook names a user's token `user`. */
const SECURITY_SCHEMES = {
  user: {
    type: 'http',
    scheme: 'bearer',
    description: 'A personal API token of a user of this server (`npm run cli -- user:create` prints one).',
  },
};

/** `#/components/<kind>/<name>` of every `$ref` under `node`. */
function refsIn(node, out = []) {
  if (Array.isArray(node)) for (const item of node) refsIn(item, out);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const match = /^#\/components\/([^/]+)\/([^/]+)$/.exec(value);
        if (!match) throw new Error(`Unsupported $ref ${value}`);
        out.push({ kind: match[1], name: match[2] });
      } else refsIn(value, out);
    }
  }
  return out;
}

/** GitBook's tag pages embed its own docs markup (`{% openapi-schemas %}`): meaningless here. */
const withoutGitBookMarkup = (text) => text?.replace(/\{%\s*([\w-]+)[^%]*%\}[\s\S]*?\{%\s*end\1\s*%\}\n?/g, '').trim();

/**
 * The components `roots` reference in `source`, transitively: `kind/name` -> value. A source that
 * borrows (our extras) takes the components it has not from the source it names.
 */
function closure(source, roots) {
  const found = new Map();
  const pending = refsIn(roots);
  while (pending.length) {
    const { kind, name } = pending.pop();
    const key = `${kind}/${name}`;
    if (found.has(key)) continue;
    const value = source.doc.components?.[kind]?.[name] ?? source.borrows?.doc.components?.[kind]?.[name];
    if (value === undefined) throw new Error(`${source.name}: no component ${key}`);
    found.set(key, value);
    pending.push(...refsIn(value));
  }
  return found;
}

/** `node` with each `$ref` to a key of `renames` pointing at the new name. */
function rewriteRefs(node, renames) {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, renames));
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => {
      if (key !== '$ref' || typeof value !== 'string') return [key, rewriteRefs(value, renames)];
      const renamed = renames.get(value.replace('#/components/', ''));
      return [key, renamed ? `#/components/${renamed}` : value];
    }),
  );
}

function openApiDocument(routes, sources) {
  const paths = {};
  const tags = new Map();
  /** Per source (the first document that has the operation), what it gives: operations and path-level parameters. */
  const taken = new Map(sources.map((source) => [source, []]));

  for (const route of routes) {
    if (!route.path.startsWith(`${PREFIX}/`)) throw new Error(`${route.file}: ${route.path} is outside ${PREFIX}`);
    const gitbookPath = route.path.slice(PREFIX.length);
    const method = route.method.toLowerCase();
    const source = sources.find((s) => s.doc.paths[gitbookPath]?.[method]);
    if (!source) throw new Error(`${route.file}: ${route.method} ${gitbookPath} is in no GitBook OpenAPI document`);
    const pathItem = source.doc.paths[gitbookPath];
    const operation = structuredClone(pathItem[method]);
    // One group per operation: GitBook's further tags mark lists (`critical`, `links`) rather than groups.
    operation.tags = operation.tags?.slice(0, 1);
    // This server takes a user's token wherever GitBook takes any kind of token.
    if (operation.security?.length) operation.security = [{ user: [] }];
    for (const tag of operation.tags ?? []) if (!tags.has(tag)) tags.set(tag, source);
    const item = (paths[route.path] ??= {});
    taken.get(source).push({ item, method, operation });
    // Parameters GitBook declares for every method of the path.
    if (pathItem.parameters && !item.parameters) taken.get(source).push({ item, method: 'parameters', operation: structuredClone(pathItem.parameters) });
  }

  // Components by name: the first source's as they are; a later source's component whose name is
  // taken by a different one (or that references a renamed one) gets the source's version as suffix.
  const components = new Map();
  for (const source of sources) {
    const parts = taken.get(source);
    const own = closure(source, parts.map((p) => p.operation));
    const clashes = new Set();
    let grew = true;
    while (grew) {
      grew = false;
      for (const [key, value] of own) {
        if (clashes.has(key) || !components.has(key)) continue;
        const differs = JSON.stringify(components.get(key)) !== JSON.stringify(value) || refsIn(value).some((r) => clashes.has(`${r.kind}/${r.name}`));
        if (differs) {
          clashes.add(key);
          grew = true;
        }
      }
    }
    const suffix = source.name.replace(/^.*@/, '');
    const renames = new Map([...clashes].map((key) => [key, `${key}-${suffix}`]));
    for (const [key, value] of own) {
      const name = renames.get(key) ?? key;
      if (!components.has(name)) components.set(name, rewriteRefs(value, renames));
    }
    for (const { item, method, operation } of parts) item[method] = rewriteRefs(operation, renames);
  }

  // In GitBook's order of its pages; shown by their page title.
  const order = (name) => sources.map((s) => s.doc.tags?.findIndex((t) => t.name === name) ?? -1).find((i) => i >= 0) ?? Infinity;
  const tagObjects = [...tags].sort(([a], [b]) => order(a) - order(b)).map(([name, source]) => {
    const tag = source.doc.tags?.find((t) => t.name === name);
    if (!tag) return { name };
    const { description, ...rest } = tag;
    const text = withoutGitBookMarkup(description);
    return { ...rest, ...(rest['x-page-title'] ? { 'x-displayName': rest['x-page-title'] } : {}), ...(text ? { description: text } : {}) };
  });
  // Group tags under their GitBook parent page (x-tagGroups: Redoc and Scalar show them as the sidebar's sections; Swagger UI ignores them).
  const title = (name) => tagObjects.find((t) => t.name === name)?.['x-page-title'] ?? sources[0].doc.tags?.find((t) => t.name === name)?.['x-page-title'] ?? name;
  const groups = new Map();
  for (const tag of tagObjects) {
    const parent = tag['x-parent'] ?? tag.name;
    const group = groups.get(parent) ?? { name: title(parent), tags: [] };
    group.tags.push(tag.name);
    groups.set(parent, group);
  }

  const byKind = {};
  for (const [key, value] of [...components].sort(([a], [b]) => a.localeCompare(b))) {
    const [kind, name] = key.split('/');
    (byKind[kind] ??= {})[name] = value;
  }
  const sortedPaths = Object.fromEntries(
    Object.entries(paths).map(([p, item]) => [p, Object.fromEntries(Object.entries(item).sort(([a], [b]) => (METHODS.indexOf(a) + 1 || -1) - (METHODS.indexOf(b) + 1 || -1)))]),
  );
  return {
    openapi: '3.1.0',
    info: INFO,
    security: [{ user: [] }],
    tags: tagObjects,
    'x-tagGroups': [...groups.values()],
    paths: sortedPaths,
    components: { ...byKind, securitySchemes: SECURITY_SCHEMES },
  };
}

/**
 * GitBook's documents, first the one whose operation wins: 0.146.0 (the
 * tests' `current`) upgraded to OpenAPI 3.1, then 0.202.0.
 */
async function gitbookDocuments() {
  const { upgrade } = await import('@scalar/openapi-parser');
  const read = (pkg) => structuredClone(require(`${pkg}/spec/openapi.json`));
  // The package does not export its package.json: read beside its spec/.
  const version = (pkg) => JSON.parse(fs.readFileSync(path.join(path.dirname(require.resolve(`${pkg}/spec/openapi.json`)), '../package.json'), 'utf8')).version;
  const name = (pkg) => `@gitbook/api@${version(pkg)}`;
  const current = { name: name('@gitbook/api'), doc: upgrade(read('@gitbook/api')).specification };
  // api.md's endpoints that no GitBook document has, with 0.146.0's components.
  const extras = { name: 'extras', doc: JSON.parse(fs.readFileSync(path.join(__dirname, 'extras.openapi.json'), 'utf8')), borrows: current };
  return [current, { name: name('gitbook-api-next'), doc: read('gitbook-api-next') }, extras];
}

async function plugin(_schema, documents) {
  const doc = openApiDocument(routesOf(documents), await gitbookDocuments());
  return `${JSON.stringify(doc, null, 2)}\n`;
}

module.exports = { plugin, openApiDocument, gitbookDocuments };
