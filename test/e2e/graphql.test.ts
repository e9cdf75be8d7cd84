/**
 * End to end over the real server: GraphQL over HTTP (POST and GET) and over
 * graphql-ws on the same path, authentication, graphql-armor limits, and the
 * health and metrics endpoints.
 */
import type { Client, ExecutionResult } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import { useWsClients } from '../helpers/graphql-ws.ts';
import { useTestServer, type ApiResponse, type GraphQLBody } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });

function post(query: string, options: { token?: string; variables?: Record<string, unknown>; accept?: string } = {}): Promise<ApiResponse<GraphQLBody>> {
  return server.graphql(query, { token: options.token, variables: options.variables, headers: options.accept ? { accept: options.accept } : undefined });
}

function get(query: string, options: { token?: string; variables?: Record<string, unknown> } = {}): Promise<ApiResponse<GraphQLBody>> {
  const params = new URLSearchParams({ query });
  if (options.variables) params.set('variables', JSON.stringify(options.variables));
  return server.request('GET', `/graphql?${params}`, { token: options.token, headers: { accept: 'application/json' } });
}

const VIEWER = /* GraphQL */ `
  query Viewer {
    viewer { object id displayName email }
  }
`;

const ORGANIZATION = /* GraphQL */ `
  query Organization($id: ID!) {
    organization(id: $id) {
      id
      title
      spaces { items { id title permissions { edit } } count }
      collections { items { id title } }
      members(order: asc) { items { role user { displayName } } }
    }
  }
`;

