/**
 * Links found in a space's content. Content (pages, documents) arrives with
 * the content issue, which extracts links when a revision is written; until
 * then a space has no content and so no links, and the list is empty.
 */
import { builder } from '../../builder.ts';
import { Space } from './type.ts';
import { pageArgs } from '../shared/pagination.ts';
import { ContentReferenceStatus } from '../shared/enums.ts';


const BrokenLinkStats = builder.objectRef<{ total: number; changeRequest: number }>('BrokenLinkStats').implement({
  fields: (t) => ({ total: t.exposeInt('total'), changeRequest: t.exposeInt('changeRequest') }),
});

const LinkStats = builder.objectRef<{ total: number; broken: { total: number; changeRequest: number } }>('LinkStats').implement({
  fields: (t) => ({ total: t.exposeInt('total'), broken: t.field({ type: BrokenLinkStats, resolve: (s) => s.broken }) }),
});

interface SpaceLinksShape {
  items: unknown[];
  next: { page: string } | null;
  count: number;
  stats: { total: number; broken: { total: number; changeRequest: number } };
}

const SpaceLinks = builder.objectRef<SpaceLinksShape>('SpaceLinks').implement({
  description: 'Links of a space, with statistics',
  fields: (t) => ({
    items: t.field({ type: ['JSON'], resolve: (l) => l.items }),
    count: t.exposeInt('count'),
    stats: t.field({ type: LinkStats, resolve: (l) => l.stats }),
  }),
});

builder.prismaObjectFields(Space, (t) => ({
  links: t.field({
    type: SpaceLinks,
    args: { ...pageArgs, status: t.arg({ type: ContentReferenceStatus }) },
    resolve: () => ({ items: [], next: null, count: 0, stats: { total: 0, broken: { total: 0, changeRequest: 0 } } }),
  }),
}));
