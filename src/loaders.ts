/**
 * The request's state: DataLoaders for the lookups plugin-prisma relations
 * cannot batch, and the uncached batches and notes resolvers share within one
 * request. One instance per request (context.ts), never at module level, so
 * nothing is cached across callers.
 *
 * A write forgets what it may have changed: every cached loader names the
 * models (tables) it reads, and the database client reports each table a
 * statement writes to the loaders of every execution in progress
 * (`LiveLoaders`, wired in server.ts), so no mutation has to remember to
 * clear anything.
 */
import DataLoader from 'dataloader';
import { highest, isMemberRole, type MemberRole } from './auth/roles.ts';
import { hashShareKey } from './auth/share-keys.ts';
import type { StoredReference } from './content/links.ts';
import { entriesOf, reusableContentsOf, storedDocument } from './content/revision-store.ts';
import { buildRevisionTree, type RevisionTree, type RevisionView } from './content/revision-view.ts';
import { Prisma, type Db } from './db/client.ts';
import { chunkList, readChunks, type RevisionChunkCache } from './db/revision-chunks.ts';
import { isOneOf, TEAM_MEMBER_ROLES, type TeamMemberRole } from './db/value-sets.ts';

export interface PublishableSite {
  id: string;
  organizationId: string;
  basename: string;
  hostname: string | null;
  published: boolean;
}

/** The columns of a site its published URLs are made of, its default section, who may read it (visibility) and its icon (in its customizations). */
export const SITE_FACTS_SELECT = { id: true, organizationId: true, basename: true, hostname: true, published: true, defaultSectionId: true, visibility: true, customizations: true } as const;
export type SiteFacts = PublishableSite & { defaultSectionId: string | null; visibility: string; customizations: Prisma.JsonValue };

/** Where a space is published: a site space of it on a published site, with what its URL is made of. */
export interface PublishedPlace {
  siteId: string;
  sectionId: string | null;
  path: string;
  site: SiteFacts;
  sectionPath: string | null;
}

/** A published place as the statements that read them answer it (one row per site space, with its site and section). */
type PublishedPlaceRow = Omit<PublishedPlace, 'site'> & Omit<SiteFacts, 'id' | 'published' | 'customizations'> & { customizations: string | null; spaceId: string; n?: number };

/** The columns of a published place (PublishedPlaceRow but its space), and the same as typed NULLs for the other rows of a UNION. */
const PLACE_COLUMN_LIST = [
  ['siteId', 'ss."siteId"'],
  ['sectionId', 'ss."sectionId"'],
  ['path', 'ss."path"'],
  ['sectionPath', 'sec."path"'],
  ['organizationId', 's."organizationId"'],
  ['basename', 's."basename"'],
  ['hostname', 's."hostname"'],
  ['defaultSectionId', 's."defaultSectionId"'],
  ['visibility', 's."visibility"'],
  // As text on both providers (jsonb on PostgreSQL), parsed when read.
  ['customizations', 'CAST(s."customizations" AS TEXT)'],
] as const;
const PLACE_COLUMNS = Prisma.raw(PLACE_COLUMN_LIST.map(([name, column]) => `${column} AS "${name}"`).join(', '));
const NO_PLACE_COLUMNS = Prisma.raw(PLACE_COLUMN_LIST.map(([name]) => `CAST(NULL AS TEXT) AS "${name}"`).join(', '));
/** The columns of a space's Git Sync in `contentFacts` (its URL is the row's `value`), and the same as typed NULLs. */
const GIT_COLUMNS = Prisma.raw(`g."provider" AS "gitProvider", g."updatedAt" AS "gitUpdatedAt"`);
const NO_GIT_COLUMNS = Prisma.raw(`CAST(NULL AS TEXT) AS "gitProvider", CAST(NULL AS TIMESTAMP) AS "gitUpdatedAt"`);

/** The site spaces of `spaceIds` on published sites, with their sites and sections: what the statements reading published places read from. */
const publishedPlacesOf = (spaceIds: Prisma.Sql) => Prisma.sql`
  FROM "SiteSpace" ss
  JOIN "Site" s ON s."id" = ss."siteId"
  LEFT JOIN "SiteSection" sec ON sec."id" = ss."sectionId"
  WHERE ss."spaceId" IN (${spaceIds}) AND s."published" = TRUE`;

/** A space or a collection, as `contentFacts` keys them. */
export type ContentNodeKey = `${'space' | 'collection'}:${string}`;

/** What a user did in a change request: committed content (`edit`) or posted comments and replies (`comment`), how often, and when last. */
export interface Contribution {
  actionType: 'edit' | 'comment';
  userId: string;
  count: number;
  updatedAt: Date;
}

/** What a space or collection answers with beyond its row. */
export interface ContentFacts {
  /** The default level it resolves to through its parent collections (undefined: none; null: guests only). */
  level: MemberRole | null | undefined;
  /** Spaces: how many change requests it has in each status. */
  changeRequests: Record<string, number>;
  /** Spaces: how many comment threads on its own content are open (not resolved). */
  openComments: number;
  /** Spaces: the Git repository it syncs with (the provider's kind, the URL without credentials), or null. */
  gitSync: SpaceGitSync | null;
}

/** A space's Git Sync as its facts carry it. */
export interface SpaceGitSync {
  provider: string;
  url: string;
  updatedAt: Date;
}

/** A user who replied in a comment thread: how many replies, and when the latest was posted. */
export interface CommentReplier {
  userId: string;
  count: number;
  updatedAt: Date;
}

/** The reactions of one emoji to a comment or reply: who reacted, and when. */
export interface CommentReactionGroup {
  emoji: string;
  users: Array<{ userId: string; reactedAt: Date }>;
}

type Model = Prisma.ModelName;

/** Weeks a cluster's weekly pulse covers (the OpenAPI document: 13, the past 3 months). */
export const PULSE_WEEKS = 13;
export const WEEK_MS = 7 * 24 * 3600_000;

/** A JSON column read as text (CAST in a raw statement); {} when it is missing or unreadable. */
function parseJsonText(text: string | null): Prisma.JsonValue {
  if (text === null) return {};
  try {
    return JSON.parse(text) as Prisma.JsonValue;
  } catch {
    return {};
  }
}

