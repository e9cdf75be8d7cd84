/** Full-text search of a space's current content, and of an organization's spaces (the index of src/search/). */
import { z } from 'zod';
import { builder } from '../../builder.ts';
import { DEFAULT_PAGE_SIZE } from '../../db/pagination.ts';
import { searchOrganization, searchSpace, type SearchOrganizationResult, type SearchPageHit, type SearchSectionHit } from '../../search/search-index.ts';
import { loadOrganization } from '../../services/organization.ts';
import { loadReadableSite } from '../../services/site.ts';
import { loadSpace } from '../../services/space.ts';
import { revisionView } from '../../services/space-content.ts';
import type { Context } from '../../context.ts';
import { InvalidInputError } from '../../errors/index.ts';
import { readableSiteArgs } from '../site/args.ts';
import { ListNext, pageArgs } from '../shared/pagination.ts';

interface HitView {
  hit: SearchPageHit;
  app: (path: string) => string;
  /** The space searched and the revision its index was read at (its current one). */
  space: { id: string; organizationId: string; revisionId: string };
}

/** A hit's page as its space's current revision has it (batched: one tree per space of the response); null when gone. */
async function pageOf(ctx: Context, view: HitView) {
  const revision = await revisionView(ctx, view.space.revisionId, view.space);
  if (!revision) return null;
  const { byId } = await ctx.loaders.revisionTree.load(revision);
  return byId.get(view.hit.id)?.page ?? null;
}

/**
 * A hit's parent pages (id and title), the top one first, from the space's current revision (batched:
 * one tree per space of the response). Read when asked rather than indexed, so that renaming a page
 * needs no reindexing of everything below it.
 */
async function ancestorsOf(ctx: Context, view: HitView): Promise<Array<{ id: string; title: string }>> {
  const revision = await revisionView(ctx, view.space.revisionId, view.space);
  if (!revision) return [];
  const { byId } = await ctx.loaders.revisionTree.load(revision);
  const ancestors: Array<{ id: string; title: string }> = [];
  // Bounded by the tree's size: writers never make a cycle, a guard all the same.
  for (let parent = byId.get(byId.get(view.hit.id)?.page.parentId ?? ''); parent && ancestors.length < byId.size; parent = byId.get(parent.page.parentId ?? '')) {
    ancestors.unshift({ id: parent.page.id, title: parent.page.title });
  }
  return ancestors;
}

const SearchPageAncestor = builder.objectRef<{ id: string; title: string }>('SearchPageAncestor').implement({
  description: 'A parent page of a search result',
  fields: (t) => ({
    id: t.exposeString('id'),
    title: t.exposeString('title'),
  }),
});

const SearchSection = builder.objectRef<SearchSectionHit & { url: string }>('SearchSectionResult').implement({
  description: 'A section of a page that matches',
  fields: (t) => ({
    id: t.exposeString('id'),
    title: t.exposeString('title'),
    path: t.exposeString('path'),
    body: t.exposeString('body', { description: 'A snippet around the match' }),
    score: t.exposeFloat('score', { description: 'Relevance of the section (the search index\'s rank): higher is better, unbounded, never negative' }),
    urls: t.field({ type: 'JSON', resolve: (s) => ({ app: s.url }) }),
  }),
});

const SearchPage = builder.objectRef<HitView>('SearchPageResult').implement({
  description: 'A page that matches, with its matching sections',
  fields: (t) => ({
    id: t.string({ resolve: (v) => v.hit.id }),
    title: t.string({ resolve: (v) => v.hit.title }),
    path: t.string({ resolve: (v) => v.hit.path }),
    description: t.string({
      description: "The page's description, from the space's current revision ('' when it has none)",
      resolve: async (v, _a, ctx) => (await pageOf(ctx, v))?.description ?? '',
    }),
    score: t.float({ description: "Relevance of the page: its best section's score", resolve: (v) => v.hit.score }),
    rank: t.int({ description: 'One-based position of the page in the ranked results, across result pages', resolve: (v) => v.hit.rank }),
    sections: t.field({ type: [SearchSection], resolve: (v) => v.hit.sections.map((s) => ({ ...s, url: v.app(s.path) })) }),
    ancestors: t.field({ type: [SearchPageAncestor], description: "The page's parents (pages and groups), the top one first", resolve: (v, _a, ctx) => ancestorsOf(ctx, v) }),
    urls: t.field({ type: 'JSON', resolve: (v) => ({ app: v.app(v.hit.path) }) }),
  }),
});

const SearchPageList = builder.objectRef<{ items: HitView[]; next: { page: string } | null }>('SearchPageResultList').implement({
  fields: (t) => ({
    items: t.field({ type: [SearchPage], resolve: (l) => l.items }),
    next: t.field({ type: ListNext, nullable: true, resolve: (l) => l.next }),
  }),
});

interface SpaceHitView {
  id: string;
  title: string;
  score: number;
  pages: HitView[];
}

