/**
 * Keeps `Member.lastSeenAt` from real use: when an execution (GraphQL, or a
 * REST route) is done, the caller is recorded as seen in the organizations it
 * touched (src/services/member.ts `recordMemberActivity`: at most one write per
 * member per minute, one statement for all of them). Awaited before the
 * answer goes out, so a client that reads the members next sees it.
 */
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.ts';
import { recordMemberActivity } from '../services/member.ts';

export function useMemberActivity(): Plugin<Context> {
  return {
    onExecute({ args }) {
      const ctx = args.contextValue as Context;
      return {
        async onExecuteDone() {
          await recordMemberActivity(ctx);
        },
      };
    },
  };
}