/**
 * The loaders of the executions in progress in this process (one set per
 * app): a write reported by the database client makes each of them forget
 * what it cached of the model written (a write of one request may change what
 * another read). Executions join while they run (src/plugins/use-live-loaders.ts).
 */
export class LiveLoaders {
  private readonly live = new Set<Loaders>();

  /** Runs `execution` with `loaders` live: writes made meanwhile, by anyone, reach them. */
  async during<T>(loaders: Loaders, execution: () => Promise<T> | T): Promise<T> {
    this.live.add(loaders);
    try {
      return await execution();
    } finally {
      this.live.delete(loaders);
    }
  }

  /** `table` was written. */
  invalidate(table: string): void {
    for (const loaders of this.live) loaders.invalidate(table);
  }
}

/**
 * Lookups of one response that what follows them waits for together: the users named by change
 * requests' reviews, review requests and contributors are asked for once every one of those
 * lookups answered, so they are read in one statement whichever lookup the database answers first.
 */
export class Gathering {
  private readonly pending = new Set<Promise<unknown>>();

  /** `lookup`, counted among what `settled()` waits for. */
  join<T>(lookup: Promise<T>): Promise<T> {
    this.pending.add(lookup);
    const done = () => this.pending.delete(lookup);
    lookup.then(done, done);
    return lookup;
  }

  /** Resolves once every lookup joined so far, and any joined meanwhile, has settled. */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }
}

// Prisma refuses a statement with more bound values than the database takes (32,766: src/db/provider.ts).
const MAX_BATCH = 30_000;
/**
 * The distinct ids on each side of `${a}:${b}` keys (organization and user, team and user): a
 * loader keyed by a pair reads every id of both sides in one statement and picks its pairs.
 */
function pairSides(keys: readonly string[]): [string[], string[]] {
  const firsts = new Set<string>();
  const seconds = new Set<string>();
  for (const key of keys) {
    const at = key.indexOf(':');
    firsts.add(key.slice(0, at));
    seconds.add(key.slice(at + 1));
  }
  return [[...firsts], [...seconds]];
}

/** How far up ancestorsOf follows parent collections (a guard: writers never make a cycle). */
const MAX_COLLECTION_DEPTH = 100;

export class Loaders {
  /** Cached loaders, by the models they read. */
  private readonly readers = new Map<Model, Array<DataLoader<never, unknown, unknown>>>();
  /** Uncached batches, by the place in a document (or the query) they batch for. */
  private readonly batches = new Map<string, DataLoader<never, unknown>>();
  /** Per-request notes attached to objects read in this request. */
  private readonly notebooks = new Map<string, WeakMap<object, unknown>>();
  /** Lookups waited for together, by name. */
  private readonly gatherings = new Map<string, Gathering>();

  constructor(
    private readonly db: Db,
    private readonly revisionChunks?: RevisionChunkCache,
  ) {}

  /** Forgets every cached value read from `table` (a model's table), as the database client reports writes. */
  invalidate(table: string): void {
    for (const loader of this.readers.get(table as Model) ?? []) loader.clearAll();
  }

  /**
   * A DataLoader that batches the loads of one tick under `key` (a place in a
   * document, a query shape) without caching them, so a write earlier in the
   * request is never hidden.
   */
  batch<K, V>(key: string, load: DataLoader.BatchLoadFn<K, V>): DataLoader<K, V> {
    let loader = this.batches.get(key) as DataLoader<K, V> | undefined;
    if (!loader) {
      loader = new DataLoader<K, V>(load, { cache: false, maxBatchSize: MAX_BATCH });
      this.batches.set(key, loader as DataLoader<never, unknown>);
    }
    return loader;
  }

  /** The lookups of this request gathered under `name` (see Gathering). */
  gathering(name: string): Gathering {
    let gathering = this.gatherings.get(name);
    if (!gathering) this.gatherings.set(name, (gathering = new Gathering()));
    return gathering;
  }

  /** Notes about objects read in this request (`name` tells the notebooks apart); gone with the request. */
  notes<K extends object, V>(name: string): WeakMap<K, V> {
    let notebook = this.notebooks.get(name);
    if (!notebook) this.notebooks.set(name, (notebook = new WeakMap()));
    return notebook as WeakMap<K, V>;
  }

  private cached<K, V, C = K>(models: readonly Model[], load: DataLoader.BatchLoadFn<K, V>, options?: DataLoader.Options<K, V, C>): DataLoader<K, V, C> {
    const loader = new DataLoader<K, V, C>(load, { maxBatchSize: MAX_BATCH, ...options });
    for (const model of models) {
      const list = this.readers.get(model) ?? [];
      list.push(loader as unknown as DataLoader<never, unknown, unknown>);
      this.readers.set(model, list);
    }
    return loader;
  }

  /** share key -> the site it opens (an active link of a published share-link site), or null. */
  readonly siteIdByShareKey = this.cached(['SiteShareLink', 'Site'], async (keys: readonly string[]) => {
    const hashes = keys.map(hashShareKey);
    const links = await this.db.siteShareLink.findMany({
      where: { keyHash: { in: hashes } },
      select: { keyHash: true, active: true, site: { select: { id: true, published: true, visibility: true } } },
    });
    const byHash = new Map(links.map((l) => [l.keyHash, l]));
    return hashes.map((hash) => {
      const link = byHash.get(hash);
      return link?.active && link.site.published && link.site.visibility === 'share-link' ? link.site.id : null;
    });
  });

