/**
 * The policy table through the access model: for every action on a space, a collection or a
 * change request, the weakest role that may do it and the strongest that may not, each reached
 * through every path a role can come from (the organization role, a default level, the user's own
 * grant, a team's grant, a grant on the collection above), decided by the same Access requests use
 * (src/context.ts createAccess) over the rows in the database.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS, can, type Action } from '../../src/auth/policies.ts';
import { MEMBER_ROLES, type MemberRole } from '../../src/auth/roles.ts';
import { ViewerCache } from '../../src/auth/viewer-cache.ts';
import { createAccess } from '../../src/context.ts';
import { RevisionChunkCache } from '../../src/db/revision-chunks.ts';
import { newId } from '../../src/ids.ts';
import { Loaders } from '../../src/loaders.ts';
import { useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada } = useTestServer({ users: ['Ada'] });

const PATHS = ['organization role', 'default level', 'own grant', 'team grant', 'grant on the collection above'] as const;
type Path = (typeof PATHS)[number];
type Kind = 'space' | 'collection';

/** The actions decided on a space's or a collection's subject. */
const CONTENT_ACTIONS: Record<Kind, Action[]> = {
  space: ACTIONS.filter((a) => a.startsWith('space:') || a.startsWith('change-request:')),
  collection: ACTIONS.filter((a) => a.startsWith('collection:')),
};

/** The weakest member role the table lets do `action` on an ordinary subject, and the role just below it (undefined: none). */
function threshold(action: Action): { weakest: MemberRole; below: MemberRole | undefined } {
  const index = MEMBER_ROLES.findIndex((role) => can({ organizationId: 'org', role }, action));
  if (index < 0) throw new Error(`no role may ${action}`);
  return { weakest: MEMBER_ROLES[index]!, below: MEMBER_ROLES[index - 1] };
}

describe('every content action through every path to a role', () => {
  let org: string;
  let folder: string;
  const targets = {} as Record<Kind, { id: string; parentId: string }>;

  beforeAll(async () => {
    org = await server.createOrg(ada);
    folder = (await server.createCollection(ada, org, { title: 'Folder' })).id;
    targets.space = { id: (await server.createSpace(ada, org, { title: 'Target', parent: folder })).id, parentId: folder };
    targets.collection = { id: (await server.createCollection(ada, org, { title: 'Target', parent: folder })).id, parentId: folder };
  });

  /** A new user holding `role` on the `kind` target through `path` (and nothing more: the lowest organization role the path allows). */
  async function holder(path: Path, kind: Kind, role: MemberRole): Promise<TestUser> {
    const user = await server.createUser(`${path} ${role}`);
    const db = server.app.db;
    const grant = (resourceKind: Kind, resourceId: string, granteeKind: 'user' | 'team', granteeId: string) =>
      db.contentGrant.create({ data: { id: newId(), organizationId: org, resourceKind, resourceId, granteeKind, granteeId, role } });
    const target = targets[kind];
    switch (path) {
      case 'organization role':
        await server.addMember(org, user, role);
        break;
      case 'default level':
        // Default levels raise members with a role: the lowest, read.
        await server.addMember(org, user, 'read');
        break;
      case 'own grant':
        await server.addMember(org, user, null);
        await grant(kind, target.id, 'user', user.id);
        break;
      case 'team grant': {
        await server.addMember(org, user, null);
        const team = newId();
        await db.team.create({ data: { id: team, organizationId: org, title: `Team ${role}`, members: { create: [{ userId: user.id, role: 'member' }] } } });
        await grant(kind, target.id, 'team', team);
        break;
      }
      case 'grant on the collection above':
        await server.addMember(org, user, null);
        await grant('collection', target.parentId, 'user', user.id);
        break;
    }
    return user;
  }

  /** The subject of the `kind` target for `user`, as a request of theirs decides it (its default level set for the path). */
  async function subjectOf(user: TestUser, kind: Kind, defaultLevel: string | null) {
    const db = server.app.db;
    const access = createAccess(await new ViewerCache(db, { maxAgeMs: 0, maxEntries: 1 }).viewerFor(user.token), new Loaders(db, new RevisionChunkCache(0)));
    const node = { id: targets[kind].id, organizationId: org, parentId: targets[kind].parentId, defaultLevel };
    return kind === 'space' ? access.space({ ...node, editMode: 'live' }) : access.collection(node);
  }

  for (const kind of ['space', 'collection'] as const) {
    for (const path of PATHS) {
      it(`${kind}: through ${path}, the weakest role that may do each action may, and the role below may not`, async () => {
        const wrong: string[] = [];
        for (const role of MEMBER_ROLES) {
          const user = await holder(path, kind, role);
          const subject = await subjectOf(user, kind, path === 'default level' ? role : null);
          expect(subject.role, `${path} ${role}`).toBe(path === 'default level' && role === 'read' ? 'read' : role);
          for (const action of CONTENT_ACTIONS[kind]) {
            const { weakest, below } = threshold(action);
            if (role === weakest && !can(subject, action)) wrong.push(`${action}: ${role} through ${path} may not`);
            if (role === below && can(subject, action)) wrong.push(`${action}: ${role} through ${path} may`);
          }
        }
        expect(wrong).toEqual([]);
      }, 60_000);
    }
  }

  it('walks every content action of the table', () => {
    expect(CONTENT_ACTIONS.space.length + CONTENT_ACTIONS.collection.length).toBe(ACTIONS.filter((a) => /^(space|collection|change-request):/.test(a)).length);
    expect(CONTENT_ACTIONS.space).toContain('space:manage-permissions');
  });
});
