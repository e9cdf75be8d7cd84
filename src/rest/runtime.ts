/**
 * The REST runtime: one yoga plugin serving every generated route. It
 * matches the request, builds the operation's variables from the path, query
 * string and JSON body, executes the operation through yoga's envelop
 * pipeline (same context, auth and resolvers as /graphql) and writes the body
 * and status of the wire contract. It has no per-endpoint code. The documents
 * are ours and fixed at build time: each is parsed and validated once per
 * schema, when its route is first used, not per request, so graphql-armor's
 * limits (per-request validation rules) stay with client documents, and a
 * start does not pay for the documents of every route (docs/decisions.md,
 * "REST adapter").
 */
import FindMyWay from 'find-my-way';
import {
  GraphQLError,
  Kind,
  isListType,
  isNonNullType,
  parse,
  specifiedRules,
  typeFromAST,
  validate,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type TypeNode,
} from 'graphql';
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import { InvalidInputError, MethodNotAllowedError, NotFoundError, UnstorableTextError, inputPathName } from '../errors/index.ts';
import { toAppError } from '../errors/to-app-error.ts';
import { checkInput, coerceQueryValue } from './check-input.ts';
import { conditionalGet } from './http-cache.ts';
import type { RestRoute } from './route.ts';

export const REST_PREFIX = '/v1';

interface PreparedRoute extends RestRoute {
  parsed: DocumentNode;
  operation: OperationDefinitionNode;
  /** What the body keeps of the operation's data. */
  shape: ReplyShape | null;
}

/** The Response class of the server's fetch API (whatwg-node's, whose string bodies skip a stream). */
type ResponseClass = typeof Response;

