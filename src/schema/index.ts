/** Imports every resource module (each adds its types to the builder) and builds the schema. */
import { GraphQLDirective, GraphQLEnumType, GraphQLInt, GraphQLNonNull, GraphQLString, DirectiveLocation } from 'graphql';
import { builder } from '../builder.ts';
import './shared/scalars.ts';
import './user/type.ts';
import './api-token/type.ts';
import './api-token/mutations.ts';
import './organization/type.ts';
import './organization/queries.ts';
import './organization/mutations.ts';
import './organization/agent-instructions.ts';
import './member/type.ts';
import './member/queries.ts';
import './member/mutations.ts';
import './team/type.ts';
import './team/queries.ts';
import './team/mutations.ts';
import './member/sso.ts';
import './saml-provider/type.ts';
import './saml-provider/queries.ts';
import './saml-provider/mutations.ts';
import './invite/type.ts';
import './invite/queries.ts';
import './invite/mutations.ts';
import './collection/type.ts';
import './collection/queries.ts';
import './collection/mutations.ts';
import './space/type.ts';
import './space/queries.ts';
import './space/mutations.ts';
import './team/type.ts';
import './content-grant/type.ts';
import './content-grant/queries.ts';
import './content-grant/mutations.ts';
import './site/type.ts';
import './site/queries.ts';
import './site/mutations.ts';
import './site/adaptive-schema.ts';
import './site/share-links.ts';
import './site/redirects.ts';
import './published-content/queries.ts';
import './site-space/type.ts';
import './site-space/queries.ts';
import './site-space/mutations.ts';
import './site-section/type.ts';
import './site-section/queries.ts';
import './site-section/mutations.ts';
import './site-structure/type.ts';
import './site-structure/queries.ts';
import './site-structure/mutations.ts';
import './revision/type.ts';
import './revision/queries.ts';
import './revision/mutations.ts';
import './revision/links.ts';
import './search/queries.ts';
import './change-request/type.ts';
import './change-request/queries.ts';
import './change-request/mutations.ts';
import './change-request/pdf.ts';
import './comment/events.ts';
import './change-request-review/type.ts';
import './change-request-review/queries.ts';
import './change-request-review/mutations.ts';
import './comment/type.ts';
import './comment/queries.ts';
import './comment/mutations.ts';
import './job/type.ts';
import './job/queries.ts';
import './job/mutations.ts';
import './git-sync/type.ts';
import './git-sync/mutations.ts';
import './translation/type.ts';
import './translation/mutations.ts';
import './openapi-spec/type.ts';
import './openapi-spec/queries.ts';
import './openapi-spec/mutations.ts';
import './conversation/type.ts';
import './conversation/queries.ts';
import './conversation/mutations.ts';

/**
 * `@rest` marks an operation document as a REST endpoint (see src/rest/);
 * `@keepNull` keeps a null field in the REST body (nulls are dropped otherwise,
 * since the wire contract marks most absent values as optional, not nullable);
 * `@omit` leaves a field out of it.
 */
export const restDirective = new GraphQLDirective({
  name: 'rest',
  description: 'Serves this operation as a REST endpoint of the /v1 API',
  locations: [DirectiveLocation.QUERY, DirectiveLocation.MUTATION],
  args: {
    method: { type: new GraphQLNonNull(new GraphQLEnumType({ name: 'HttpMethod', values: { GET: {}, POST: {}, PUT: {}, PATCH: {}, DELETE: {} } })) },
    path: { type: new GraphQLNonNull(GraphQLString), description: 'Path with {param} placeholders named like the variables' },
    status: { type: GraphQLInt, description: 'Success status (default 200). 204/205 send no body; a 205 whose root field is false answers 204.' },
    reply: { type: GraphQLString, description: 'Dot path of the response data to send (default: the root field)' },
    createdWhen: {
      type: GraphQLString,
      description: 'Dot path of a boolean of the response data: when true, the answer is 201 Created (with Location) instead of `status`',
    },
    replyWhen: {
      type: GraphQLString,
      description: '"<param>=<value> <reply path>": when the query string has that value, send this path instead of `reply`',
    },
  },
});

export const keepNullDirective = new GraphQLDirective({
  name: 'keepNull',
  description: 'In a REST reply, send this field even when it is null',
  locations: [DirectiveLocation.FIELD],
});

export const omitDirective = new GraphQLDirective({
  name: 'omit',
  description: "In a REST reply, leave this field out of the body (a 201's `urls.location` still sets Location)",
  locations: [DirectiveLocation.FIELD],
});

export const schema = builder.toSchema({ directives: [restDirective, keepNullDirective, omitDirective], sortSchema: true });
