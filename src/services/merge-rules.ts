/** Merge rules as the wire contract shapes them, validated with zod and stored in Json columns. */
import { z } from 'zod';
import type { Prisma } from '../db/client.ts';

const withUsers = (rule: string) => z.object({ rule: z.literal(rule), users: z.array(z.string()) }).strict();

export const mergeRule = z.union([
  withUsers('require_specific_reviewers'),
  withUsers('require_one_of_specific_reviewers'),
  withUsers('allow_bypass'),
  z
    .object({
      rule: z.enum([
        'require_at_least_one_review',
        'require_all_reviews_approved',
        'require_agent_review',
        'require_up_to_date_change_request',
        'require_change_request_subject',
        'require_change_request_description',
      ]),
    })
    .strict(),
  z.object({ rule: z.literal('custom'), expression: z.string().max(1024) }).strict(),
]);

/** Organization merge rules: explicit rules or none. */
export const standaloneMergeRules = z.union([
  z.object({ type: z.literal('rules'), rules: z.array(mergeRule) }).strict(),
  z.object({ type: z.literal('none') }).strict(),
]);

/** Space merge rules: also `inherit` from the organization. */
export const spaceMergeRules = z.union([z.object({ type: z.literal('inherit') }).strict(), standaloneMergeRules]);

export type StandaloneMergeRules = z.infer<typeof standaloneMergeRules>;
export type SpaceMergeRules = z.infer<typeof spaceMergeRules>;

/** Organization.mergeRules as stored: written only after standaloneMergeRules accepted it. */
export function storedOrganizationMergeRules(value: Prisma.JsonValue): StandaloneMergeRules {
  return value as StandaloneMergeRules;
}

/** Space.mergeRules as stored: written only after spaceMergeRules accepted it. */
export function storedSpaceMergeRules(value: Prisma.JsonValue): SpaceMergeRules {
  return value as SpaceMergeRules;
}