/** The REST error body, used for every 4xx and 5xx under /v1. */
export function errorResponse(
  status: number,
  message: string,
  headers: Record<string, string> = {},
  ResponseOf: ResponseClass = Response,
): Response {
  return new ResponseOf(JSON.stringify({ error: { code: status, message } }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

function prepare(route: RestRoute): PreparedRoute {
  const parsed = parse(route.document);
  const operation = parsed.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const fragments = new Map(
    parsed.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
  );
  return { ...route, parsed, operation, shape: replyShape([operation.selectionSet], fragments) };
}

async function readJsonBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidInputError('The request body is not valid JSON');
  }
}

/**
 * The operation's variables from the path, the query string and the JSON
 * body, each checked strictly against its GraphQL type (./check-input.ts);
 * `bodyIsOneItem`: a body of a list type was one object, listed here.
 */
async function buildVariables(route: PreparedRoute, schema: GraphQLSchema, request: Request, url: URL, params: Record<string, string | undefined>) {
  const variables: Record<string, unknown> = {};
  let bodyIsOneItem = false;
  for (const variable of route.variables) {
    const type = typeFromAST(schema, parseType(variable.type)) as GraphQLInputType | undefined;
    if (!type) throw new Error(`Unknown type ${variable.type} in ${route.operationName}`);
    if (variable.source === 'path') {
      variables[variable.name] = checkInput(params[variable.name], type, variable.name);
    } else if (variable.source === 'body') {
      const body = await readJsonBody(request);
      // A body of a list type (ingesting conversations) is one object or an array of them.
      const list = isNonNullType(type) ? type.ofType : type;
      const takesList = isListType(list);
      if (body !== undefined && (typeof body !== 'object' || body === null || (Array.isArray(body) && !takesList))) {
        throw new InvalidInputError(takesList ? 'The request body must be a JSON object or an array of them' : 'The request body must be a JSON object');
      }
      // One object is checked as the item it is (its fields named from the body's root), then listed.
      if (isListType(list) && body !== undefined && !Array.isArray(body)) {
        bodyIsOneItem = true;
        variables[variable.name] = [checkInput(body, list.ofType, '')];
      } else variables[variable.name] = checkInput(body ?? (takesList ? [] : {}), type, '');
    } else {
      const values = url.searchParams.getAll(variable.name);
      const inner = isNonNullType(type) ? type.ofType : type;
      if (values.length === 0) checkInput(undefined, type, variable.name);
      else if (isListType(inner)) variables[variable.name] = values.map((v) => coerceQueryValue(variable.name, v, inner.ofType));
      else variables[variable.name] = coerceQueryValue(variable.name, values[values.length - 1]!, type);
    }
  }
  return { variables, bodyIsOneItem };
}

const typeCache = new Map<string, TypeNode>();
function parseType(source: string): TypeNode {
  let node = typeCache.get(source);
  if (!node) {
    const doc = parse(`query($v: ${source}) { __typename }`);
    node = (doc.definitions[0] as OperationDefinitionNode).variableDefinitions![0]!.type;
    typeCache.set(source, node);
  }
  return node;
}

/**
 * What the body keeps of a reply: per response key, whether a null stays
 * (`@keepNull`), whether the key stays out (`@omit` on every selection of it, or on every field beneath it)
 * and the shape beneath it. Built once per route from the
 * document, merging every selection of a response key (selected directly and
 * through fragments, or in several fragments) as GraphQL merges fields: the
 * reply of a key holds the union of their subfields, so the shape does too.
 * Type conditions are not told apart (the reply has no `__typename`): the
 * reply itself holds the keys GraphQL selected for the object's runtime type,
 * in their order, and the shape only says what to keep of each.
 */
export interface ReplyShape {
  fields: Map<string, { keepNull: boolean; omit: boolean; shape: ReplyShape | null }>;
}

/** The shape of the union of `selectionSets` (null when there are none: a leaf). */
export function replyShape(selectionSets: readonly SelectionSetNode[], fragments: ReadonlyMap<string, FragmentDefinitionNode>): ReplyShape | null {
  if (selectionSets.length === 0) return null;
  const byKey = new Map<string, FieldNode[]>();
  const collect = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const key = (selection.alias ?? selection.name).value;
        const nodes = byKey.get(key);
        if (nodes) nodes.push(selection);
        else byKey.set(key, [selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.selectionSet);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (fragment) collect(fragment.selectionSet);
      }
    }
  };
  for (const set of selectionSets) collect(set);
  const fields: ReplyShape['fields'] = new Map();
  for (const [key, nodes] of byKey) {
    const shape = replyShape(nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : [])), fragments);
    fields.set(key, {
      keepNull: nodes.some((node) => node.directives?.some((d) => d.name.value === 'keepNull')),
      // An object whose every field is omitted (`urls { location @omit }`) stays out too, rather than send `{}`.
      omit: nodes.every((node) => node.directives?.some((d) => d.name.value === 'omit')) || (shape !== null && [...shape.fields.values()].every((f) => f.omit)),
      shape,
    });
  }
  return { fields };
}

/** Drops null fields from the reply unless the document marks them `@keepNull`, and fields marked `@omit` (see ReplyShape). */
export function pruneNulls(value: unknown, shape: ReplyShape | null | undefined): unknown {
  if (value === null || value === undefined || !shape) return value;
  if (Array.isArray(value)) return value.map((v) => pruneNulls(v, shape));
  // In the reply's own key order: GraphQL's, for the runtime type of the object.
  const out: Record<string, unknown> = {};
  for (const [key, fieldValue] of Object.entries(value as Record<string, unknown>)) {
    const field = shape.fields.get(key);
    if (field?.omit || (fieldValue === null && !field?.keepNull)) continue;
    out[key] = pruneNulls(fieldValue, field?.shape);
  }
  return out;
}

/** The shape at a dot path of response keys. */
function shapeAt(shape: ReplyShape | null, path: string[]): ReplyShape | null {
  let at = shape;
  for (const key of path) at = at?.fields.get(key)?.shape ?? null;
  return at;
}

/** The HTTP status of a failed execution: the highest status any error carries. */
function errorStatus(errors: readonly GraphQLError[], hasData: boolean): number {
  let status = 0;
  for (const error of errors) {
    const s = (error.extensions?.http as { status?: number } | undefined)?.status;
    if (typeof s === 'number' && s > status) status = s;
    else if (s === undefined && error.extensions?.unexpected) status = Math.max(status, 500); // masked by yoga: the server's
  }
  // Errors without a status before execution (variable coercion, validation) are the caller's: 400.
  return status || (hasData ? 500 : 400);
}

