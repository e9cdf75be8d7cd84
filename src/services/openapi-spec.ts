/**
 * OpenAPI specs of an organization: loading one the caller may act on, checking what a request
 * sends, creating, re-sourcing and deleting specs, starting their processing (a job of kind
 * `openapi-processing`, services/openapi-processing.ts) and reading a version's files back.
 * docs/decisions.md, "OpenAPI specs".
 */
import { authorize, can, type Action } from '../auth/policies.ts';
import type { Context } from '../context.ts';
import type { Db, Prisma, Tx } from '../db/client.ts';
import { ConflictError, InvalidInputError, NotFoundError, PayloadTooLargeError } from '../errors/index.ts';
import { newId } from '../ids.ts';
import type { JobRow } from '../jobs/job-store.ts';
import type { Jobs } from '../jobs/jobs.ts';
import { openAPIStorageKeys } from '../storage/collect-garbage.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import { loadOrganization } from './organization.ts';
import { revalidateRenderer } from './renderer-revalidation.ts';

/** api.md: 1 to 100 characters, words of letters and digits joined by single dashes. */
const SLUG_PATTERN = /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/;
const MAX_SLUG_LENGTH = 100;
/** api.md: URI fields hold at most 2048 characters. */
const MAX_URL_LENGTH = 2048;
/** Processing problems kept on the spec (`lastProcessedErrors`); `lastProcessedErrorCount` counts them all. */
export const OPENAPI_ERRORS_KEPT = 20;

/** Where a spec's document comes from, as a request sends it (exactly one member). */
export interface OpenAPISourceInput {
  url?: string | null;
  text?: string | null;
}

/** A spec's source after checking: fetched from `url`, or `text` kept in storage. */
export type CheckedSource = { kind: 'url'; url: string } | { kind: 'text'; text: string };

/** One file of a version as stored (OpenAPISpecVersion.files). */
export interface StoredOpenAPIFile {
  path: string;
  /** Storage key of the file's text as received. */
  key: string;
  size: number;
  isEntrypoint: boolean;
  references: string[];
}

export function checkSlug(slug: string, field = 'slug'): string {
  if (slug.length < 1 || slug.length > MAX_SLUG_LENGTH) throw new InvalidInputError(`${field}: must be 1 to ${MAX_SLUG_LENGTH} characters`);
  if (!SLUG_PATTERN.test(slug)) throw new InvalidInputError(`${field}: only letters, digits and single dashes between them (e.g. "petstore-v2")`);
  return slug;
}

