import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * `npm run codegen`: prints schema.graphql from the Pothos schema
 * (scripts/print-schema.ts), then turns the REST operation documents into the
 * REST route table and its OpenAPI document. A test fails when it is stale.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: 'src/rest/operations/**/*.graphql',
  generates: {
    'src/rest/generated/routes.ts': { plugins: ['./codegen/rest-routes.cjs'] },
    // The OpenAPI document of the same routes (GET /v1/openapi.json, /docs).
    'src/rest/generated/openapi.json': { plugins: ['./codegen/openapi-document.cjs'] },
  },
  hooks: {},
};

export default config;
