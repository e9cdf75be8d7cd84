/**
 * Runs each GraphQL execution (REST routes and subscriptions included) in
 * the scope of its request's loaders, so the database client's write hook
 * finds the loaders to invalidate (src/loaders.ts, `requestLoaders`).
 */
import type { Plugin } from 'graphql-yoga';
import { requestLoaders, type Loaders } from '../loaders.ts';

export function useRequestLoaders(): Plugin<{ loaders: Loaders }> {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args) => requestLoaders.run((args.contextValue as { loaders: Loaders }).loaders, () => executeFn(args)));
    },
    onSubscribe({ subscribeFn, setSubscribeFn }) {
      setSubscribeFn((args) => requestLoaders.run((args.contextValue as { loaders: Loaders }).loaders, () => subscribeFn(args)));
    },
  };
}