/**
 * Validates the routes' documents against `schema` with graphql-js's standard
 * rules; throws one error naming every document that fails. The REST runtime
 * runs this once per schema instead of validating per request (see "REST
 * adapter" in docs/decisions.md), so a broken document fails at startup.
 */
export function validateRestDocuments(schema: GraphQLSchema, routes: readonly RestRoute[]): void {
  validatePrepared(schema, routes.map(prepare));
}

function validatePrepared(schema: GraphQLSchema, routes: readonly PreparedRoute[]): void {
  const failures = routes.flatMap((route) =>
    validate(schema, route.parsed, specifiedRules).map((error) => `${route.operationName} (${route.method} ${route.path}): ${error.message}`),
  );
  if (failures.length) throw new Error(`Invalid REST documents:\n${failures.join('\n')}`);
}

export interface RestRoutesOptions {
  routes: RestRoute[];
  /** Called with the matched route pattern (for metrics), or null when nothing matched. */
  onMatch?: (request: Request, route: string | null) => void;
}

export function useRestRoutes(options: RestRoutesOptions): Plugin {
  const router = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true });
  for (const route of options.routes) {
    router.on(route.method, route.path.replace(/\{(\w+)\}/g, ':$1'), () => undefined, route);
  }
  let yoga: YogaServerInstance<Record<string, unknown>, Record<string, unknown>>;
  // Our documents are fixed at build time (a test validates every one of them): each is parsed on
  // its route's first request and validated once per schema it runs on, with graphql-js's standard
  // rules and not the per-request validate() (where graphql-armor's limits, meant for arbitrary
  // client documents, run). Preparing all of them at start took a third of a restart.
  const preparedRoutes = new Map<RestRoute, PreparedRoute>();
  const validated = new WeakMap<GraphQLSchema, Set<RestRoute>>();
  const preparedFor = (route: RestRoute, schema: GraphQLSchema): PreparedRoute => {
    let prepared = preparedRoutes.get(route);
    if (!prepared) preparedRoutes.set(route, (prepared = prepare(route)));
    let routes = validated.get(schema);
    if (!routes) validated.set(schema, (routes = new Set()));
    if (!routes.has(route)) {
      validatePrepared(schema, [prepared]);
      routes.add(route);
    }
    return prepared;
  };

  async function handle(request: Request, url: URL, serverContext: Record<string, unknown>, ResponseOf: ResponseClass): Promise<Response> {
    const method = request.method.toUpperCase();
    const match = router.find(method as never, url.pathname);
    if (!match) {
      options.onMatch?.(request, null);
      const otherMethod = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].some((m) => m !== method && router.find(m as never, url.pathname));
      if (otherMethod) throw new MethodNotAllowedError(`${method} is not supported on ${url.pathname}`);
      throw new NotFoundError('Endpoint', `${method} ${url.pathname}`);
    }
    options.onMatch?.(request, (match.store as RestRoute).path);
    const { schema, contextFactory, execute } = yoga.getEnveloped({ request, ...serverContext });
    const route = preparedFor(match.store as RestRoute, schema);
    // The caller first: a token that is invalid or revoked is a 401 whatever the body holds.
    const contextValue = await contextFactory();
    const { variables: variableValues, bodyIsOneItem } = await buildVariables(route, schema, request, url, match.params);
    const result = (await execute({ schema, document: route.parsed, contextValue, variableValues, operationName: route.operationName })) as {
      data?: Record<string, unknown> | null;
      errors?: readonly GraphQLError[];
    };
    if (result.errors?.length) {
      const unstorable = toAppError(result.errors[0]);
      if (unstorable instanceof UnstorableTextError && unstorable.variable !== null) {
        throw new InvalidInputError(`${restName(route, unstorable.variable, unstorable.path, bodyIsOneItem)}: ${unstorable.problem}`);
      }
      const status = errorStatus(result.errors, result.data != null);
      // The error that set the status speaks: an AppError's message is meant for the caller (a 503's too).
      const answered = result.errors.find((e) => (e.extensions?.http as { status?: number } | undefined)?.status === status) ?? result.errors[0]!;
      const headers = (answered.extensions?.http as { headers?: Record<string, string> } | undefined)?.headers ?? {};
      const message = status >= 500 && !toAppError(answered) ? 'Unexpected error' : answered.message;
      return errorResponse(status, message, headers, ResponseOf);
    }
    const alternate = route.replyWhen && url.searchParams.get(route.replyWhen.param) === route.replyWhen.equals;
    const path = (alternate ? route.replyWhen!.reply : route.reply).split('.');
    const at = (dotPath: string[]) => dotPath.reduce<unknown>((value, key) => (value as Record<string, unknown> | null)?.[key], result.data);
    const data = at(path);
    const status = route.createdWhen && at(route.createdWhen.split('.')) === true ? 201 : route.status;
    // A creation says where the new resource lives, as the wire contract's Location header: its
    // `urls.location`, selected `@omit` where the contract's body has none. A 204 that started a job
    // names the job the same way (Job.urls.location), so the client can follow it.
    const location = status === 201 || status === 204 ? (data as { urls?: { location?: unknown } } | null)?.urls?.location : undefined;
    const locationHeader: Record<string, string> = typeof location === 'string' ? { location } : {};
    // 204/205, and an action answering only true (a 201 "template applied"), send no body.
    if (status === 204 || status === 205 || data === true) {
      return new ResponseOf(null, { status: status === 205 && data === false ? 204 : status, headers: locationHeader });
    }
    if (data === null || data === undefined) throw new NotFoundError('Resource');
    const body = JSON.stringify(pruneNulls(data, shapeAt(route.shape, path)));
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', ...locationHeader };
    // A GET answers its ETag, and 304 to a client that holds it (./http-cache.ts).
    if (method === 'GET' && status === 200) return conditionalGet(request, body, headers, ResponseOf);
    return new ResponseOf(body, { status, headers });
  }

  return {
    onYogaInit({ yoga: instance }) {
      yoga = instance as never;
    },
    async onRequest({ request, url, endResponse, serverContext, fetchAPI }) {
      if (url.pathname !== REST_PREFIX && !url.pathname.startsWith(`${REST_PREFIX}/`)) return;
      try {
        endResponse(await handle(request, url, (serverContext ?? {}) as Record<string, unknown>, fetchAPI.Response));
      } catch (error) {
        endResponse(restErrorResponse(error, yoga, fetchAPI.Response));
      }
    },
  };
}

