import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * `npm run codegen`: prints schema.graphql from the Pothos schema
 * (scripts/print-schema.ts), then turns the REST operation documents into the
 * REST route table. A test fails when it is stale.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: 'src/rest/operations/**/*.graphql',
  generates: {
    'src/rest/generated/routes.ts': { plugins: ['./codegen/rest-routes.cjs'] },
  },
  hooks: {},
};

export default config;