  /**
   * The few columns of sites that sections and site spaces need for `default`
   * and `urls` (one query for a whole response; a site read at the root of a
   * request, or with a published place, is primed).
   */
  readonly siteFactsById = this.cached(['Site'], async (ids: readonly string[]) => {
    const rows = await this.db.site.findMany({ where: { id: { in: [...ids] } }, select: SITE_FACTS_SELECT });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? new Error(`Site ${id} not found`));
  });

  readonly sectionPathById = this.cached(['SiteSection'], async (ids: readonly string[]) => {
    const rows = await this.db.siteSection.findMany({ where: { id: { in: [...ids] } }, select: { id: true, path: true } });
    const byId = new Map(rows.map((r) => [r.id, r.path]));
    return ids.map((id) => byId.get(id) ?? null);
  });

  /**
   * space id -> its site spaces on published sites, oldest first, each with its
   * site's facts and its section's path: one statement for every space of a
   * response, whether or not the spaces are published (a join: Prisma would
   * read sites and sections in statements of their own). Spaces whose
   * `contentFacts` were read have theirs already: that statement reads them too.
   */
  readonly publishedPlacesBySpaceId = this.cached(['SiteSpace', 'Site', 'SiteSection'], async (spaceIds: readonly string[]) => {
    const rows = await this.db.$queryRaw<PublishedPlaceRow[]>`
      SELECT ss."spaceId", ${PLACE_COLUMNS} ${publishedPlacesOf(Prisma.join(spaceIds))}
      ORDER BY ss."createdAt", ss."id"`;
    const bySpace = this.placesBySpace(rows);
    return spaceIds.map((id) => bySpace.get(id) ?? []);
  });

  /**
   * A space's published places, read with its `contentFacts` (one statement for both, which the
   * space's counts and default level need too) unless already known.
   */
  async publishedPlacesOf(spaceId: string): Promise<PublishedPlace[]> {
    await this.contentFacts.load(`space:${spaceId}`);
    return this.publishedPlacesBySpaceId.load(spaceId);
  }

  /** Published places grouped by space, in the order of `rows`; their sites' facts and sections' paths primed. */
  private placesBySpace(rows: readonly PublishedPlaceRow[]): Map<string, PublishedPlace[]> {
    const bySpace = new Map<string, PublishedPlace[]>();
    for (const row of rows) {
      const site: SiteFacts = {
        id: row.siteId,
        organizationId: row.organizationId,
        basename: row.basename,
        hostname: row.hostname,
        published: true,
        defaultSectionId: row.defaultSectionId,
        visibility: row.visibility,
        customizations: parseJsonText(row.customizations),
      };
      this.siteFactsById.prime(site.id, site);
      if (row.sectionId) this.sectionPathById.prime(row.sectionId, row.sectionPath);
      const list = bySpace.get(row.spaceId) ?? [];
      list.push({ siteId: row.siteId, sectionId: row.sectionId, path: row.path, site, sectionPath: row.sectionPath });
      bySpace.set(row.spaceId, list);
    }
    return bySpace;
  }

  /**
   * The facts of spaces and collections beyond their rows, in one statement
   * for all those of a response: the default level each resolves to, walking
   * up its parent collections while they say `inherit` (a recursive query: any
   * depth costs the same), and for spaces how many change requests they have
   * in each status, how many comment threads on their own content are open,
   * their Git Sync, and their places on published sites (`publishedPlacesBySpaceId`, primed:
   * a space read for its facts needs no statement of its own for its URLs).
   */
  readonly contentFacts = this.cached(['Space', 'Collection', 'ChangeRequest', 'Comment', 'GitSync'], async (keys: readonly ContentNodeKey[]) => {
    const ids = (kind: string) => keys.filter((k) => k.startsWith(`${kind}:`)).map((k) => k.slice(kind.length + 1));
    const spaceIds = ids('space');
    const collectionIds = ids('collection');
    const none = Prisma.sql`SELECT NULL`;
    type FactRow = { fact: 'level' | 'changeRequests' | 'comments' | 'git' | 'place'; node: string; value: string | null; n: number } & Omit<PublishedPlaceRow, 'spaceId'> & {
      gitProvider: string | null;
      gitUpdatedAt: Date | string | number | null;
    };
    const rows = await this.db.$queryRaw<FactRow[]>`
      WITH RECURSIVE chain("node", "parentId", "level", "depth") AS (
        SELECT start."node", start."parentId", start."defaultLevel", 0
        FROM (
          SELECT 'space:' || s."id" AS "node", s."parentId", s."defaultLevel" FROM "Space" s
          WHERE s."id" IN (${spaceIds.length ? Prisma.join(spaceIds) : none})
          UNION ALL
          SELECT 'collection:' || c."id", c."parentId", c."defaultLevel" FROM "Collection" c
          WHERE c."id" IN (${collectionIds.length ? Prisma.join(collectionIds) : none})
        ) start
        UNION ALL
        SELECT chain."node", c."parentId", c."defaultLevel", chain."depth" + 1
        FROM chain JOIN "Collection" c ON c."id" = chain."parentId"
        WHERE chain."level" = 'inherit'
      )
      SELECT 'level' AS "fact", "node", "level" AS "value", "depth" AS "n", ${NO_PLACE_COLUMNS}, ${NO_GIT_COLUMNS}
      FROM chain
      UNION ALL
      SELECT 'changeRequests', 'space:' || cr."spaceId", cr."status", CAST(COUNT(*) AS INTEGER), ${NO_PLACE_COLUMNS}, ${NO_GIT_COLUMNS}
      FROM "ChangeRequest" cr
      WHERE cr."spaceId" IN (${spaceIds.length ? Prisma.join(spaceIds) : none})
      GROUP BY cr."spaceId", cr."status"
      UNION ALL
      SELECT 'comments', 'space:' || c."spaceId", NULL, CAST(COUNT(*) AS INTEGER), ${NO_PLACE_COLUMNS}, ${NO_GIT_COLUMNS}
      FROM "Comment" c
      WHERE c."spaceId" IN (${spaceIds.length ? Prisma.join(spaceIds) : none})
        AND c."changeRequestId" IS NULL AND c."parentId" IS NULL AND c."resolvedAt" IS NULL
      GROUP BY c."spaceId"
      UNION ALL
      SELECT 'git', 'space:' || g."spaceId", g."url", 0, ${NO_PLACE_COLUMNS}, ${GIT_COLUMNS}
      FROM "GitSync" g
      WHERE g."spaceId" IN (${spaceIds.length ? Prisma.join(spaceIds) : none})
      UNION ALL
      SELECT 'place', 'space:' || ss."spaceId", NULL, CAST(ROW_NUMBER() OVER (ORDER BY ss."createdAt", ss."id") AS INTEGER), ${PLACE_COLUMNS}, ${NO_GIT_COLUMNS}
      ${publishedPlacesOf(spaceIds.length ? Prisma.join(spaceIds) : none)}`;
    const facts = new Map<string, ContentFacts & { depth: number; resolved: string | null }>();
    const factsOf = (node: string) => {
      let f = facts.get(node);
      if (!f) facts.set(node, (f = { level: undefined, changeRequests: {}, openComments: 0, gitSync: null, depth: -1, resolved: null }));
      return f;
    };
    const places: PublishedPlaceRow[] = [];
    for (const row of rows) {
      if (row.fact === 'place') {
        places.push({ ...row, spaceId: row.node.slice('space:'.length) });
        continue;
      }
      const f = factsOf(row.node);
      if (row.fact === 'changeRequests') f.changeRequests[row.value!] = Number(row.n);
      else if (row.fact === 'comments') f.openComments = Number(row.n);
      else if (row.fact === 'git') f.gitSync = { provider: row.gitProvider!, url: row.value!, updatedAt: new Date(row.gitUpdatedAt!) };
      // The deepest row of a node's chain holds the level it resolves to ('inherit': none up to the top).
      else if (Number(row.n) > f.depth) Object.assign(f, { depth: Number(row.n), resolved: row.value });
    }
    places.sort((a, b) => Number(a.n) - Number(b.n));
    const placesBySpace = this.placesBySpace(places);
    for (const id of spaceIds) this.publishedPlacesBySpaceId.prime(id, placesBySpace.get(id) ?? []);
    return keys.map((key) => {
      const f = facts.get(key);
      if (!f) return { level: undefined, changeRequests: {}, openComments: 0, gitSync: null };
      const level = f.resolved === null ? null : isMemberRole(f.resolved) ? f.resolved : undefined;
      return { level: f.depth < 0 ? undefined : level, changeRequests: f.changeRequests, openComments: f.openComments, gitSync: f.gitSync };
    });
  });

  /**
   * `${organizationId}:${userId}` -> the roles the user holds through grants in the organization,
   * their own and those of every team they belong to, the highest per resource (`space:<id>`,
   * `collection:<id>`). One statement for every user and organization asked in a tick.
   */
  readonly grantsOfUser = this.cached(['ContentGrant', 'TeamMember'], async (keys: readonly string[]) => {
    const [organizationIds, userIds] = pairSides(keys);
    const organizations = Prisma.join(organizationIds);
    const users = Prisma.join(userIds);
    const rows = await this.db.$queryRaw<Array<{ organizationId: string; userId: string; resourceKind: string; resourceId: string; role: string }>>`
      SELECT g."organizationId", g."granteeId" AS "userId", g."resourceKind", g."resourceId", g."role"
      FROM "ContentGrant" g
      WHERE g."granteeKind" = 'user' AND g."granteeId" IN (${users}) AND g."organizationId" IN (${organizations})
      UNION ALL
      SELECT g."organizationId", tm."userId", g."resourceKind", g."resourceId", g."role"
      FROM "ContentGrant" g JOIN "TeamMember" tm ON tm."teamId" = g."granteeId"
      WHERE g."granteeKind" = 'team' AND tm."userId" IN (${users}) AND g."organizationId" IN (${organizations})`;
    const byKey = new Map<string, Map<ContentNodeKey, MemberRole>>();
    for (const row of rows) {
      if (!isMemberRole(row.role)) continue;
      const key = `${row.organizationId}:${row.userId}`;
      let grants = byKey.get(key);
      if (!grants) byKey.set(key, (grants = new Map()));
      const node = `${row.resourceKind}:${row.resourceId}` as ContentNodeKey;
      grants.set(node, highest([grants.get(node), row.role]) as MemberRole);
    }
    return keys.map((key) => byKey.get(key) ?? (new Map() as ReadonlyMap<ContentNodeKey, MemberRole>));
  });

  /**
   * `${organizationId}:${userId}` -> how many teams of the organization the user is in, and on how
   * many spaces they hold a grant of their own (Member.teams, Member.spaces): two statements for
   * every member of a response.
   */
  readonly memberCounts = this.cached(['TeamMember', 'Team', 'ContentGrant'], async (keys: readonly string[]) => {
    const [organizationIds, userIds] = pairSides(keys);
    const [teams, spaces] = await Promise.all([
      this.db.$queryRaw<Array<{ organizationId: string; userId: string; n: number }>>`
        SELECT t."organizationId", tm."userId", CAST(COUNT(*) AS INTEGER) AS "n"
        FROM "TeamMember" tm JOIN "Team" t ON t."id" = tm."teamId"
        WHERE tm."userId" IN (${Prisma.join(userIds)}) AND t."organizationId" IN (${Prisma.join(organizationIds)})
        GROUP BY t."organizationId", tm."userId"`,
      this.db.contentGrant.groupBy({
        by: ['organizationId', 'granteeId'],
        where: { resourceKind: 'space', granteeKind: 'user', granteeId: { in: userIds }, organizationId: { in: organizationIds } },
        _count: { _all: true },
      }),
    ]);
    const teamCount = new Map(teams.map((r) => [`${r.organizationId}:${r.userId}`, Number(r.n)]));
    const spaceCount = new Map(spaces.map((r) => [`${r.organizationId}:${r.granteeId}`, r._count._all]));
    return keys.map((key) => ({ teams: teamCount.get(key) ?? 0, spaces: spaceCount.get(key) ?? 0 }));
  });

  /** A space or collection -> the collections above it, nearest first (one statement for every node asked in a tick). */
  readonly ancestorsOf = this.cached(['Space', 'Collection'], async (keys: readonly ContentNodeKey[]) => {
    const ids = (kind: string) => keys.filter((k) => k.startsWith(`${kind}:`)).map((k) => k.slice(kind.length + 1));
    const spaceIds = ids('space');
    const collectionIds = ids('collection');
    const none = Prisma.sql`SELECT NULL`;
    const rows = await this.db.$queryRaw<Array<{ node: string; parentId: string; depth: number }>>`
      WITH RECURSIVE chain("node", "parentId", "depth") AS (
        SELECT start."node", start."parentId", 0
        FROM (
          SELECT 'space:' || s."id" AS "node", s."parentId" FROM "Space" s
          WHERE s."id" IN (${spaceIds.length ? Prisma.join(spaceIds) : none})
          UNION ALL
          SELECT 'collection:' || c."id", c."parentId" FROM "Collection" c
          WHERE c."id" IN (${collectionIds.length ? Prisma.join(collectionIds) : none})
        ) start
        UNION ALL
        SELECT chain."node", c."parentId", chain."depth" + 1
        FROM chain JOIN "Collection" c ON c."id" = chain."parentId"
        WHERE chain."depth" < ${MAX_COLLECTION_DEPTH}
      )
      SELECT "node", "parentId", "depth" FROM chain WHERE "parentId" IS NOT NULL`;
    const byNode = new Map<string, Array<{ id: string; depth: number }>>();
    for (const row of rows) {
      const list = byNode.get(row.node) ?? [];
      list.push({ id: row.parentId, depth: Number(row.depth) });
      byNode.set(row.node, list);
    }
    return keys.map((key) => (byNode.get(key) ?? []).sort((a, b) => a.depth - b.depth).map((a) => a.id) as readonly string[]);
  });

  /**
   * team id -> how many members of its organization it has, and on how many spaces it holds a
   * grant (Team.members, Team.spaces): one statement for every team of a response. A membership
   * whose user has left the organization is not counted (nor listed: Team.memberships).
   */
  readonly teamCounts = this.cached(['TeamMember', 'Team', 'Member', 'ContentGrant'], async (teamIds: readonly string[]) => {
    const ids = Prisma.join([...new Set(teamIds)]);
    const rows = await this.db.$queryRaw<Array<{ kind: 'members' | 'spaces'; teamId: string; n: number }>>`
      SELECT 'members' AS "kind", tm."teamId" AS "teamId", CAST(COUNT(*) AS INTEGER) AS "n"
      FROM "TeamMember" tm
      JOIN "Team" t ON t."id" = tm."teamId"
      JOIN "Member" m ON m."organizationId" = t."organizationId" AND m."userId" = tm."userId"
      WHERE tm."teamId" IN (${ids})
      GROUP BY tm."teamId"
      UNION ALL
      SELECT 'spaces', g."granteeId", CAST(COUNT(*) AS INTEGER)
      FROM "ContentGrant" g
      WHERE g."granteeKind" = 'team' AND g."resourceKind" = 'space' AND g."granteeId" IN (${ids})
      GROUP BY g."granteeId"`;
    const counts = new Map<string, { members: number; spaces: number }>();
    for (const row of rows) {
      const c = counts.get(row.teamId) ?? { members: 0, spaces: 0 };
      c[row.kind] = Number(row.n);
      counts.set(row.teamId, c);
    }
    return teamIds.map((id) => counts.get(id) ?? { members: 0, spaces: 0 });
  });

  /** `${organizationId}:${userId}` -> whether the user owns a team of the organization (one statement for every pair asked in a tick). */
  readonly ownsTeamIn = this.cached(['TeamMember', 'Team'], async (keys: readonly string[]) => {
    const [organizationIds, userIds] = pairSides(keys);
    const rows = await this.db.$queryRaw<Array<{ organizationId: string; userId: string }>>`
      SELECT DISTINCT t."organizationId", tm."userId"
      FROM "TeamMember" tm JOIN "Team" t ON t."id" = tm."teamId"
      WHERE tm."role" = 'owner'
        AND tm."userId" IN (${Prisma.join(userIds)})
        AND t."organizationId" IN (${Prisma.join(organizationIds)})`;
    const owned = new Set(rows.map((r) => `${r.organizationId}:${r.userId}`));
    return keys.map((key) => owned.has(key));
  });

  /**
   * `${organizationId}:${userId}` -> the user's membership there as it is now (role, disabled), or null:
   * what a long-lived subscription re-reads per event to learn that its caller lost access.
   */
  readonly membershipOf = this.cached(['Member'], async (keys: readonly string[]) => {
    const [organizationIds, userIds] = pairSides(keys);
    const rows = await this.db.member.findMany({
      where: { organizationId: { in: organizationIds }, userId: { in: userIds } },
      select: { organizationId: true, userId: true, role: true, disabled: true },
    });
    const byKey = new Map(rows.map((r) => [`${r.organizationId}:${r.userId}`, { role: r.role, disabled: r.disabled }]));
    return keys.map((key) => byKey.get(key) ?? null);
  });

  /** API token id -> when it expires (null: never), or null when it no longer exists (revoked). */
  readonly tokenById = this.cached(['ApiToken'], async (ids: readonly string[]) => {
    const rows = await this.db.apiToken.findMany({ where: { id: { in: [...ids] } }, select: { id: true, expiresAt: true } });
    const byId = new Map(rows.map((r) => [r.id, { expiresAt: r.expiresAt }]));
    return ids.map((id) => byId.get(id) ?? null);
  });

  /** organization id -> its members' user ids, roles and whether they are disabled (who reaches a space or collection). */
  readonly membersOf = this.cached(['Member'], async (organizationIds: readonly string[]) => {
    const rows = await this.db.member.findMany({
      where: { organizationId: { in: [...organizationIds] } },
      select: { organizationId: true, userId: true, role: true, disabled: true },
    });
    return groupBy(organizationIds, rows, (r) => r.organizationId, (r) => ({ userId: r.userId, role: r.role, disabled: r.disabled }));
  });

  /** A space or collection -> the grants held on it, by users and teams (one statement for every node asked in a tick). */
  readonly grantsOn = this.cached(['ContentGrant'], async (keys: readonly ContentNodeKey[]) => {
    const ids = (kind: string) => keys.filter((k) => k.startsWith(`${kind}:`)).map((k) => k.slice(kind.length + 1));
    const on = (['space', 'collection'] as const).filter((kind) => ids(kind).length).map((kind) => ({ resourceKind: kind, resourceId: { in: ids(kind) } }));
    const rows = await this.db.contentGrant.findMany({
      where: { OR: on },
      select: { organizationId: true, resourceKind: true, resourceId: true, granteeKind: true, granteeId: true, role: true },
    });
    return groupBy(keys, rows, (r) => `${r.resourceKind}:${r.resourceId}`, (r) => r);
  });

  /** team id -> the user ids of its members. */
  readonly teamMemberIds = this.cached(['TeamMember'], async (teamIds: readonly string[]) => {
    const rows = await this.db.teamMember.findMany({ where: { teamId: { in: [...teamIds] } }, select: { teamId: true, userId: true } });
    return groupBy(teamIds, rows, (r) => r.teamId, (r) => r.userId);
  });

  /** user id -> the user's row, or null. */
  readonly userById = this.cached(['User'], async (ids: readonly string[]) => {
    const rows = await this.db.user.findMany({ where: { id: { in: [...ids] } } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? null);
  });

  /** collection id -> its row, or null (the parent of a space or collection, checked before it is shown). */
  readonly collectionById = this.cached(['Collection'], async (ids: readonly string[]) => {
    const rows = await this.db.collection.findMany({ where: { id: { in: [...ids] } } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? null);
  });

  /**
   * A collection -> its id and the ids of every collection below it, at any depth (one recursive
   * statement for every collection asked in a tick): what a grant on a collection opens.
   */
  readonly collectionSubtreeOf = this.cached(['Collection'], async (ids: readonly string[]) => {
    const rows = await this.db.$queryRaw<Array<{ root: string; id: string }>>`
      WITH RECURSIVE tree("root", "id", "depth") AS (
        SELECT c."id", c."id", 0 FROM "Collection" c WHERE c."id" IN (${Prisma.join(ids)})
        UNION ALL
        SELECT tree."root", c."id", tree."depth" + 1
        FROM tree JOIN "Collection" c ON c."parentId" = tree."id"
        WHERE tree."depth" < ${MAX_COLLECTION_DEPTH}
      )
      SELECT "root", "id" FROM tree`;
    const byRoot = new Map<string, string[]>();
    for (const row of rows) {
      const list = byRoot.get(row.root) ?? [];
      list.push(row.id);
      byRoot.set(row.root, list);
    }
    return ids.map((id) => (byRoot.get(id) ?? []) as readonly string[]);
  });

  /** `${teamId}:${userId}` -> the user's role in the team, or null when they are not in it. */
  readonly teamRoleOf = this.cached(['TeamMember'], async (keys: readonly string[]) => {
    const [teamIds, userIds] = pairSides(keys);
    const rows = await this.db.teamMember.findMany({
      where: { teamId: { in: teamIds }, userId: { in: userIds } },
      select: { teamId: true, userId: true, role: true },
    });
    const byKey = new Map(rows.map((r) => [`${r.teamId}:${r.userId}`, r.role]));
    return keys.map((key) => (isOneOf(TEAM_MEMBER_ROLES, byKey.get(key)) ? (byKey.get(key) as TeamMemberRole) : null));
  });

  /**
   * change request id -> what its reviews are judged by: the change request's space and current
   * revision (null when there is no such change request), every review of it and its pending review
   * requests, each oldest first. Three statements for every change request asked in a tick.
   */
  readonly reviewingOf = this.cached(['ChangeRequest', 'ChangeRequestReview', 'ChangeRequestReviewRequest'], async (ids: readonly string[]) => {
    const list = [...ids];
    const [changeRequests, reviews, requests] = await Promise.all([
      this.db.changeRequest.findMany({ where: { id: { in: list } }, select: { id: true, spaceId: true, revisionId: true } }),
      this.db.changeRequestReview.findMany({ where: { changeRequestId: { in: list } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
      this.db.changeRequestReviewRequest.findMany({ where: { changeRequestId: { in: list } }, orderBy: [{ createdAt: 'asc' }, { reviewerId: 'asc' }] }),
    ]);
    const byId = new Map(changeRequests.map((c) => [c.id, c]));
    const reviewsOf = groupBy(ids, reviews, (r) => r.changeRequestId, (r) => r);
    const requestsOf = groupBy(ids, requests, (r) => r.changeRequestId, (r) => r);
    return ids.map((id, i) => ({ changeRequest: byId.get(id) ?? null, reviews: reviewsOf[i]!, requests: requestsOf[i]! }));
  });

  /**
   * change request id -> who contributed to it, unsorted: each user who committed content to it
   * (`edit`: how many commits, the time of the latest) and each who posted comment threads or
   * replies in it (`comment`: how many, the time of the latest). Two statements for every change
   * request asked in a tick.
   */
  readonly contributionsTo = this.cached(['ChangeRequestContributor', 'Comment'], async (ids: readonly string[]) => {
    const list = [...ids];
    const [edits, comments] = await Promise.all([
      this.db.changeRequestContributor.findMany({
        where: { changeRequestId: { in: list } },
        select: { changeRequestId: true, userId: true, count: true, updatedAt: true },
      }),
      this.db.comment.groupBy({
        by: ['changeRequestId', 'authorId'],
        where: { changeRequestId: { in: list } },
        _count: { _all: true },
        _max: { postedAt: true },
      }),
    ]);
    const rows: Array<{ changeRequestId: string } & Contribution> = [
      ...edits.map((e) => ({ changeRequestId: e.changeRequestId, actionType: 'edit' as const, userId: e.userId, count: e.count, updatedAt: e.updatedAt })),
      ...comments.map((c) => ({
        changeRequestId: c.changeRequestId!,
        actionType: 'comment' as const,
        userId: c.authorId,
        count: c._count._all,
        updatedAt: c._max.postedAt!,
      })),
    ];
    return groupBy(ids, rows, (r) => r.changeRequestId, ({ changeRequestId: _, ...contribution }) => contribution as Contribution);
  });

  /** space id -> its row (every column; in the bin too), or null. */
  readonly spaceById = this.cached(['Space'], async (ids: readonly string[]) => {
    const rows = await this.db.space.findMany({ where: { id: { in: [...ids] } } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? null);
  });

  /** change request id -> its row, or null. */
  readonly changeRequestById = this.cached(['ChangeRequest'], async (ids: readonly string[]) => {
    const rows = await this.db.changeRequest.findMany({ where: { id: { in: [...ids] } } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? null);
  });

  /** comment id -> its row (a thread or a reply), or null: what a comment answers is read from it. */
  readonly commentById = this.cached(['Comment'], async (ids: readonly string[]) => {
    const rows = await this.db.comment.findMany({ where: { id: { in: [...ids] } } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? null);
  });

  /** review id -> the comment thread submitted with it (its body), or null. One statement for every review of a response. */
  readonly reviewThreadOf = this.cached(['Comment'], async (reviewIds: readonly string[]) => {
    const rows = await this.db.comment.findMany({ where: { reviewId: { in: [...reviewIds] }, parentId: null } });
    const byReview = new Map(rows.map((r) => [r.reviewId!, r]));
    return reviewIds.map((id) => byReview.get(id) ?? null);
  });

  /**
   * change request id -> how many of its comment threads are open (not resolved): one statement
   * for every change request of a response (ChangeRequest.comments; a space's count is one of
   * its `contentFacts`).
   */
  readonly openThreadsOfChangeRequest = this.cached(['Comment'], async (ids: readonly string[]) => {
    const rows = await this.db.comment.groupBy({
      by: ['changeRequestId'],
      where: { changeRequestId: { in: [...ids] }, parentId: null, resolvedAt: null },
      _count: { _all: true },
    });
    const counts = new Map(rows.map((r) => [r.changeRequestId!, r._count._all]));
    return ids.map((id) => counts.get(id) ?? 0);
  });

  /**
   * thread id -> how many replies it has, and who replied: per user, how many replies and when
   * the latest was posted, latest first (Comment.replies, Comment.repliers). One statement for
   * every thread of a response.
   */
  readonly commentReplyStats = this.cached(['Comment'], async (threadIds: readonly string[]) => {
    const rows = await this.db.comment.groupBy({
      by: ['parentId', 'authorId'],
      where: { parentId: { in: [...threadIds] } },
      _count: { _all: true },
      _max: { postedAt: true },
    });
    const byThread = new Map<string, { count: number; repliers: CommentReplier[] }>();
    for (const row of rows) {
      const stats = byThread.get(row.parentId!) ?? { count: 0, repliers: [] };
      stats.count += row._count._all;
      stats.repliers.push({ userId: row.authorId, count: row._count._all, updatedAt: row._max.postedAt! });
      byThread.set(row.parentId!, stats);
    }
    for (const stats of byThread.values()) stats.repliers.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || compare(a.userId, b.userId));
    return threadIds.map((id) => byThread.get(id) ?? { count: 0, repliers: [] });
  });

  /**
   * comment id -> its reactions by emoji (in the order each emoji was first used on it; emojis
   * first used at the same time in code-unit order), each with the users who reacted, oldest
   * first. One statement for every comment and reply of a response.
   */
  readonly commentReactions = this.cached(['CommentReaction'], async (commentIds: readonly string[]) => {
    const rows = await this.db.commentReaction.findMany({ where: { commentId: { in: [...commentIds] } } });
    // Ordered here: code-unit order of emojis and ids is the same on every database (collations differ).
    rows.sort((a, b) => a.reactedAt.getTime() - b.reactedAt.getTime() || compare(a.emoji, b.emoji) || compare(a.userId, b.userId));
    const byComment = new Map<string, Map<string, CommentReactionGroup>>();
    for (const row of rows) {
      let groups = byComment.get(row.commentId);
      if (!groups) byComment.set(row.commentId, (groups = new Map()));
      let group = groups.get(row.emoji);
      if (!group) groups.set(row.emoji, (group = { emoji: row.emoji, users: [] }));
      group.users.push({ userId: row.userId, reactedAt: row.reactedAt });
    }
    return commentIds.map((id) => [...(byComment.get(id)?.values() ?? [])]);
  });

  readonly revisionById = this.cached(['Revision'], async (ids: readonly string[]) => {
    const rows = await this.db.revision.findMany({ where: { id: { in: [...ids] } } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? null);
  });

  /** revision id -> where a Git Sync import read it or an export wrote it (null when neither did) */
  readonly revisionGitById = this.cached(['RevisionGit'], async (ids: readonly string[]) => {
    const rows = await this.db.revisionGit.findMany({ where: { revisionId: { in: [...ids] } } });
    const byId = new Map(rows.map((r) => [r.revisionId, r]));
    return ids.map((id) => byId.get(id) ?? null);
  });

  /** chunk hash -> its entries (a hash names one content forever: src/db/revision-chunks.ts) */
  readonly chunkByHash = this.cached(['RevisionChunk'], async (hashes: readonly string[]) => {
    const byHash = await readChunks(this.db, hashes, this.revisionChunks);
    return hashes.map((hash) => byHash.get(hash) ?? new Error(`Revision chunk ${hash} is missing`));
  });

  /** revision id -> its pages and files, from its chunks (one statement for the chunks of every revision asked). */
  private readonly entriesByRevisionId = this.cached(['Revision', 'RevisionChunk'], async (revisionIds: readonly string[]) => {
    const revisions = await this.revisionById.loadMany(revisionIds);
    const found = revisions.map((r) => (r && !(r instanceof Error) ? r : null));
    const hashes = found.flatMap((r) => (r ? [...chunkList(r.pageChunks), ...chunkList(r.fileChunks)] : []));
    const loaded = await this.chunkByHash.loadMany([...new Set(hashes)]);
    const chunks = new Map<string, readonly unknown[]>();
    [...new Set(hashes)].forEach((hash, i) => {
      const entries = loaded[i];
      if (entries && !(entries instanceof Error)) chunks.set(hash, entries);
    });
    return found.map((revision) => (revision ? entriesOf(revision, chunks) : { pages: [], files: [] }));
  });

  /** revision id -> its pages (any order; src/content/page-tree.ts orders them) */
  readonly pagesByRevisionId = this.cached(['Revision', 'RevisionChunk'], async (revisionIds: readonly string[]) => {
    const entries = await this.entriesByRevisionId.loadMany(revisionIds);
    return entries.map((e) => (e instanceof Error ? e : e.pages));
  });

  /** A revision's page tree, built once per request (keyed by the revision's id). */
  readonly revisionTree = this.cached<RevisionView, RevisionTree, string>(
    ['Revision', 'RevisionChunk'],
    async (revisions) => {
      const lists = await this.pagesByRevisionId.loadMany(revisions.map((r) => r.id));
      return revisions.map((revision, i) => {
        const list = lists[i]!;
        return list instanceof Error ? list : buildRevisionTree(revision, list);
      });
    },
    // A revision read without its Git metadata is another view of it (its pages say so).
    { cacheKeyFn: (revision) => (revision.metadata === false ? `${revision.id}:no-metadata` : revision.id) },
  );

  /**
   * issues cluster id -> what a cluster says beyond its row: when its issues came (their
   * conversations' dates, over the past PULSE_WEEKS weeks), how many came from each source, and
   * its change requests by status. Three statements for every cluster of a response.
   */
  readonly clusterActivity = this.cached(['ConversationIssue', 'Conversation', 'ChangeRequest'], async (clusterIds: readonly string[]) => {
    const ids = [...clusterIds];
    const since = new Date(Date.now() - PULSE_WEEKS * WEEK_MS);
    const [recent, sources, tasks] = await Promise.all([
      this.db.conversationIssue.findMany({ where: { clusterId: { in: ids }, createdAt: { gte: since } }, select: { clusterId: true, createdAt: true } }),
      this.db.$queryRaw<{ clusterId: string; source: string; issues: bigint | number }[]>`
        SELECT i."clusterId", c."source", COUNT(*) AS "issues"
        FROM "ConversationIssue" i JOIN "Conversation" c ON c."id" = i."conversationId"
        WHERE i."clusterId" IN (${Prisma.join(ids)})
        GROUP BY i."clusterId", c."source"`,
      this.db.changeRequest.groupBy({ by: ['conversationsIssuesClusterId', 'status'], where: { conversationsIssuesClusterId: { in: ids } }, _count: { _all: true } }),
    ]);
    const activity = new Map(ids.map((id) => [id, { issueDates: [] as Date[], sources: {} as Record<string, number>, tasksByStatus: {} as Record<string, number> }]));
    for (const row of recent) activity.get(row.clusterId!)?.issueDates.push(row.createdAt);
    for (const row of sources) {
      const entry = activity.get(row.clusterId);
      if (entry) entry.sources[row.source] = Number(row.issues);
    }
    for (const row of tasks) {
      const entry = activity.get(row.conversationsIssuesClusterId!);
      if (entry) entry.tasksByStatus[row.status] = row._count._all;
    }
    return ids.map((id) => activity.get(id)!);
  });

  /** revision id -> its files, by name */
  readonly filesByRevisionId = this.cached(['Revision', 'RevisionChunk'], async (revisionIds: readonly string[]) => {
    const entries = await this.entriesByRevisionId.loadMany(revisionIds);
    return entries.map((e) => (e instanceof Error ? e : [...e.files].sort((a, b) => compare(a.name, b.name) || compare(a.id, b.id))));
  });

  /**
   * revision id -> the references of its pages' documents, by document hash: one statement
   * for the documents of every revision asked, however many pages they have.
   */
  readonly referencesByRevisionId = this.cached(['Revision', 'RevisionChunk', 'DocumentReference'], async (revisionIds: readonly string[]) => {
    const pagesOf = await this.pagesByRevisionId.loadMany(revisionIds);
    const hashes = new Set<string>();
    for (const pages of pagesOf) if (!(pages instanceof Error)) for (const page of pages) if (page.documentHash) hashes.add(page.documentHash);
    const rows = hashes.size
      ? await this.db.documentReference.findMany({
          where: { documentHash: { in: [...hashes] } },
          select: { documentHash: true, targetKind: true, target: true },
        })
      : [];
    const byHash = new Map<string, StoredReference[]>();
    for (const row of rows) {
      const list = byHash.get(row.documentHash) ?? [];
      list.push({ targetKind: row.targetKind, target: row.target });
      byHash.set(row.documentHash, list);
    }
    // A batch of several revisions reads their documents together; each keeps its own.
    return pagesOf.map((pages) => {
      if (pages instanceof Error) return pages;
      const own = new Map<string, StoredReference[]>();
      for (const page of pages) if (page.documentHash) own.set(page.documentHash, byHash.get(page.documentHash) ?? []);
      return own;
    });
  });

  /**
   * `<organization id>:<spec slug>` -> the published sites of the organization whose published
   * content references that OpenAPI spec (`{kind: 'openapi', spec}`): a page or reusable content of
   * the current revision of a space the site publishes holds such a reference. What a site token
   * opens of the organization's specs (Access.openAPISpec). One statement when no document
   * references the slug (a spec no page names: most reads by a member never ask); otherwise one
   * for the published spaces, then their revisions' chunks (cached across requests).
   */
  readonly sitesReferencingOpenAPISpec = this.cached(
    ['DocumentReference', 'SiteSpace', 'Site', 'Space', 'Revision', 'RevisionChunk'],
    async (keys: readonly string[]) =>
      Promise.all(
        keys.map(async (key) => {
          const colon = key.indexOf(':');
          const [organizationId, slug] = [key.slice(0, colon), key.slice(colon + 1)];
          const rows = await this.db.documentReference.findMany({ where: { targetKind: 'openapi', target: slug }, select: { documentHash: true } });
          if (rows.length === 0) return [];
          const referencing = new Set(rows.map((row) => row.documentHash));
          const places = await this.db.siteSpace.findMany({
            where: { site: { organizationId, published: true }, space: { organizationId } },
            select: { siteId: true, space: { select: { revisionId: true } } },
          });
          const revisionIds = [...new Set(places.map((place) => place.space.revisionId))];
          const [revisions, pages] = await Promise.all([this.revisionById.loadMany(revisionIds), this.pagesByRevisionId.loadMany(revisionIds)]);
          const referencingRevisions = new Set(
            revisionIds.filter((_, i) => {
              const revision = revisions[i];
              const list = pages[i];
              const hashes = [
                ...(list instanceof Error || !list ? [] : list.map((page) => page.documentHash)),
                ...(revision instanceof Error || !revision ? [] : reusableContentsOf(revision.reusableContents).map((content) => content.documentHash)),
              ];
              return hashes.some((hash) => hash !== null && referencing.has(hash));
            }),
          );
          return [...new Set(places.filter((place) => referencingRevisions.has(place.space.revisionId)).map((place) => place.siteId))];
        }),
      ),
  );

  /** document hash -> the document */
  readonly documentByHash = this.cached(['ContentDocument'], async (hashes: readonly string[]) => {
    const rows = await this.db.contentDocument.findMany({ where: { hash: { in: [...hashes] } } });
    const byHash = new Map(rows.map((r) => [r.hash, storedDocument(r.json)]));
    return hashes.map((h) => byHash.get(h) ?? null);
  });
}

function groupBy<Row, Out>(keys: readonly string[], rows: Row[], keyOf: (row: Row) => string, map: (row: Row) => Out): Out[][] {
  const byKey = new Map<string, Out[]>();
  for (const row of rows) {
    const list = byKey.get(keyOf(row)) ?? [];
    list.push(map(row));
    byKey.set(keyOf(row), list);
  }
  return keys.map((k) => byKey.get(k) ?? []);
}

/** Code-unit order (as SQLite's BINARY collation): the same on every database. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