const SearchSpace = builder.objectRef<SpaceHitView>('SearchSpaceResult').implement({
  description: 'A space with pages that match',
  fields: (t) => ({
    id: t.string({ resolve: (v) => v.id }),
    title: t.string({ resolve: (v) => v.title }),
    type: t.string({ description: 'Always `space` (0.202.0 also has results of site context records, which this service has none of)', resolve: () => 'space' }),
    score: t.float({ description: "Relevance of the space: its best section's score", resolve: (v) => v.score }),
    pages: t.field({ type: [SearchPage], description: 'Its best matching pages, most relevant first', resolve: (v) => v.pages }),
  }),
});

const SearchSpaceList = builder.objectRef<{ items: SpaceHitView[]; next: { page: string } | null }>('SearchSpaceResultList').implement({
  fields: (t) => ({
    items: t.field({ type: [SearchSpace], resolve: (l) => l.items }),
    next: t.field({ type: ListNext, nullable: true, resolve: (l) => l.next }),
  }),
});

/** Spaces per result page of an organization search when the caller gives no `limit`: each is one more search. */
const ORGANIZATION_SEARCH_PAGE_SIZE = 20;
/** Pages returned for each space of an organization search. */
const PAGES_PER_SPACE = 5;

/** The spaces of an organization or site search, with their titles and pages (one statement for the titles). */
async function spaceResults(ctx: Context, organizationId: string, result: SearchOrganizationResult) {
  const rows = await ctx.db.space.findMany({ where: { id: { in: result.items.map((i) => i.spaceId) } }, select: { id: true, title: true, revisionId: true } });
  const found = new Map(rows.map((row) => [row.id, row]));
  return {
    items: result.items.map(({ spaceId, score, pages }) => {
      const app = (path: string) => ctx.urls.app(`/o/${organizationId}/s/${spaceId}/${path}`);
      const space = { id: spaceId, organizationId, revisionId: found.get(spaceId)?.revisionId ?? '' };
      return { id: spaceId, title: found.get(spaceId)?.title ?? '', score, pages: pages.map((hit) => ({ hit, app, space })) };
    }),
    next: result.next ? { page: result.next } : null,
  };
}

const searchQuery = () =>
  z.string().trim().min(1, 'must not be empty').max(512, 'must be at most 512 characters');

builder.queryField('searchOrganizationContent', (t) =>
  t.field({
    type: SearchSpaceList,
    description: `Spaces of the organization whose content matches the words of \`query\`, most relevant first, each with its ${PAGES_PER_SPACE} best pages`,
    authScopes: { authenticated: true },
    args: {
      organizationId: t.arg.id({ required: true }),
      query: t.arg.string({ required: true, validate: searchQuery() }),
      ...pageArgs,
    },
    resolve: async (_root, args, ctx) => {
      // Every member reads every space of the organization (roles only rise from there): no space is filtered out.
      const organization = await loadOrganization(ctx, String(args.organizationId), 'space:read', { select: { id: true } });
      const result = await searchOrganization(ctx.db, ctx.provider, {
        organizationId: organization.id,
        query: args.query,
        limit: args.limit ?? ORGANIZATION_SEARCH_PAGE_SIZE,
        after: args.page,
        pagesPerSpace: PAGES_PER_SPACE,
      });
      return spaceResults(ctx, organization.id, result);
    },
  }),
);

const SearchSiteContentInput = builder.inputType('SearchSiteContentInput', {
  description: 'What to search a site for, and in which of its site spaces (`scope`; `mode` and its members are the deprecated way)',
  fields: (t) => ({
    query: t.string({ required: true, validate: searchQuery() }),
    scope: t.field({
      type: 'JSON',
      description: '{mode: "default", currentSiteSpace?} (each section\'s default site space, and that one), {mode: "specific", siteSpaceIds}, or {mode: "all"}',
    }),
    mode: t.string({ description: 'Deprecated: specific (with siteSpaceIds), current (with siteSpaceId: it and the defaults) or all' }),
    siteSpaceIds: t.stringList(),
    siteSpaceId: t.string(),
  }),
});

type SiteSearchScope = { mode: 'default'; current: string | null } | { mode: 'specific'; siteSpaceIds: string[] } | { mode: 'all' };

