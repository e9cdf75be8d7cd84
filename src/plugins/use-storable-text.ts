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

/** Where in a document's own text (an argument, a variable's default) unstorable text is. */
type LiteralFinding = { problem: string; place: { argument: string; path: InputPath } | { variable: string; path: InputPath } };

/**
 * What each document's literals were found to hold. A document is immutable once parsed, and yoga
 * (parse cache) and the REST runtime (its prepared documents) hand the same object to every request
 * of the same text: walking a REST document's literals on every request was 3% of a GET by id.
 */
const literalFindings = new WeakMap<DocumentNode, LiteralFinding | null>();

/** The first unstorable text of an operation: in its variables, then in what the document writes. */
export function findUnstorableText(document: DocumentNode, variables: Record<string, unknown> | null | undefined): UnstorableTextError | null {
  for (const [name, value] of Object.entries(variables ?? {})) {
    const found = findInValue(value);
    if (found) return new UnstorableTextError(found.problem, { variable: name, path: found.path });
  }
  let finding = literalFindings.get(document);
  if (finding === undefined) literalFindings.set(document, (finding = findInLiterals(document)));
  return finding ? new UnstorableTextError(finding.problem, finding.place) : null;
}

/** The first unstorable text the document itself writes (arguments, variable defaults). */
function findInLiterals(document: DocumentNode): LiteralFinding | null {
  let finding: LiteralFinding | null = null;
  visit(document, {
    Argument(node) {
      const found = finding ? null : findInLiteral(node.value, []);
      if (found) finding = { problem: found.problem, place: { argument: node.name.value, path: found.path } };
      return false;
    },
    VariableDefinition(node) {
      const found = finding || !node.defaultValue ? null : findInLiteral(node.defaultValue, []);
      if (found) finding = { problem: found.problem, place: { variable: node.variable.name.value, path: found.path } };
      return false;
    },
  });
  return finding;
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
