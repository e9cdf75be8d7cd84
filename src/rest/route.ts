/** The shape of one generated REST route (see codegen/rest-routes.cjs). */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RestVariable {
  name: string;
  /** The variable's GraphQL type, as written in the document (`Int`, `ID!`, `UpdateSpaceInput!`). */
  type: string;
  /** Where the value comes from: a `{param}` of the path, the JSON body (the `input` variable), or the query string. */
  source: 'path' | 'body' | 'query';
}

export interface RestRoute {
  method: HttpMethod;
  /** GitBook's path with `{param}` placeholders, e.g. `/v1/spaces/{spaceId}`. */
  path: string;
  /** Success status: 200, 201, 204 or 205 (a 205 route whose root field is false answers 204). */
  status: number;
  /** Dot path of the response data sent as the body. */
  reply: string;
  /** Dot path of a boolean of the data: when true, 201 Created (with Location) instead of `status` (a PUT that created). */
  createdWhen?: string;
  /** Another body for a query-string value (e.g. `compat=false` answers the whole update, not just the change request). */
  replyWhen?: { param: string; equals: string; reply: string };
  operationName: string;
  /** The operation document, from the repository root (`src/rest/operations/space/get-space-by-id.graphql`); generated routes always have it. */
  file?: string;
  variables: RestVariable[];
  /** The operation and the fragments it uses. */
  document: string;
}
