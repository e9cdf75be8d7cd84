/** Full-text search of a space's current content (the index of src/search/). */
import { z } from 'zod';
import { builder } from '../../builder.ts';
import { searchSpace, type SearchPageHit, type SearchSectionHit } from '../../search/search-index.ts';
import { ListNext, pageArgs, DEFAULT_PAGE_SIZE } from '../shared/pagination.ts';
import { loadSpace } from '../space/queries.ts';

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

builder.queryField('searchSpaceContent', (t) =>
  t.field({
    type: SearchPageList,
    description: 'Pages of the space content matching the words of `query`, most relevant first',
    authScopes: { authenticated: true },
    args: {
      spaceId: t.arg.id({ required: true }),
      query: t.arg.string({ required: true, validate: z.string().trim().min(1, 'must not be empty').max(512, 'must be at most 512 characters') }),
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
