/**
 * An execution (GraphQL, or a REST route) that wrote a change to callers (a token revoked, a
 * member removed, a grant given) answers only once every server process has forgotten the callers
 * it kept (src/auth/viewer-cache.ts): the caller's next request, wherever it lands, sees the change.
 * Without other processes, or without such a write, there is nothing to wait for.
 */
import type { Plugin } from 'graphql-yoga';
import type { ViewerCache } from '../auth/viewer-cache.ts';

export function useViewerChanges(viewers: ViewerCache): Plugin {
  return {
    onExecute() {
      return {
        async onExecuteDone() {
          await viewers.settled();
        },
      };
    },
  };
}
