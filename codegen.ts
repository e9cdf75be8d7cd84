import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * `npm run codegen`: prints schema.graphql from the Pothos schema
 * (scripts/print-schema.ts), then turns the REST operation documents into
 * typed documents and the REST route table. A test fails when these are stale.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: 'src/rest/operations/**/*.graphql',
  generates: {
    'src/rest/generated/operations.ts': {
      plugins: ['typescript-operations', 'typed-document-node'],
      config: { enumsAsTypes: true, useTypeImports: true, skipTypename: true },
    },
    'src/rest/generated/routes.ts': { plugins: ['./codegen/rest-routes.cjs'] },
  },
  hooks: {},
};

export default config;