/** The scope of a site search, from `scope` or the deprecated members; 400 when it is neither. */
function siteSearchScope(input: { scope?: unknown; mode?: string | null; siteSpaceIds?: string[] | null; siteSpaceId?: string | null }): SiteSearchScope {
  const bad = (message: string): never => {
    throw new InvalidInputError(message);
  };
  if (input.scope !== undefined && input.scope !== null) {
    const scope = input.scope as Record<string, unknown>;
    if (typeof scope !== 'object' || Array.isArray(scope)) bad('scope: must be an object { mode, ... }');
    if (scope.mode === 'all') return { mode: 'all' };
    if (scope.mode === 'default') {
      if (scope.currentSiteSpace !== undefined && typeof scope.currentSiteSpace !== 'string') bad('scope: currentSiteSpace: must be a site space id');
      return { mode: 'default', current: (scope.currentSiteSpace as string | undefined) ?? null };
    }
    if (scope.mode === 'specific') {
      const ids = scope.siteSpaceIds;
      if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => typeof id !== 'string')) bad('scope: siteSpaceIds: must be a list of site space ids, at least one');
      return { mode: 'specific', siteSpaceIds: ids as string[] };
    }
    return bad('scope: mode: must be default, specific or all');
  }
  if (input.siteSpaceIds && (input.mode === undefined || input.mode === null || input.mode === 'specific')) {
    if (input.siteSpaceIds.length === 0) bad('siteSpaceIds: at least one site space id');
    return { mode: 'specific', siteSpaceIds: input.siteSpaceIds };
  }
  if (input.mode === 'current') return { mode: 'default', current: input.siteSpaceId ?? bad('siteSpaceId: required with mode current') };
  if (input.mode === 'all') return { mode: 'all' };
  if (input.mode !== undefined && input.mode !== null) bad('mode: must be specific, current or all');
  return { mode: 'default', current: null };
}

builder.queryField('searchSiteContent', (t) =>
  t.field({
    type: SearchSpaceList,
    description: `The spaces of a site whose content matches the words of \`query\`, most relevant first, each with its ${PAGES_PER_SPACE} best pages; for its members, or its visitors with a share key`,
    authScopes: { caller: true },
    args: { ...readableSiteArgs, input: t.arg({ type: SearchSiteContentInput, required: true }), ...pageArgs },
    resolve: async (_root, args, ctx) => {
      const site = await loadReadableSite(ctx, String(args.organizationId), String(args.siteId), args.shareKey);
      const scope = siteSearchScope(args.input);
      const { visitorHidden } = ctx.access;
      // A site token's visitor searches what they see: not the site spaces or sections whose condition is false for them.
      const siteSpaces = (await ctx.db.siteSpace.findMany({ where: { siteId: site.id }, select: { id: true, spaceId: true, sectionId: true } })).filter(
        (ss) => !visitorHidden.siteSpaces.has(ss.id) && !(ss.sectionId && visitorHidden.sections.has(ss.sectionId)),
      );
      const byId = new Map(siteSpaces.map((ss) => [ss.id, ss]));
      let chosen = siteSpaces;
      if (scope.mode === 'specific' || (scope.mode === 'default' && scope.current !== null)) {
        const ids = scope.mode === 'specific' ? scope.siteSpaceIds : [scope.current!];
        const unknown = ids.filter((id) => !byId.has(id));
        if (unknown.length) throw new InvalidInputError(`${scope.mode === 'specific' ? 'siteSpaceIds' : 'currentSiteSpace'}: no site space ${unknown.join(', ')} on this site`);
      }
      if (scope.mode === 'specific') chosen = scope.siteSpaceIds.map((id) => byId.get(id)!);
      else if (scope.mode === 'default') {
        // Each section's default site space (its first when it names none), the site's own without sections, and the current one.
        const sections = await ctx.db.siteSection.findMany({ where: { siteId: site.id }, select: { id: true, defaultSiteSpaceId: true } });
        const defaults = new Set(sections.map((section) => section.defaultSiteSpaceId ?? siteSpaces.find((ss) => ss.sectionId === section.id)?.id));
        chosen = siteSpaces.filter((ss) => ss.sectionId === null || defaults.has(ss.id) || ss.id === scope.current);
      }
      const result = await searchOrganization(ctx.db, ctx.provider, {
        organizationId: site.organizationId,
        query: args.input.query,
        limit: args.limit ?? ORGANIZATION_SEARCH_PAGE_SIZE,
        after: args.page,
        pagesPerSpace: PAGES_PER_SPACE,
        spaceIds: [...new Set(chosen.map((ss) => ss.spaceId))],
      });
      return spaceResults(ctx, site.organizationId, result);
    },
  }),
);

builder.queryField('searchSpaceContent', (t) =>
  t.field({
    type: SearchPageList,
    description: 'Pages of the space content matching the words of `query`, most relevant first',
    authScopes: { authenticated: true },
    args: {
      spaceId: t.arg.id({ required: true }),
      query: t.arg.string({ required: true, validate: searchQuery() }),
      ...pageArgs,
    },
    resolve: async (_root, args, ctx) => {
      const space = await loadSpace(ctx, String(args.spaceId), 'space:read');
      const result = await searchSpace(ctx.db, ctx.provider, { spaceId: space.id, query: args.query, limit: args.limit ?? DEFAULT_PAGE_SIZE, after: args.page });
      const app = (path: string) => ctx.urls.app(`/o/${space.organizationId}/s/${space.id}/${path}`);
      return { items: result.items.map((hit) => ({ hit, app, space })), next: result.next ? { page: result.next } : null };
    },
  }),
);
