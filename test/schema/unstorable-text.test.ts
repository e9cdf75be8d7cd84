/**
 * Text no database stores, sent to GraphQL: in a variable (a JSON value's
 * member name included), in an argument written in the document, in a
 * variable's default, over HTTP and over graphql-ws. Each is a 400
 * BAD_REQUEST naming where the text was, and nothing is written; the check
 * itself (src/db/storable-text.ts) on its own.
 */
import { describe, expect, it } from 'vitest';
import { unstorableText } from '../../src/db/storable-text.ts';
import { useWsClients } from '../helpers/graphql-ws.ts';
import { databaseFingerprint } from '../helpers/rest-fixture.ts';
import { useTestServer } from '../helpers/server.ts';

const { server, ada } = useTestServer({ users: ['Ada'] });
const wsClient = useWsClients(() => server.baseUrl);

const CREATE = 'mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { id } }';

describe('unstorableText', () => {
  it('finds NUL and unpaired surrogates, and nothing else', () => {
    expect(unstorableText('plain text, tabs\tand\nnewlines, \u0001 and \uFFFF')).toBeNull();
    expect(unstorableText('a pair: \uD83D\uDCD8')).toBeNull();
    expect(unstorableText('a\u0000b')).toBe('must not contain U+0000 (NUL), which cannot be stored');
    expect(unstorableText('ends high \uD83D')).toBe('must not contain the unpaired surrogate U+D83D, which is not a character');
    expect(unstorableText('\uDCD8 starts low')).toBe('must not contain the unpaired surrogate U+DCD8, which is not a character');
    expect(unstorableText('\uDCD8\uD83D reversed')).toMatch(/U\+DCD8/);
  });
});

describe('GraphQL', () => {
  const cases: [string, string, Record<string, unknown> | undefined, string][] = [
    ['a variable', CREATE, { input: { title: 'a\u0000b' } }, '$input.title: must not contain U+0000 (NUL), which cannot be stored'],
    ['an item of a list variable', CREATE, { input: { title: 'Docs', emailDomains: ['example.com', 'x\uD800'] } }, '$input.emailDomains[1]: must not contain the unpaired surrogate U+D800, which is not a character'],
    ['a member name of a JSON value', CREATE, { input: { title: 'Docs', onboardingPreferences: { 'a\u0000': true } } }, '$input.onboardingPreferences.a\u0000: must not contain U+0000 (NUL), which cannot be stored'],
    ['an argument in the document', 'mutation { createOrganization(input: { title: "a\\u0000b" }) { id } }', undefined, 'argument input.title: must not contain U+0000 (NUL), which cannot be stored'],
    ['a variable default', 'mutation($title: String! = "a\\u0000b") { createOrganization(input: { title: $title }) { id } }', undefined, '$title: must not contain U+0000 (NUL), which cannot be stored'],
    ['a query variable', 'query($id: ID!) { organization(id: $id) { id } }', { id: 'org\u0000' }, '$id: must not contain U+0000 (NUL), which cannot be stored'],
  ];

  it.each(cases)('refuses %s: 400 naming it, nothing written', async (_name, query, variables, message) => {
    const before = await databaseFingerprint(server);
    const res = await server.graphql(query, { token: ada.token, variables });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
    expect(await databaseFingerprint(server)).toEqual(before);
  });

  it('refuses a document written with unstorable text every time it comes, and a clean one with a bad variable after it', async () => {
    // yoga parses a text once and hands every request the same document: what its literals hold is
    // found once per document (src/plugins/use-storable-text.ts), and must be refused every time.
    const written = 'mutation { createOrganization(input: { title: "again\\u0000" }) { id } }';
    const clean = 'query($id: ID!) { organization(id: $id) { id } }';
    const before = await databaseFingerprint(server);
    for (let i = 0; i < 3; i++) {
      const res = await server.graphql(written, { token: ada.token });
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]?.message).toBe('argument input.title: must not contain U+0000 (NUL), which cannot be stored');
    }
    // The clean document with a clean variable runs (no such organization: a 404, not a refusal).
    expect((await server.graphql(clean, { token: ada.token, variables: { id: 'none' } })).status).toBe(404);
    const res = await server.graphql(clean, { token: ada.token, variables: { id: 'org\u0000' } });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.message).toBe('$id: must not contain U+0000 (NUL), which cannot be stored');
    expect(await databaseFingerprint(server)).toEqual(before);
  });

  it('refuses it over graphql-ws, for operations and subscriptions alike', async () => {
    const client = wsClient(ada.token);
    const run = (query: string, variables: Record<string, unknown>) =>
      new Promise<unknown>((resolve) => {
        const results: unknown[] = [];
        client.subscribe({ query, variables }, { next: (value) => results.push(value), error: resolve, complete: () => resolve(results) });
      });
    // (graphql-ws sends the errors' extensions as they are: `http` too.)
    const refused = (message: string) => [{ errors: [{ message, extensions: expect.objectContaining({ code: 'BAD_REQUEST' }) }] }];
    expect(await run(CREATE, { input: { title: 'a\u0000b' } })).toEqual(refused('$input.title: must not contain U+0000 (NUL), which cannot be stored'));
    expect(await run('subscription($id: ID!) { jobUpdated(id: $id) { id } }', { id: 'job\u0000' })).toEqual(
      refused('$id: must not contain U+0000 (NUL), which cannot be stored'),
    );
  });

  it('accepts a surrogate pair', async () => {
    const res = await server.graphql('mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { title } }', {
      token: ada.token,
      variables: { input: { title: 'Docs \uD83D\uDCD8' } },
    });
    expect(res.body).toEqual({ data: { createOrganization: { title: 'Docs 📘' } } });
  });
});