describe('GraphQL over HTTP', () => {
  it('answers the viewer over POST and GET', async () => {
    const viaPost = await post(VIEWER, { token: ada.token });
    expect(viaPost.status).toBe(200);
    expect(viaPost.body).toEqual({ data: { viewer: { object: 'user', id: ada.id, displayName: 'Ada', email: ada.email } } });

    const viaGet = await get(VIEWER, { token: bob.token });
    expect(viaGet.status).toBe(200);
    expect(viaGet.body.data.viewer).toMatchObject({ id: bob.id, displayName: 'Bob' });
  });

  it('runs mutations over POST, and refuses them over GET', async () => {
    const dora = await server.createUser('Dora'); // a user of her own: her organizations are counted
    const org = await post('mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { id title permissions { admin } } }', {
      token: dora.token,
      variables: { input: { title: 'GraphQL Org' } },
    });
    expect(org.status).toBe(200);
    expect(org.body.errors).toBeUndefined();
    expect(org.body.data.createOrganization).toMatchObject({ title: 'GraphQL Org', permissions: { admin: true } });
    const orgId = org.body.data.createOrganization.id;

    const collection = await post('mutation($org: ID!) { createCollection(organizationId: $org, input: { title: "Guides" }) { id title } }', {
      token: dora.token,
      variables: { org: orgId },
    });
    expect(collection.body.errors).toBeUndefined();
    expect(collection.body.data.createCollection.title).toBe('Guides');

    const space = await post(
      'mutation($org: ID!, $input: CreateSpaceInput!) { createSpace(organizationId: $org, input: $input) { id title visibility permissions { edit admin } } }',
      { token: dora.token, variables: { org: orgId, input: { title: 'Getting started', emoji: '🚀' } } },
    );
    expect(space.status).toBe(200);
    expect(space.body.errors).toBeUndefined();
    expect(space.body.data.createSpace).toMatchObject({ title: 'Getting started', visibility: 'private', permissions: { edit: true, admin: true } });

    const overGet = await get('mutation { createOrganization(input: { title: "Nope" }) { id } }', { token: dora.token });
    expect(overGet.status).toBe(405);
    expect(overGet.body.data).toBeUndefined();
    const orgs = await post('{ organizations { count } }', { token: dora.token });
    expect(orgs.body.data.organizations.count).toBe(1);

    const invalid = await post('mutation($org: ID!) { createSpace(organizationId: $org, input: { title: "x" }) { id } }', {
      token: bob.token,
      variables: { org: orgId },
    });
    expect(invalid.status).toBe(404); // Bob is not a member: the organization does not exist for him
    expect(invalid.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('reads an organization with its spaces, collections and members', async () => {
    const orgId = await server.createOrg(ada, 'GraphQL Org');
    const collectionId = (await server.createCollection(ada, orgId, { title: 'Guides' })).id;
    const spaceId = (await server.createSpace(ada, orgId, { title: 'Getting started' })).id;
    await server.addMember(orgId, bob, 'read');

    const asAda = await post(ORGANIZATION, { token: ada.token, variables: { id: orgId } });
    expect(asAda.status).toBe(200);
    expect(asAda.body.errors).toBeUndefined();
    expect(asAda.body.data.organization).toEqual({
      id: orgId,
      title: 'GraphQL Org',
      spaces: { items: [{ id: spaceId, title: 'Getting started', permissions: { edit: true } }], count: 1 },
      collections: { items: [{ id: collectionId, title: 'Guides' }] },
      members: { items: [{ role: 'admin', user: { displayName: 'Ada' } }, { role: 'read', user: { displayName: 'Bob' } }] },
    });

    // The same query over GET, as Bob (a reader): he cannot edit the space.
    const asBob = await get(ORGANIZATION, { token: bob.token, variables: { id: orgId } });
    expect(asBob.status).toBe(200);
    expect(asBob.body.data.organization.spaces.items).toEqual([{ id: spaceId, title: 'Getting started', permissions: { edit: false } }]);
    expect(asBob.body.data.organization.members.items).toHaveLength(2);
  });

  it('answers 401 with extensions.code UNAUTHENTICATED without a valid token', async () => {
    const anonymous = await post(VIEWER);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.data?.viewer ?? null).toBeNull();
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');

    const badToken = await post(VIEWER, { token: 'gb_api_not-a-real-token' });
    expect(badToken.status).toBe(401);
    expect(badToken.body.data).toBeUndefined();
    expect(badToken.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');

    const malformed = await server.request('POST', '/graphql', { headers: { authorization: 'Token abc' }, body: { query: VIEWER } });
    expect(malformed.status).toBe(401);
    expect(malformed.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');

    const anonymousGet = await get(VIEWER);
    expect(anonymousGet.status).toBe(401);
    expect(anonymousGet.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('rejects too many aliases and too deep queries (graphql-armor)', async () => {
    const aliases = Array.from({ length: 50 }, (_, i) => `a${i}: viewer { id }`).join('\n');
    const tooManyAliases = await post(`{ ${aliases} }`, { token: ada.token });
    expect(tooManyAliases.status).toBeLessThan(500);
    expect(tooManyAliases.body.data).toBeUndefined();
    expect(tooManyAliases.body.errors?.[0]?.message).toMatch(/Aliases limit of 30 exceeded, found 50/);

    const fewAliases = Array.from({ length: 5 }, (_, i) => `a${i}: viewer { id }`).join('\n');
    const ok = await post(`{ ${fewAliases} }`, { token: ada.token });
    expect(ok.body.data.a4.id).toBe(ada.id);

    // organization -> collections -> items -> organization -> ... is a real cycle in the schema.
    let nested = 'id';
    for (let i = 0; i < 5; i++) nested = `organization { collections { items { ${nested} } } }`;
    const tooDeep = await post(`query($id: ID!) { organization(id: $id) { collections { items { ${nested} } } } }`, {
      token: ada.token,
      variables: { id: 'refused-before-it-is-read' },
    });
    expect(tooDeep.status).toBeLessThan(500);
    expect(tooDeep.body.data).toBeUndefined();
    expect(tooDeep.body.errors?.[0]?.message).toMatch(/depth limit of 12 exceeded/);

    let absurd = 'id';
    for (let i = 0; i < 40; i++) absurd = `parent { ${absurd} }`;
    const absurdlyDeep = await get(`{ collection(id: "x") { ${absurd} } }`, { token: ada.token });
    expect(absurdlyDeep.status).toBeLessThan(500);
    expect(absurdlyDeep.body.data).toBeUndefined();
    expect(absurdlyDeep.body.errors?.[0]?.message).toMatch(/limit of \d+ exceeded/);
  });

  // graphql-armor's validation rules report their rejections (propagateOnRejection: false)
  // instead of throwing out of validate(), so they are validation errors like any other:
  // GRAPHQL_VALIDATION_FAILED, and 400 for application/graphql-response+json.
  it('answers an armor rejection like any validation error (400 for graphql-response+json)', async () => {
    const accept = 'application/graphql-response+json';
    const plain = await post('{ viewer { nope } }', { token: ada.token, accept });
    expect(plain.status).toBe(400);
    const aliases = Array.from({ length: 50 }, (_, i) => `a${i}: viewer { id }`).join('\n');
    const armored = await post(`{ ${aliases} }`, { token: ada.token, accept });
    expect(armored.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(armored.body.errors?.[0]?.message).toBe('Aliases limit of 30 exceeded, found 50.');
    expect(armored.body.data).toBeUndefined();
    expect(armored.status).toBe(400);

    let deep = 'id';
    for (let i = 0; i < 20; i++) deep = `parent { ${deep} }`;
    const tooDeep = await post(`{ collection(id: "x") { ${deep} } }`, { token: ada.token, accept });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.errors?.every((e) => e.extensions?.code === 'GRAPHQL_VALIDATION_FAILED')).toBe(true);
    // Every limit that is exceeded is reported (here the cost limit too).
    expect(tooDeep.body.errors?.map((e) => e.message)).toContainEqual(expect.stringMatching(/^Query depth limit of 12 exceeded, found \d+\.$/));

    // The token limit stops the parser: a parse error, 400 as well.
    const tooLong = await post(`query($n: [Int] = [${'1 '.repeat(5100)}]) { viewer { id } }`, { token: ada.token, accept });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors?.[0]?.message).toMatch(/Token limit of 5000 exceeded/);
  });
});

describe('health and metrics', () => {
  it('GET /healthz answers 200', async () => {
    const res = await server.request('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /metrics exposes db_queries_total and http_request_duration_seconds', async () => {
    await post(VIEWER, { token: ada.token });
    const res = await server.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    const text = res.body as string;
    expect(text).toContain('db_queries_total');
    expect(text).toContain('http_request_duration_seconds');
    const queries = Number(/^db_queries_total (\d+)/m.exec(text)?.[1]);
    expect(queries).toBeGreaterThan(0);
    expect(text).toMatch(/http_request_duration_seconds_count\{method="POST",route="\/graphql",status="200"\} [1-9]/);
  });
});

describe('GraphQL over graphql-ws', () => {
  const wsClient = useWsClients(() => server.baseUrl);

  /** Runs one operation; resolves with its single result, or with the error the server sent. */
  function run(client: Client, query: string, variables?: Record<string, unknown>) {
    return new Promise<{ result?: ExecutionResult<any>; error?: unknown }>((resolve) => {
      let result: ExecutionResult<any> | undefined;
      client.subscribe(
        { query, variables },
        {
          next: (value) => {
            result = value as ExecutionResult<any>;
          },
          error: (error) => resolve({ error }),
          complete: () => resolve({ result }),
        },
      );
    });
  }

  it('runs the viewer query with the token of connectionParams', async () => {
    const member = await server.createUser('Member');
    const orgId = await server.createOrg(member);
    const client = wsClient(member.token);
    const { result, error } = await run(client, VIEWER);
    expect(error).toBeUndefined();
    expect(result?.errors).toBeUndefined();
    expect(result?.data).toEqual({ viewer: { object: 'user', id: member.id, displayName: 'Member', email: member.email } });

    // Same connection, another operation, with variables.
    const again = await run(client, 'query($id: ID!) { organizations { items { id } } member(organizationId: $id, userId: "nobody") { id } }', { id: 'x' });
    expect(again.result?.data?.organizations).toEqual({ items: [{ id: orgId }] });
    expect(again.result?.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('refuses a connection whose token is not valid at connection_init (4403, with the reason)', async () => {
    for (const connectionParams of [{ authorization: 'Bearer gb_api_not-a-real-token' }, { authorization: 'Basic YWRhOnNlY3JldA==' }]) {
      const client = wsClient(undefined, { connectionParams });
      let acknowledged = false;
      client.on('connected', () => {
        acknowledged = true;
      });
      const { result, error } = await run(client, VIEWER);
      expect(result).toBeUndefined();
      expect(acknowledged).toBe(false);
      const close = error as { code: number; reason: string };
      expect(close.code).toBe(4403);
      expect(close.reason).toMatch(/invalid|revoked|Bearer/i);
    }
  });

  it('answers UNAUTHENTICATED without a token', async () => {
    const { result, error } = await run(wsClient(), VIEWER);
    expect(error).toBeUndefined();
    expect(result?.data?.viewer ?? null).toBeNull();
    expect(result?.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  // onSubscribe parses and validates inside its try: a failure is answered as an `error`
  // message for that operation id, and the socket stays open for the next one.
  it('answers a syntax error with an error message, keeping the connection open', async () => {
    // Kept open between operations, so a socket closed by the server would show.
    const client = wsClient(ada.token, { lazyCloseTimeout: 60_000 });
    let closed = 0;
    client.on('closed', () => {
      closed += 1;
    });
    const first = await run(client, VIEWER);
    expect(first.result?.data?.viewer?.id).toBe(ada.id);

    const broken = await run(client, '{ viewer { id ');
    expect(Array.isArray(broken.error)).toBe(true);
    expect((broken.error as Array<{ message: string }>)[0]?.message).toMatch(/Syntax Error/);

    // A validation error and an armor rejection are answered the same way.
    const invalid = await run(client, '{ viewer { nope } }');
    expect((invalid.error as Array<{ message: string }>)[0]?.message).toMatch(/Cannot query field "nope"/);
    const aliases = Array.from({ length: 50 }, (_, i) => `a${i}: viewer { id }`).join('\n');
    const armored = await run(client, `{ ${aliases} }`);
    expect((armored.error as Array<{ message: string }>)[0]?.message).toBe('Aliases limit of 30 exceeded, found 50.');

    // The same socket still serves the next operation.
    const after = await run(client, VIEWER);
    expect(after.result?.data?.viewer?.id).toBe(ada.id);
    expect(closed).toBe(0);
  });

  it('runs a mutation over the socket', async () => {
    const { result } = await run(wsClient(bob.token), 'mutation { createOrganization(input: { title: "Over WS" }) { title permissions { admin } } }');
    expect(result?.errors).toBeUndefined();
    expect(result?.data?.createOrganization).toEqual({ title: 'Over WS', permissions: { admin: true } });
  });
});
