/** Full-text search of a space's current content, and of an organization's spaces (the index of src/search/). */
import { z } from 'zod';
import { builder } from '../../builder.ts';
import { DEFAULT_PAGE_SIZE } from '../../db/pagination.ts';
import { searchOrganization, searchSpace, type SearchPageHit, type SearchSectionHit } from '../../search/search-index.ts';
import { loadOrganization } from '../../services/organization.ts';
import { loadSpace } from '../../services/space.ts';
import { ListNext, pageArgs } from '../shared/pagination.ts';

interface HitView {
  hit: SearchPageHit;
  app: (path: string) => string;
}

const SearchSection = builder.objectRef<SearchSectionHit & { url: string }>('SearchSectionResult').implement({
  description: 'A section of a page that matches',
  fields: (t) => ({
    id: t.exposeString('id'),
    title: t.exposeString('title'),
    path: t.exposeString('path'),
    body: t.exposeString('body', { description: 'A snippet around the match' }),
    urls: t.field({ type: 'JSON', resolve: (s) => ({ app: s.url }) }),
  }),
});

const SearchPage = builder.objectRef<HitView>('SearchPageResult').implement({
  description: 'A page that matches, with its matching sections',
  fields: (t) => ({
    id: t.string({ resolve: (v) => v.hit.id }),
    title: t.string({ resolve: (v) => v.hit.title }),
    path: t.string({ resolve: (v) => v.hit.path }),
    sections: t.field({ type: [SearchSection], resolve: (v) => v.hit.sections.map((s) => ({ ...s, url: v.app(s.path) })) }),
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
  pages: HitView[];
}

const SearchSpace = builder.objectRef<SpaceHitView>('SearchSpaceResult').implement({
  description: 'A space with pages that match',
  fields: (t) => ({
    id: t.string({ resolve: (v) => v.id }),
    title: t.string({ resolve: (v) => v.title }),
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
      const titles = new Map(
        (await ctx.db.space.findMany({ where: { id: { in: result.items.map((i) => i.spaceId) } }, select: { id: true, title: true } })).map((s) => [s.id, s.title]),
      );
      return {
        items: result.items.map(({ spaceId, pages }) => {
          const app = (path: string) => ctx.urls.app(`/o/${organization.id}/s/${spaceId}/${path}`);
          return { id: spaceId, title: titles.get(spaceId) ?? '', pages: pages.map((hit) => ({ hit, app })) };
        }),
        next: result.next ? { page: result.next } : null,
      };
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
      return { items: result.items.map((hit) => ({ hit, app })), next: result.next ? { page: result.next } : null };
    },
  }),
);
