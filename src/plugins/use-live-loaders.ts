/**
 * Keeps each GraphQL execution's loaders (REST routes included) in the app's
 * LiveLoaders while it runs, so the database client's write hook reaches them
 * (src/loaders.ts). Subscriptions do not join: they only read, and decide
 * with what they read when they started.
 */
import type { Plugin } from 'graphql-yoga';
import type { LiveLoaders, Loaders } from '../loaders.ts';

export function useLiveLoaders(live: LiveLoaders): Plugin<{ loaders: Loaders }> {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args) => live.during((args.contextValue as { loaders: Loaders }).loaders, () => executeFn(args)));
    },
  };
}