/**
 * What the caller of `route` called the value at `path` of a variable: the
 * path or query parameter of the same name (`spaceId`, `query`, `ids[1]`), or
 * the body field (`parent.title`: the body is the variable's value).
 */
function restName(route: PreparedRoute, variable: string, path: readonly (string | number)[], bodyIsOneItem: boolean): string {
  const source = route.variables.find((v) => v.name === variable)?.source;
  // A body of one object sent for a list: its fields are named from the body's root, not `[0]`.
  if (source === 'body') return inputPathName('', bodyIsOneItem && path[0] === 0 ? path.slice(1) : path);
  return inputPathName(variable, path);
}

/** Any error raised while serving a REST request, in the REST error shape. */
export function restErrorResponse(
  error: unknown,
  yoga?: { logger: { error: (...args: unknown[]) => void } },
  ResponseOf: ResponseClass = Response,
): Response {
  const appError = toAppError(error);
  if (appError) return errorResponse(appError.status, appError.message, appError.headers, ResponseOf);
  if (error instanceof GraphQLError) {
    // A GraphQLError without a status is the caller's (parse, validation), unless yoga masked it as unexpected.
    const status = (error.extensions?.http as { status?: number } | undefined)?.status ?? (error.extensions?.unexpected ? 500 : 400);
    const headers = (error.extensions?.http as { headers?: Record<string, string> } | undefined)?.headers ?? {};
    return errorResponse(status, status >= 500 ? 'Unexpected error' : error.message, headers, ResponseOf);
  }
  yoga?.logger.error(error);
  return errorResponse(500, 'Unexpected error', {}, ResponseOf);
}

