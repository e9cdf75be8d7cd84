/**
 * The layering of src/ (docs/architecture.md), checked in CI by `npm run lint:deps`.
 * Layers, lowest first: base (errors, ids, config, urls, slug, metrics, worker-pool, json-http, db) -> domain libraries
 * (auth, storage, openapi, content, search, jobs, git-sync, translation, insights) -> request and services
 * (loaders.ts, context.ts, services/) -> GraphQL registration (builder.ts, schema/) ->
 * wiring (server.ts, main.ts, cli.ts, plugins/, rest/). Imports point down only.
 */
const WIRING = '^src/(server|main|cli|job-handlers)\\.ts$|^src/(plugins|rest)/';
const REGISTRATION = '^src/(builder\\.ts$|schema/)';
const SERVICES = '^src/(loaders|context)\\.ts$|^src/services/';
const DOMAIN = '^src/(auth|storage|openapi|content|search|jobs|git-sync|translation|insights)/';
const BASE = '^src/(errors/|db/|ids\\.ts$|config\\.ts$|urls\\.ts$|slug\\.ts$|metrics\\.ts$|worker-pool\\.ts$|json-http\\.ts$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules never import each other in a cycle.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      scope: 'folder',
      comment: 'Folders never import each other in a cycle.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'wiring-is-the-top',
      severity: 'error',
      comment: 'Only wiring imports wiring (server, main, cli, plugins, the REST runtime).',
      from: { path: '^src/', pathNot: WIRING },
      to: { path: WIRING },
    },
    {
      name: 'no-registration-below-schema',
      severity: 'error',
      comment: 'Services and the domain never import the builder or a schema module: importing them must never register GraphQL fields.',
      from: { path: `${SERVICES}|${DOMAIN}|${BASE}` },
      to: { path: REGISTRATION },
    },
    {
      name: 'no-services-below-services',
      severity: 'error',
      comment: 'Domain libraries and the base never import services, the loaders or the request context.',
      from: { path: `${DOMAIN}|${BASE}` },
      to: { path: SERVICES },
    },
    {
      name: 'base-is-the-bottom',
      severity: 'error',
      comment: 'The base (errors, ids, config, urls, slug, metrics, worker-pool, db) imports no domain library.',
      from: { path: BASE },
      to: { path: DOMAIN },
    },
    {
      name: 'no-other-resource-mutations',
      severity: 'error',
      comment: "A schema module never imports another resource's mutations.ts: shared commands live in its service.",
      from: { path: '^src/schema/([^/]+)/', pathNot: '^src/schema/index\\.ts$' },
      to: { path: '^src/schema/[^/]+/mutations\\.ts$', pathNot: '^src/schema/$1/' },
    },
    {
      name: 'schema-registration-root',
      severity: 'error',
      comment: 'Only src/schema/index.ts imports mutations modules (it registers every resource).',
      from: { path: '^src/', pathNot: '^src/schema/' },
      to: { path: '^src/schema/[^/]+/mutations\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/(db|rest)/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
