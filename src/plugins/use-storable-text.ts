/**
 * Refuses text no database stores (NUL, unpaired surrogates: see
 * src/db/storable-text.ts) wherever input enters the schema: every string of
 * every variable (JSON values and their member names included) and every
 * string written in the document's arguments and variable defaults, before
 * anything runs. One check for /graphql, graphql-ws and the REST routes (which
 * execute their documents through the same pipeline); a 400 naming where the
 * text was (UnstorableTextError), and nothing is written. The REST runtime
 * renames a variable's place to the parameter or body field it came from.
 */
import { Kind, visit, type DocumentNode, type ValueNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { unstorableText } from '../db/storable-text.ts';
import { type InputPath, UnstorableTextError } from '../errors/index.ts';
import { toGraphQLError } from '../errors/mask.ts';

/** The first string of `value` a database cannot store, depth first, with where it is; plain objects and arrays are searched, nothing else. */
function findInValue(value: unknown): { problem: string; path: InputPath } | null {
  const stack: { value: unknown; path: InputPath }[] = [{ value, path: [] }];
  while (stack.length) {
    const { value: at, path } = stack.pop()!;
    if (typeof at === 'string') {
      const problem = unstorableText(at);
      if (problem) return { problem, path };
    } else if (Array.isArray(at)) {
      for (let i = at.length - 1; i >= 0; i--) stack.push({ value: at[i], path: [...path, i] });
    } else if (at !== null && typeof at === 'object' && (Object.getPrototypeOf(at) === Object.prototype || Object.getPrototypeOf(at) === null)) {
      const entries = Object.entries(at);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, member] = entries[i]!;
        // A member name of a JSON value is stored as well.
        const problem = unstorableText(key);
        if (problem) return { problem, path: [...path, key] };
        stack.push({ value: member, path: [...path, key] });
      }
    }
  }
  return null;
}

function findInLiteral(node: ValueNode, path: InputPath): { problem: string; path: InputPath } | null {
  switch (node.kind) {
    case Kind.STRING: {
      const problem = unstorableText(node.value);
      return problem ? { problem, path } : null;
    }
    case Kind.LIST:
      for (const [i, item] of node.values.entries()) {
        const found = findInLiteral(item, [...path, i]);
        if (found) return found;
      }
      return null;
    case Kind.OBJECT:
      for (const field of node.fields) {
        const found = findInLiteral(field.value, [...path, field.name.value]);
        if (found) return found;
      }
      return null;
    default:
      return null;
  }
}

/** The first unstorable text of an operation: in its variables, then in what the document writes. */
export function findUnstorableText(document: DocumentNode, variables: Record<string, unknown> | null | undefined): UnstorableTextError | null {
  for (const [name, value] of Object.entries(variables ?? {})) {
    const found = findInValue(value);
    if (found) return new UnstorableTextError(found.problem, { variable: name, path: found.path });
  }
  let error: UnstorableTextError | null = null;
  visit(document, {
    Argument(node) {
      const found = error ? null : findInLiteral(node.value, []);
      if (found) error = new UnstorableTextError(found.problem, { argument: node.name.value, path: found.path });
      return false;
    },
    VariableDefinition(node) {
      const found = error || !node.defaultValue ? null : findInLiteral(node.defaultValue, []);
      if (found) error = new UnstorableTextError(found.problem, { variable: node.variable.name.value, path: found.path });
      return false;
    },
  });
  return error;
}

export function useStorableText(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const error = findUnstorableText(args.document, args.variableValues as Record<string, unknown> | undefined);
      if (error) setResultAndStopExecution({ errors: [toGraphQLError(error)] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const error = findUnstorableText(args.document, args.variableValues as Record<string, unknown> | undefined);
      if (error) setResultAndStopExecution({ errors: [toGraphQLError(error)] });
    },
  };
}
