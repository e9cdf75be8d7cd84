/**
 * Resolving a URL of a published site: the first thing a site renderer asks on a page view
 * (src/services/published-content.ts). Anyone may ask: the URL is what opens a site (a share
 * link's key is in it), a visitor-auth site needs the visitor's token besides.
 */
import { builder } from '../../builder.ts';
import {
  resolvePublishedContent,
  type PublishedContentRedirect,
  type PublishedSiteContent as SiteContent,
} from '../../services/published-content.ts';

const PublishedSiteContent = builder.objectRef<SiteContent>('PublishedSiteContent').implement({
  description: 'The site, section, site space and space a URL shows, what is left of it (the page path), and a site token to read them',
  fields: (t) => ({
    site: t.exposeString('site', { description: 'Id of the site' }),
    siteSection: t.exposeString('siteSection', { nullable: true, description: 'Id of the section (sites with sections)' }),
    siteSpace: t.exposeString('siteSpace', { description: 'Id of the site space' }),
    space: t.exposeString('space', { description: 'Id of the space the site space publishes' }),
    organization: t.exposeString('organization', { description: 'Id of the organization' }),
    pathname: t.exposeString('pathname', { description: 'The path of the page in the space, what is left of the URL after basePath' }),
    basePath: t.exposeString('basePath', { description: "The path of the URL up to the site space (the site's base, share key, section and site space paths)" }),
    siteBasePath: t.exposeString('siteBasePath', { description: "The path of the site's base in the URL (with the share key)" }),
    canonicalUrl: t.exposeString('canonicalUrl', { description: 'The URL of the content as resolved' }),
    complete: t.exposeBoolean('complete', {
      description: 'Whether more path segments could not change the section or site space chosen (false when a default was taken for lack of segments)',
    }),
    apiToken: t.exposeString('apiToken', {
      description: "A site token (JWT, valid for the day): reads this site and the spaces it publishes, with the visitor's claims, nothing else",
    }),
    shareKey: t.exposeString('shareKey', { nullable: true, description: 'The share key the URL carries (share-link sites)' }),
    contextId: t.exposeString('contextId', { nullable: true, description: "A digest of the visitor's claims (none without claims): what a renderer's cache tells visitors apart by" }),
  }),
});

const PublishedContentRedirectRef = builder.objectRef<PublishedContentRedirect>('PublishedContentRedirect').implement({
  description: 'Where to send the visitor instead (a site redirect)',
  fields: (t) => ({
    target: t.exposeString('target', { description: 'content: another URL of the site' }),
    redirect: t.exposeString('redirect', { description: 'The URL to go to' }),
  }),
});

const PublishedContentLookup = builder.unionType('PublishedContentLookup', {
  types: [PublishedSiteContent, PublishedContentRedirectRef],
  resolveType: (value) => (value.kind === 'redirect' ? PublishedContentRedirectRef : PublishedSiteContent),
});

const VisitorPayloadInput = builder.inputType('SiteVisitorPayloadInput', {
  description: 'Who visits: their visitor token (signed claims), unsigned claims, human or agent',
  fields: (t) => ({
    jwtToken: t.string({ description: 'A visitor token of the organization (POST /v1/orgs/{organizationId}/ping); required by visitor-auth sites' }),
    unsignedClaims: t.field({ type: 'JSON', description: "Claims the visitor states; only those the site's visitor schema declares under `unsigned` are kept" }),
    type: t.string({ description: 'human (the default) or agent' }),
  }),
});

const ResolvePublishedContentInput = builder.inputType('ResolvePublishedContentInput', {
  fields: (t) => ({
    url: t.string({ required: true, description: 'The URL to resolve' }),
    redirectOnError: t.boolean({ description: "true: a path that is one of the site's redirects answers the redirect" }),
    visitor: t.field({ type: VisitorPayloadInput }),
    cacheBust: t.string({ description: 'Ignored: GitBook\'s renderer sends it to miss a cache by request body' }),
  }),
});

builder.queryFields((t) => ({
  publishedContentByUrl: t.field({
    type: PublishedContentLookup,
    description: 'The published content a URL shows, and a site token to read it; 404 for a URL of no published site',
    args: { input: t.arg({ type: ResolvePublishedContentInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      resolvePublishedContent(ctx, {
        url: input.url,
        redirectOnError: input.redirectOnError,
        visitor: input.visitor ? { jwtToken: input.visitor.jwtToken, unsignedClaims: input.visitor.unsignedClaims, type: input.visitor.type } : null,
      }),
  }),
}));
