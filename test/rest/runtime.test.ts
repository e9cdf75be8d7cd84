/**
 * The REST runtime on its own: what the body keeps of a reply (nulls dropped
 * unless `@keepNull`, every selection of a response key merged), and the
 * documents validated once per schema instead of per request. Served through
 * a small yoga instance, so no database is involved.
 */
import { Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import type { RestRoute } from '../../src/rest/route.ts';
import { pruneNulls, replyShape, useRestRoutes, validateRestDocuments } from '../../src/rest/runtime.ts';
import { schema } from '../../src/schema/index.ts';

/** The reply shape of a document's operation, as the runtime builds it for a route. */
function shapeOf(document: string) {
  const parsed = parse(document);
  const operation = parsed.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const fragments = new Map(
    parsed.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
  );
  return replyShape([operation.selectionSet], fragments);
}

describe('pruneNulls', () => {
  it('keeps the subfields of every selection of a field: direct and through a fragment, or in two fragments', () => {
    const shape = shapeOf(`
      query {
        org { id owner { name } ...OwnerEmail ...OwnerPhoto }
      }
      fragment OwnerEmail on Org { owner { email } }
      fragment OwnerPhoto on Org { owner { photo @keepNull } }
    `);
    const reply = { org: { id: 'o1', owner: { name: 'Ada', email: 'ada@example.com', photo: null } } };
    expect(pruneNulls(reply, shape)).toEqual({ org: { id: 'o1', owner: { name: 'Ada', email: 'ada@example.com', photo: null } } });
  });

  it('merges selections through nested and inline fragments and lists, and drops nulls not marked @keepNull anywhere', () => {
    const shape = shapeOf(`
      query {
        items { ...A ... on Item { meta { b } } }
      }
      fragment A on Item { meta { a c @keepNull } ...B }
      fragment B on Item { meta { d } }
    `);
    const reply = { items: [{ meta: { a: 1, b: null, c: null, d: 4 } }, { meta: { a: null, b: 2, c: 3, d: null } }] };
    expect(pruneNulls(reply, shape)).toEqual({ items: [{ meta: { a: 1, c: null, d: 4 } }, { meta: { b: 2, c: 3 } }] });
  });

  it('keeps the key order of the reply (GraphQL’s, for the runtime type of each object)', () => {
    const shape = shapeOf(`
      query {
        items { ... on Section { object id title urls { published } } ... on Page { object id path title urls { published } } }
      }
    `);
    const page = { object: 'page', id: 'p', path: 'x', title: 'T', urls: { published: 'u' } };
    expect(Object.keys((pruneNulls({ items: [page] }, shape) as any).items[0])).toEqual(['object', 'id', 'path', 'title', 'urls']);
  });
});

const typeDefs = /* GraphQL */ `
  directive @rest(method: String!, path: String!, reply: String, status: Int) on QUERY | MUTATION
  directive @keepNull on FIELD
  type Query { org(id: ID!): Org }
  type Org { id: ID! title: String owner: User }
  type User { name: String email: String photo: String }
`;

const resolvers = {
  Query: { org: (_: unknown, { id }: { id: string }) => ({ id, title: null, owner: { name: 'Ada', email: 'ada@example.com', photo: null } }) },
};

function route(document: string): RestRoute {
  return { method: 'GET', path: '/v1/orgs/{id}', status: 200, reply: 'org', operationName: 'GetOrg', variables: [{ name: 'id', type: 'ID!', source: 'path' }], document };
}

/** A yoga serving `routes`, with a plugin that counts per-request validations (where graphql-armor's rules run). */
function serve(routes: RestRoute[]) {
  const testSchema = createSchema({ typeDefs, resolvers });
  const counter = { validations: 0 };
  const countValidations: Plugin = { onValidate: () => void counter.validations++ };
  const logged: unknown[] = [];
  const logger = { debug: () => {}, info: () => {}, warn: () => {}, error: (...args: unknown[]) => void logged.push(...args) };
  const yoga = createYoga({ schema: testSchema, logging: logger, plugins: [countValidations, useRestRoutes({ routes })] });
  return { yoga, counter, logged };
}

const GET_ORG = `query GetOrg($id: ID!) @rest(method: "GET", path: "/v1/orgs/{id}") {
  org(id: $id) { id title owner { name } ...OrgOwner }
}
fragment OrgOwner on Org { owner { email photo @keepNull } }`;

describe('the REST runtime over HTTP', () => {
  it('answers with every subfield selected for a key, dropping nulls unless @keepNull', async () => {
    const { yoga } = serve([route(GET_ORG)]);
    const res = await yoga.fetch('http://test/v1/orgs/o1');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 'o1', owner: { name: 'Ada', email: 'ada@example.com', photo: null } });
  });

  it('validates a document once, not on every request (where graphql-armor’s rules run)', async () => {
    const { yoga, counter } = serve([route(GET_ORG)]);
    for (let i = 0; i < 3; i++) expect((await yoga.fetch('http://test/v1/orgs/o1')).status).toBe(200);
    expect(counter.validations).toBe(0);
    const graphql = await yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ org(id: "o1") { id } }' }),
    });
    expect(graphql.status).toBe(200);
    expect(counter.validations).toBe(1);
  });

  it('fails every request of a route whose document the schema does not validate, naming the document in the log', async () => {
    const { yoga, logged } = serve([route(GET_ORG.replace('title', 'nope'))]);
    for (let i = 0; i < 2; i++) {
      const res = await yoga.fetch('http://test/v1/orgs/o1');
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ error: { code: 500, message: 'Unexpected error' } });
    }
    expect(String(logged[0])).toMatch(/GetOrg \(GET \/v1\/orgs\/\{id\}\): Cannot query field "nope" on type "Org"/);
  });

  it('answers 500 when the request context cannot be built for a reason it does not say (yoga masks it as unexpected)', async () => {
    const yoga = createYoga({
      schema: createSchema({ typeDefs, resolvers }),
      logging: false,
      context: () => {
        throw new Error('the viewer could not be loaded');
      },
      plugins: [useRestRoutes({ routes: [route(GET_ORG)] })],
    });
    const res = await yoga.fetch('http://test/v1/orgs/o1');
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: 500, message: 'Unexpected error' } });
  });
});

describe('validateRestDocuments', () => {
  it('accepts every generated REST document against the schema', () => {
    expect(() => validateRestDocuments(schema, restRoutes)).not.toThrow();
  });

  it('names each document that fails', () => {
    const broken = restRoutes.filter((r) => r.operationName === 'GetSiteStructure').map((r) => ({ ...r, document: r.document.replace('sectionGroup', 'sectionGroupz') }));
    expect(() => validateRestDocuments(schema, broken)).toThrow(/^Invalid REST documents:\nGetSiteStructure \(GET \/v1\/orgs\/\{organizationId\}\/sites\/\{siteId\}\/structure\): Cannot query field "sectionGroupz"/);
  });
});