/** The source of a request, checked: one of `url` (http or https, at most 2048 characters) and `text` (at most OPENAPI_MAX_BYTES). */
export function checkSource(source: OpenAPISourceInput, maxBytes: number, field = 'source'): CheckedSource {
  const hasUrl = source.url !== undefined && source.url !== null;
  const hasText = source.text !== undefined && source.text !== null;
  if (hasUrl === hasText) throw new InvalidInputError(`${field}: give either url or text`);
  if (hasUrl) {
    const url = source.url!;
    if (url.length > MAX_URL_LENGTH) throw new InvalidInputError(`${field}.url: at most ${MAX_URL_LENGTH} characters`);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new InvalidInputError(`${field}.url: not a valid URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new InvalidInputError(`${field}.url: must be an http or https URL`);
    if (parsed.username || parsed.password) throw new InvalidInputError(`${field}.url: may not contain credentials`);
    return { kind: 'url', url };
  }
  const text = source.text!;
  if (text.trim().length === 0) throw new InvalidInputError(`${field}.text: must not be empty`);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) throw new PayloadTooLargeError(`${field}.text: the document is ${bytes} bytes, more than the ${maxBytes} allowed (OPENAPI_MAX_BYTES)`);
  return { kind: 'text', text };
}

/**
 * Loads the organization's spec `slug` for `action`, or 404 (another organization's never shows):
 * members act by their role; a published site's visitor reads the specs its published pages
 * reference (Access.openAPISpec), and nothing else of the organization.
 */
export async function loadOpenAPISpec<Q extends object>(ctx: Context, organizationId: string, slug: string, action: Action, query?: Q) {
  authorize(await ctx.access.openAPISpec({ organizationId, slug }), action, { type: 'OpenAPI spec', id: slug });
  const spec = await ctx.db.openAPISpec.findUnique({ ...(query ?? {}), where: { organizationId_slug: { organizationId, slug } } });
  if (!spec) throw new NotFoundError('OpenAPI spec', slug);
  return spec;
}

/**
 * The organization's specs of these slugs, by slug, for what content references (links of a
 * page): every one that exists (a slug missing here is a broken reference); `readable` tells
 * whether the caller may see the spec itself, which a guest of one space may not.
 */
export async function referencedOpenAPISpecs(ctx: Context, organizationId: string, slugs: readonly string[]) {
  const specs = slugs.length === 0 ? [] : await ctx.db.openAPISpec.findMany({ where: { organizationId, slug: { in: [...slugs] } } });
  return { bySlug: new Map(specs.map((spec) => [spec.slug, spec])), readable: can(ctx.access.organization(organizationId), 'openapi:read') };
}

/** The columns a source sets on a spec (the text goes to storage first). */
async function sourceColumns(storage: ObjectStorage, source: CheckedSource) {
  if (source.kind === 'url') return { sourceKind: 'url', sourceURL: source.url, sourceTextKey: null };
  const { key } = await storage.put(Buffer.from(source.text, 'utf8'));
  return { sourceKind: 'text', sourceURL: null, sourceTextKey: key };
}

/**
 * Queues the spec's processing, inside `tx` with the change that asks for it; the caller announces
 * the job once its transaction committed (`jobs.announce`). The spec is `pending` until a worker
 * starts it. `createdById` null: the service's own refresh.
 */
export async function queueOpenAPIProcessing(jobs: Jobs, tx: Tx, spec: { id: string; organizationId: string; slug: string }, createdById: string | null): Promise<JobRow> {
  const job = await jobs.queue(tx, {
    organizationId: spec.organizationId,
    openAPISpecId: spec.id,
    kind: 'openapi-processing',
    input: { spec: spec.id, slug: spec.slug },
    createdById,
  });
  await tx.openAPISpec.update({ where: { id: spec.id }, data: { processingState: 'pending', processingJobId: job.id } });
  return job;
}

type OpenAPISpecRow = Awaited<ReturnType<Db['openAPISpec']['create']>>;

/**
 * Writes the spec with its checked source (`write`: a create or an update, given the source's
 * columns) and queues its processing in the same transaction; the job is announced once it committed.
 */
async function writeAndQueue(ctx: Context, source: CheckedSource, write: (tx: Tx, columns: Awaited<ReturnType<typeof sourceColumns>>) => Promise<OpenAPISpecRow>) {
  const columns = await sourceColumns(ctx.storage, source);
  const viewer = ctx.access.requireViewer();
  const { spec, job } = await ctx.db.$transaction(async (tx) => {
    const spec = await write(tx, columns);
    return { spec, job: await queueOpenAPIProcessing(ctx.jobs, tx, spec, viewer.userId) };
  });
  ctx.jobs.announce(job);
  return { ...spec, processingState: 'pending', processingJobId: job.id };
}

/** A new spec `slug` of the organization (its slug free, the caller allowed to create). */
function insertSpec(ctx: Context, organizationId: string, slug: string, source: CheckedSource) {
  const createdById = ctx.access.requireViewer().userId;
  return writeAndQueue(ctx, source, (tx, columns) => tx.openAPISpec.create({ data: { id: newId(), organizationId, slug, ...columns, createdById } }));
}

/** Creates the spec `slug` from `source` and queues its processing; 409 when the slug is taken. */
export async function createOpenAPISpec(ctx: Context, organizationId: string, slug: string, input: OpenAPISourceInput) {
  const org = await loadOrganization(ctx, organizationId, 'organization:read');
  authorize(ctx.access.organization(org.id), 'openapi:create', { type: 'Organization', id: org.id });
  checkSlug(slug);
  const source = checkSource(input, ctx.config.openapi.maxBytes);
  const existing = await ctx.db.openAPISpec.findUnique({ where: { organizationId_slug: { organizationId: org.id, slug } }, select: { id: true } });
  if (existing) throw new ConflictError(`The organization already has an OpenAPI spec "${slug}"`);
  return insertSpec(ctx, org.id, slug, source);
}

/**
 * PUT: creates the spec `slug` or gives it a new source, and queues its processing (the same URL
 * again fetches it again: a version is made only if what it serves changed). `created` says which.
 */
export async function putOpenAPISpec(ctx: Context, organizationId: string, slug: string, input: OpenAPISourceInput) {
  const org = await loadOrganization(ctx, organizationId, 'organization:read');
  checkSlug(slug, 'specSlug');
  const existing = await ctx.db.openAPISpec.findUnique({ where: { organizationId_slug: { organizationId: org.id, slug } }, select: { id: true } });
  authorize(ctx.access.organization(org.id), existing ? 'openapi:update' : 'openapi:create', { type: 'OpenAPI spec', id: slug });
  const source = checkSource(input, ctx.config.openapi.maxBytes);
  if (!existing) return { created: true, spec: await insertSpec(ctx, org.id, slug, source) };
  return { created: false, spec: await writeAndQueue(ctx, source, (tx, columns) => tx.openAPISpec.update({ where: { id: existing.id }, data: columns })) };
}

/** PATCH: the spec's visibility. */
export async function setOpenAPISpecVisibility(ctx: Context, organizationId: string, slug: string, visibility: string) {
  const spec = await loadOpenAPISpec(ctx, organizationId, slug, 'openapi:update');
  const updated = await ctx.db.openAPISpec.update({ where: { id: spec.id }, data: { visibility } });
  await revalidateRenderer(ctx, { kind: 'openapi-spec', spec: updated });
  return updated;
}

/**
 * Deletes the spec with its versions, then the stored files no other spec's version (nor another
 * spec's text) uses. False when there was no such spec.
 */
export async function deleteOpenAPISpec(ctx: Context, organizationId: string, slug: string): Promise<boolean> {
  await loadOrganization(ctx, organizationId, 'organization:read');
  const found = await ctx.db.openAPISpec.findUnique({ where: { organizationId_slug: { organizationId, slug } }, select: { id: true } });
  if (!found) return false;
  const spec = await loadOpenAPISpec(ctx, organizationId, slug, 'openapi:delete');
  const versions = await ctx.db.openAPISpecVersion.findMany({ where: { specId: spec.id }, select: { files: true } });
  const keys = new Set<string>(spec.sourceTextKey ? [spec.sourceTextKey] : []);
  for (const version of versions) for (const file of storedFiles(version.files)) keys.add(file.key);
  await ctx.db.openAPISpec.delete({ where: { id: spec.id } });
  await collectUnusedKeys(ctx.db, ctx.storage, keys);
  await revalidateRenderer(ctx, { kind: 'openapi-spec', spec });
  return true;
}

/** Deletes those of `keys` no spec refers to any more (stored before now: a concurrent put keeps its object). */
async function collectUnusedKeys(db: Db, storage: ObjectStorage, keys: Set<string>): Promise<void> {
  if (keys.size === 0) return;
  const used = await openAPIStorageKeys(db);
  const now = new Date();
  for (const key of keys) if (!used.has(key)) await storage.collect(key, now);
}

/** OpenAPISpecVersion.files as written by the processing job. */
export function storedFiles(value: Prisma.JsonValue): StoredOpenAPIFile[] {
  return Array.isArray(value) ? (value as unknown as StoredOpenAPIFile[]) : [];
}

/** Loads a version of the spec (`latest`: its last), or 404. */
export async function loadOpenAPISpecVersion(ctx: Context, organizationId: string, slug: string, versionId: string) {
  const spec = await loadOpenAPISpec(ctx, organizationId, slug, 'openapi:read');
  const id = versionId === 'latest' ? spec.lastVersionId : versionId;
  const version = id ? await ctx.db.openAPISpecVersion.findUnique({ where: { id } }) : null;
  if (!version || version.specId !== spec.id) throw new NotFoundError('OpenAPI spec version', versionId);
  return { spec, version };
}

/** The API location of a spec (`urls.location`), or of what is beneath it (`versions`, a version id, `content`). */
export function openAPISpecLocation(ctx: Context, spec: { organizationId: string; slug: string }, ...rest: string[]): string {
  return ctx.urls.api([`/orgs/${spec.organizationId}/openapi/${encodeURIComponent(spec.slug)}`, ...rest].join('/'));
}

/** Where a version's document came from: its URL, or for a spec sent as text, where this API serves the version's content. */
export function openAPIVersionSource(ctx: Context, version: { id: string; sourceURL: string | null; spec: { organizationId: string; slug: string } }): string {
  return version.sourceURL ?? openAPISpecLocation(ctx, version.spec, 'versions', version.id, 'content');
}

/** `OpenAPISpecContent` of a version: its files read back from the storage and parsed, by path. */
export async function openAPIVersionContent(
  ctx: Context,
  version: { id: string; sourceURL: string | null; files: Prisma.JsonValue; spec: { organizationId: string; slug: string; visibility: string } },
) {
  const files = await Promise.all(
    storedFiles(version.files).map(async (file) => {
      const bytes = await ctx.storage.get(file.key);
      if (!bytes) throw new Error(`The stored file ${file.path} of OpenAPI spec version ${version.id} is missing`);
      return { path: file.path, text: Buffer.from(bytes).toString('utf8'), isEntrypoint: file.isEntrypoint, references: file.references };
    }),
  );
  // The parser's module loads with the first content read, not at the server's start.
  const { openAPIFilesystem } = await import('../openapi/process-source.ts');
  const source = openAPIVersionSource(ctx, version);
  const filesystem = openAPIFilesystem(files);
  return {
    // A site token's holder is GitBook's renderer, which hands `filesystem` to scalar as its
    // Filesystem, an array (`filesystem.find(...)`); every other caller gets the contract's object
    // keyed by path. docs/decisions.md, "OpenAPI specs".
    filesystem: ctx.access.siteVisitor ? Object.values(filesystem) : filesystem,
    url: source,
    urls: { source, public: version.spec.visibility === 'public' ? ctx.urls.publishedOpenAPISpec(version.spec.organizationId, version.spec.slug) : null },
  };
}

/**
 * A file of the latest version of a public spec, for anyone (its published URL): `path` '' is the
 * entry file, others are paths relative to it (`schemas/pet.yaml`). Null when the spec is not
 * public, has no version, or has no such file; files above the entry's folder (`../x.yaml`) have
 * no published URL (a relative reference to them resolves outside the spec's).
 */
export async function publishedOpenAPIFile(db: Db, storage: ObjectStorage, organizationId: string, slug: string, path: string) {
  const spec = await db.openAPISpec.findUnique({ where: { organizationId_slug: { organizationId, slug } }, select: { visibility: true, lastVersionId: true } });
  if (!spec || spec.visibility !== 'public' || !spec.lastVersionId) return null;
  const version = await db.openAPISpecVersion.findUnique({ where: { id: spec.lastVersionId }, select: { files: true } });
  const file = storedFiles(version?.files ?? null).find((f) => (path === '' ? f.isEntrypoint : f.path === path && !f.path.startsWith('../')));
  const bytes = file ? await storage.get(file.key) : null;
  return file && bytes ? { path: file.path, bytes } : null;
}
