/**
 * Site customizations (GitBook's SiteCustomizationSettings): stored partial,
 * as a JSON object, in Site.customizations (and per site space, as overrides, in
 * SiteSpace.customizations); read back as the full settings with every
 * required member filled in from DEFAULT_SITE_CUSTOMIZATIONS.
 *
 * The shape is 0.146.0's, with the members of 0.202.0 that GitBook's site
 * renderer reads without a guard: `socialAccounts`, `styling.codeTheme` and
 * `pageActions.items`. `items` is 0.202.0's truth for the page actions; the
 * 0.146.0 flags that it replaced (`pageActions.markdown`, `externalAI`, `mcp`,
 * `pdf.enabled`, `git.showEditLink`) are answered from it, and a flag written
 * adds its action to, or removes it from, the list beneath it (PAGE_ACTION_FLAGS).
 *
 * Validation uses the JSON Schema extracted from @gitbook/api's OpenAPI
 * document into ./customization-settings.schema.json by
 * scripts/extract-site-customization-schema.ts (the package itself is a
 * devDependency and is never imported at runtime).
 *
 * No GraphQL here (this module is imported by the site type and by other
 * resources' modules; it must not import the builder or loaders).
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Prisma } from '../../db/client.ts';
import { jsonObject } from '../../db/json.ts';
import { InvalidInputError } from '../../errors/index.ts';

type Json = Record<string, unknown>;

/** The defaults a new site starts with (those of a new GitBook site). */
export const DEFAULT_SITE_CUSTOMIZATIONS: Readonly<Json> = Object.freeze({
  styling: {
    theme: 'clean',
    primaryColor: { light: '#346DDB', dark: '#346DDB' },
    infoColor: { light: '#787878', dark: '#787878' },
    successColor: { light: '#00C950', dark: '#00C950' },
    warningColor: { light: '#FE9A00', dark: '#FE9A00' },
    dangerColor: { light: '#FB2C36', dark: '#FB2C36' },
    corners: 'rounded',
    depth: 'subtle',
    links: 'default',
    font: 'Inter',
    monospaceFont: 'IBMPlexMono',
    background: 'plain',
    icons: 'regular',
    sidebar: { background: 'default', list: 'default' },
    search: 'subtle',
    codeTheme: {
      default: { light: 'default-light', dark: 'default-dark' },
      openapi: { light: 'default-light', dark: 'default-dark' },
    },
  },
  internationalization: { locale: 'en' },
  favicon: {},
  header: { preset: 'default', links: [] },
  footer: { groups: [] },
  themes: { default: 'light', toggeable: true },
  pdf: { enabled: true },
  feedback: { enabled: false },
  ai: { mode: 'search' },
  advancedCustomization: { enabled: true },
  trademark: { enabled: true },
  externalLinks: { target: 'self' },
  pagination: { enabled: true },
  // `items` as the flags beside it say (PAGE_ACTION_FLAGS): git.showEditLink is false.
  pageActions: { externalAI: true, markdown: true, mcp: true, items: ['markdown', 'external-ai', 'mcp', 'pdf'] },
  git: { showEditLink: false },
  privacyPolicy: {},
  socialPreview: {},
  insights: { trackingCookie: true },
  socialAccounts: [],
});

/** A social account's `display` when it does not say (SiteSocialAccount of 0.202.0 documents these defaults). */
const SOCIAL_ACCOUNT_DISPLAY = Object.freeze({ footer: true, header: false });

/**
 * The 0.146.0 members that 0.202.0 folded into `pageActions.items`, each with
 * the action it stands for; PAGE_ACTION_ORDER is the order of GitBook's
 * default list, where an action a flag turns on is placed (applyFlags).
 */
const PAGE_ACTION_FLAGS = [
  { path: ['pageActions', 'markdown'], type: 'markdown' },
  { path: ['pageActions', 'externalAI'], type: 'external-ai' },
  { path: ['pageActions', 'mcp'], type: 'mcp' },
  { path: ['pdf', 'enabled'], type: 'pdf' },
  { path: ['git', 'showEditLink'], type: 'git' },
] as const;
const PAGE_ACTION_ORDER: readonly string[] = ['assistant', 'markdown', 'external-ai', 'mcp', 'pdf', 'git'];

const isPlainObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Members that are replaced as a whole rather than merged: the favicon (one of
 * icon / emoji / nothing) and content references (`{kind, ...}`), where merging
 * two variants would produce an object that is neither.
 */
function replacedWhole(key: string, value: Json): boolean {
  return key === 'favicon' || 'kind' in value;
}

/**
 * Deep-merges `patch` into `base` (neither is modified): objects merge member
 * by member, arrays and scalars replace, `null` removes the member (back to its
 * default when read).
 */
export function mergeCustomizations(base: Json, patch: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || value === undefined) delete out[key];
    else if (isPlainObject(value) && isPlainObject(out[key]) && !replacedWhole(key, value)) out[key] = mergeCustomizations(out[key] as Json, value);
    else out[key] = structuredClone(value);
  }
  return out;
}

