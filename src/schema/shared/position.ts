/**
 * Order of spaces and collections under one parent (a collection, or the
 * organization's top level). Positions are fractional, so moving one item
 * rewrites one row and list cursors stay valid.
 */
import { z } from 'zod';
import { builder } from '../../builder.ts';

const pointer = z.union([
  z.object({ type: z.literal('space'), space: z.string().min(1) }).strict(),
  z.object({ type: z.literal('collection'), collection: z.string().min(1) }).strict(),
]);


const ContentPointerInput = builder.inputType('ContentPointerInput', {
  fields: (t) => ({
    type: t.string({ required: true, description: '`space` or `collection`' }),
    space: t.string(),
    collection: t.string(),
  }),
});

export const ContentPositionInput = builder.inputType('ContentPositionInput', {
  description: 'Where to put an item among its siblings: before or after one of them',
  fields: (t) => ({
    before: t.field({ type: ContentPointerInput }),
    after: t.field({ type: ContentPointerInput }),
  }),
  validate: z
    .object({ before: pointer.nullish(), after: pointer.nullish() })
    .refine((p) => !(p.before && p.after), 'give `before` or `after`, not both')
    // `{}` names no place: an invalid position (a 400, as api.md's "invalid position"), not "at the end".
    .refine((p) => Boolean(p.before || p.after), 'give `before` or `after`'),
});

