/**
 * A space's redirects (`.gitbook.yaml`'s `redirects`, old path -> page) over
 * HTTP: set and removed through change request content (`set_redirects`),
 * listed on the revision in GraphQL in the order they were set, merged per
 * old path (a path both sides lead elsewhere is a conflict), one to a page the
 * content no longer has left out, and bad input refused with a 400 that
 * writes nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { contentEdits } from '../helpers/content-edits.ts';
import { expectError, useTestServer } from '../helpers/server.ts';

const { server, ada } = useTestServer({ users: ['Ada'] });
const { ok, changeRequest, merge } = contentEdits(server, ada, 'Redirects');
let org: string;

beforeAll(async () => {
  org = await server.createOrg(ada);
});

async function edit(space: string, cr: string, changes: unknown[]) {
  const body = await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, { changes });
  assertMatchesSpec('updateChangeRequestContent', 200, body, 'next');
  return body;
}

async function redirects(space: string, changeRequestId?: string): Promise<[string, string][]> {
  const res = await server.graphql<{ revisionContent: { redirects: { source: string; page: string }[] } }>(
    'query($space: ID!, $cr: String) { revisionContent(spaceId: $space, changeRequestId: $cr) { redirects { source page } } }',
    { token: ada.token, variables: { space, cr: changeRequestId ?? null } },
  );
  expect(res.body.errors).toBeUndefined();
  return res.body.data!.revisionContent.redirects.map((r) => [r.source, r.page]);
}

describe('redirects', () => {
  let space: string;
  let install: string;
  let guide: string;

  beforeAll(async () => {
    space = (await server.createSpace(ada, org, { title: 'Redirects' })).id;
    const cr = await changeRequest(space);
    await edit(space, cr, [
      { operation: 'insert_page', ref: 'guide', title: 'Guide', document: { markdown: 'Read on.\n' } },
      { operation: 'insert_page', ref: 'install', title: 'Install', into: 'guide', document: { markdown: 'Run it.\n' } },
      // A batch names pages it inserts by their ref; a leading slash is dropped.
      { operation: 'set_redirects', redirects: { 'help/setup': 'install', '/start': 'guide' } },
    ]);
    await merge(space, cr);
    const pages = (await ok('GET', `/v1/spaces/${space}/content/pages`)).pages;
    guide = pages[0].id;
    install = pages[0].pages[0].id;
  });

  it('sets them through change request content and lists them on the revision, in order', async () => {
    expect(await redirects(space)).toEqual([
      ['help/setup', install],
      ['start', guide],
    ]);
  });

  it('changes, adds and removes them (null), and merges them per old path', async () => {
    const one = await changeRequest(space);
    const two = await changeRequest(space);
    await edit(space, one, [{ operation: 'set_redirects', redirects: { 'help/setup': guide, 'old/install': install } }]);
    await edit(space, two, [{ operation: 'set_redirects', redirects: { start: null, faq: guide } }]);
    expect(await redirects(space, one)).toEqual([
      ['help/setup', guide],
      ['start', guide],
      ['old/install', install],
    ]);
    expect((await merge(space, one)).result).toBe('merge');
    expect((await merge(space, two)).result).toBe('merge');
    // In the order of the merged change request, then what only the space had.
    expect(await redirects(space)).toEqual([
      ['help/setup', guide],
      ['faq', guide],
      ['old/install', install],
    ]);

    const three = await changeRequest(space);
    const four = await changeRequest(space);
    await edit(space, three, [{ operation: 'set_redirects', redirects: { faq: install } }]);
    await edit(space, four, [{ operation: 'set_redirects', redirects: { faq: null } }]);
    expect((await merge(space, three)).result).toBe('merge');
    const conflicted = await merge(space, four);
    expect(conflicted.result).toBe('conflicts');
    const gql = await server.graphql<{ mergeChangeRequest: { conflicts: unknown } }>(
      'mutation($space: ID!, $cr: String!) { mergeChangeRequest(spaceId: $space, changeRequestId: $cr) { result conflicts } }',
      { token: ada.token, variables: { space, cr: four } },
    );
    expect(gql.body.data?.mergeChangeRequest.conflicts).toEqual([{ kind: 'redirect', id: 'faq', reason: 'both-modified' }]);
  });

  it('leaves out a redirect to a page the content no longer has', async () => {
    const cr = await changeRequest(space);
    await edit(space, cr, [{ operation: 'delete_page', page: install }]);
    expect(await redirects(space)).toEqual([
      ['help/setup', guide],
      ['faq', install],
      ['old/install', install],
    ]);
    expect(await redirects(space, cr)).toEqual([['help/setup', guide]]);
  });

  it('refuses a bad old path or target with a 400 naming the change, and writes nothing', async () => {
    const cr = await changeRequest(space);
    const before = (await ok('GET', `/v1/spaces/${space}/change-requests/${cr}`)).revision;
    const bad = async (change: Record<string, unknown>, message: RegExp) => {
      const res = await server.request('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, { token: ada.token, body: { changes: [change] } });
      expectError(res, 400, message);
    };
    await bad({ operation: 'set_redirects', redirects: { '../up': guide } }, /changes\[0\]: redirects: "\.\.\/up": an old path is URL path segments/);
    await bad({ operation: 'set_redirects', redirects: { 'has space': guide } }, /redirects: "has space": an old path/);
    await bad({ operation: 'set_redirects', redirects: { ['x'.repeat(513)]: guide } }, /at most 512 characters/);
    await bad({ operation: 'set_redirects', redirects: { old: 'no-such-page' } }, /redirects: "old": no page no-such-page in the change request/);
    await bad({ operation: 'set_redirects', redirects: { old: 42 } }, /redirects: "old": must be a page id, or null to remove it/);
    await bad({ operation: 'set_redirects', redirects: ['old'] }, /redirects: must be an object of old paths to page ids/);
    await bad({ operation: 'set_redirects' }, /redirects: must be an object/);
    expect((await ok('GET', `/v1/spaces/${space}/change-requests/${cr}`)).revision).toBe(before);
  });
});