/** A stored value; anything that is not a JSON object reads as no customization. */
export function parseStoredCustomizations(stored: Prisma.JsonValue | null | undefined): Json {
  return jsonObject(stored) ?? {};
}

const memberAt = (value: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>((node, name) => (isPlainObject(node) ? node[name] : undefined), value);

const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

/**
 * `items` with the flags `layer` sets applied: each action turned on goes
 * after the last action present that comes before it in PAGE_ACTION_ORDER
 * (first when there is none), then the actions turned off leave (so that
 * turning one on and another off at once places the first as if the second
 * were still there).
 */
function applyFlags(items: string[], layer: Json): string[] {
  let out = items;
  for (const { path, type } of PAGE_ACTION_FLAGS) {
    if (memberAt(layer, path) !== true || out.includes(type)) continue;
    const rank = PAGE_ACTION_ORDER.indexOf(type);
    const after = out.findLastIndex((item) => PAGE_ACTION_ORDER.indexOf(item) < rank);
    out = [...out.slice(0, after + 1), type, ...out.slice(after + 1)];
  }
  const off = new Set<string>(PAGE_ACTION_FLAGS.filter(({ path }) => memberAt(layer, path) === false).map(({ type }) => type));
  return out.filter((item) => !off.has(item));
}

/**
 * One stored layer (a site's customizations, a site space's overrides) over
 * the full settings beneath it: merged, then the page actions settled. The
 * list is the layer's `items`, else the one beneath, with the flags the layer
 * sets applied to it; every flag is then answered from the list. A value of
 * the wrong type is left in place for validation to name.
 */
function overLayer(below: Json, layer: Json): Json {
  const merged = mergeCustomizations(below, layer);
  const listed = memberAt(layer, ['pageActions', 'items']) ?? memberAt(below, ['pageActions', 'items']);
  if (!isStringList(listed) || !isPlainObject(merged.pageActions)) return merged;
  const items = applyFlags(listed, layer);
  merged.pageActions = { ...merged.pageActions, items };
  for (const { path, type } of PAGE_ACTION_FLAGS) {
    const [group, flag] = path;
    const parent = merged[group];
    if (isPlainObject(parent) && (parent[flag] === undefined || typeof parent[flag] === 'boolean')) merged[group] = { ...parent, [flag]: items.includes(type) };
  }
  return merged;
}

/**
 * What the full settings answer beyond the stored values, as 0.202.0 describes
 * them: on a non-empty page action list, `assistant` follows `ai.mode` (kept
 * where it is, or first, while the mode is `assistant`; left out otherwise); a
 * social account's `display` defaults to the footer only.
 */
function answered(full: Json): Json {
  const pageActions = full.pageActions;
  if (isPlainObject(pageActions) && isStringList(pageActions.items) && pageActions.items.length > 0) {
    const assistant = memberAt(full, ['ai', 'mode']) === 'assistant';
    const items = pageActions.items.filter((item) => assistant || item !== 'assistant');
    full.pageActions = { ...pageActions, items: assistant && !items.includes('assistant') ? ['assistant', ...items] : items };
  }
  if (Array.isArray(full.socialAccounts)) {
    full.socialAccounts = full.socialAccounts.map((account: unknown) =>
      isPlainObject(account) && (account.display === undefined || isPlainObject(account.display))
        ? { ...account, display: { ...SOCIAL_ACCOUNT_DISPLAY, ...(account.display as Json | undefined) } }
        : account,
    );
  }
  return full;
}

/** The full settings of stored layers, lowest first, over the defaults. */
function readLayers(layers: Json[]): Json {
  return answered(layers.reduce(overLayer, structuredClone(DEFAULT_SITE_CUSTOMIZATIONS) as Json));
}

/**
 * Whether stored overrides override anything: a member with a value, at any
 * depth (an object left empty by nulls overrides nothing; an empty favicon,
 * replaced whole, does: it removes the site's).
 */
function overridesSomething(value: unknown, key?: string): boolean {
  if (!isPlainObject(value) || (key !== undefined && replacedWhole(key, value))) return value !== undefined;
  return Object.entries(value).some(([member, v]) => overridesSomething(v, member));
}

/** The full SiteCustomizationSettings of a site: its stored partial over the defaults. */
export function readSiteCustomizations(stored: Prisma.JsonValue): Record<string, unknown> {
  return readLayers([parseStoredCustomizations(stored)]);
}

/**
 * The full SiteSpaceCustomizationSettings of a site space: its stored overrides
 * over the site's customizations (`siteStored`, the site's stored value) over
 * the defaults; `hasOverrides` tells whether the overrides set anything.
 */
export function readSiteSpaceCustomizations(stored: Prisma.JsonValue, siteStored: Prisma.JsonValue): Record<string, unknown> {
  return siteSpaceSettings(parseStoredCustomizations(siteStored), parseStoredCustomizations(stored));
}

function siteSpaceSettings(site: Json, overrides: Json): Json {
  return { ...readLayers([site, overrides]), hasOverrides: overridesSomething(overrides) };
}

// ---------------------------------------------------------------- validation

const schemaDocument = JSON.parse(readFileSync(new URL('./customization-settings.schema.json', import.meta.url), 'utf8')) as Json & { $id: string };

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

let validators: { site: ValidateFunction; siteSpace: ValidateFunction } | null = null;

function getValidators() {
  if (!validators) {
    const ajv = new Ajv({ strict: false, allErrors: false });
    addFormats(ajv);
    ajv.addFormat('emoji', { type: 'string', validate: (s: string) => s.length > 0 && s.length <= 50 });
    ajv.addSchema(schemaDocument);
    validators = {
      site: ajv.compile({ $ref: `${schemaDocument.$id}#/definitions/SiteCustomizationSettings` }),
      siteSpace: ajv.compile({ $ref: `${schemaDocument.$id}#/definitions/SiteSpaceCustomizationSettings` }),
    };
  }
  return validators;
}

function describe(errors: ErrorObject[] | null | undefined, root: string): string {
  const e = errors?.[0];
  if (!e) return `${root} is invalid`;
  const path = root + e.instancePath.replace(/\/([^/]*)/g, (_m, p: string) => (/^\d+$/.test(p) ? `[${p}]` : `.${p.replace(/~1/g, '/').replace(/~0/g, '~')}`));
  const detail =
    e.keyword === 'enum'
      ? `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
      : e.keyword === 'additionalProperties'
        ? `has an unknown member ${JSON.stringify((e.params as { additionalProperty: string }).additionalProperty)}`
        : e.message ?? 'is invalid';
  return `${path} ${detail}`;
}

/** Throws a 400 naming the first invalid path unless `full` is a valid SiteCustomizationSettings. */
export function assertValidSiteCustomizations(full: Json, root = 'customizations'): void {
  const { site } = getValidators();
  if (!site(full)) throw new InvalidInputError(`Invalid site customizations: ${describe(site.errors, root)}`);
}

/** Throws a 400 unless `full` (with hasOverrides) is a valid SiteSpaceCustomizationSettings. */
export function assertValidSiteSpaceCustomizations(full: Json, root = 'customizations'): void {
  const { siteSpace } = getValidators();
  if (!siteSpace(full)) throw new InvalidInputError(`Invalid site space customizations: ${describe(siteSpace.errors, root)}`);
}

/**
 * A partial update over a stored layer. Once the layer has a page action list
 * of its own, the flags of the patch are applied to it there and then, and the
 * layer keeps no flags (one it kept would be applied again to every later
 * list); a layer without a list keeps its flags, applied to the list beneath
 * when read.
 */
function patchLayer(stored: Prisma.JsonValue, patch: Json): Json {
  const next = mergeCustomizations(parseStoredCustomizations(stored), patch);
  const own = memberAt(next, ['pageActions', 'items']);
  if (!isStringList(own)) return next;
  next.pageActions = { ...(next.pageActions as Json), items: applyFlags(own, patch) };
  for (const { path } of PAGE_ACTION_FLAGS) {
    const [group, flag] = path;
    const parent = next[group];
    // A flag of the wrong type stays, for validation to name.
    if (!isPlainObject(parent) || typeof parent[flag] !== 'boolean') continue;
    const { [flag]: _applied, ...rest } = parent;
    if (Object.keys(rest).length > 0) next[group] = rest;
    else delete next[group];
  }
  return next;
}

/**
 * Applies a partial update to a site's stored value: deep-merges it, validates
 * the full result (400 naming the bad path) and returns the new stored value.
 */
export function applySiteCustomizations(stored: Prisma.JsonValue, patch: unknown, root = 'customizations'): Json {
  if (!isPlainObject(patch)) throw new InvalidInputError(`${root}: must be an object`);
  const next = patchLayer(stored, patch);
  assertValidSiteCustomizations(readLayers([next]), root);
  return next;
}

/**
 * Applies a partial update to a site space's stored overrides, over the site's
 * stored customizations (`siteStored`): as applySiteCustomizations, validated as
 * SiteSpaceCustomizationSettings. `null` removes every override; `hasOverrides`,
 * which is computed, is ignored (so a value read can be sent back).
 */
export function applySiteSpaceCustomizations(stored: Prisma.JsonValue, patch: unknown, siteStored: Prisma.JsonValue, root = 'customizations'): Json {
  if (patch === null) return {};
  if (!isPlainObject(patch)) throw new InvalidInputError(`${root}: must be an object or null`);
  const { hasOverrides: _computed, ...overrides } = patch;
  const next = patchLayer(stored, overrides);
  assertValidSiteSpaceCustomizations(siteSpaceSettings(parseStoredCustomizations(siteStored), next), root);
  return next;
}

/** The site's icon (OpenAPI CustomizationFavicon), or null when none is set. */
export function siteIcon(stored: Prisma.JsonValue): Record<string, unknown> | null {
  const favicon = parseStoredCustomizations(stored).favicon;
  return isPlainObject(favicon) && Object.keys(favicon).length > 0 ? favicon : null;
}
