/**
 * Site customizations (GitBook's SiteCustomizationSettings): stored partial,
 * as a JSON object, in Site.customizations (and per site space, as overrides, in
 * SiteSpace.customizations); read back as the full settings with every
 * required member filled in from DEFAULT_SITE_CUSTOMIZATIONS.
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
  pageActions: { externalAI: true, markdown: true, mcp: true },
  git: { showEditLink: false },
  privacyPolicy: {},
  socialPreview: {},
  insights: { trackingCookie: true },
});

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

/** The full SiteCustomizationSettings of a site: its stored partial over the defaults. */
export function readSiteCustomizations(stored: Prisma.JsonValue): Record<string, unknown> {
  return mergeCustomizations(structuredClone(DEFAULT_SITE_CUSTOMIZATIONS) as Json, parseStoredCustomizations(stored));
}

/**
 * The full SiteSpaceCustomizationSettings of a site space: its stored overrides
 * over the site's customizations (when given: `siteStored`, the site's stored
 * value) over the defaults; `hasOverrides` tells whether the site space has any.
 */
export function readSiteSpaceCustomizations(stored: Prisma.JsonValue, siteStored?: Prisma.JsonValue): Record<string, unknown> {
  const overrides = parseStoredCustomizations(stored);
  const site = readSiteCustomizations(siteStored ?? {});
  return { ...mergeCustomizations(site, overrides), hasOverrides: Object.keys(overrides).length > 0 };
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
 * Applies a partial update to a stored value: deep-merges it, validates the
 * full result (400 naming the bad path) and returns the new stored value.
 */
export function applySiteCustomizations(stored: Prisma.JsonValue, patch: unknown, root = 'customizations'): Json {
  if (!isPlainObject(patch)) throw new InvalidInputError(`${root}: must be an object`);
  const next = mergeCustomizations(parseStoredCustomizations(stored), patch);
  assertValidSiteCustomizations(mergeCustomizations(structuredClone(DEFAULT_SITE_CUSTOMIZATIONS) as Json, next), root);
  return next;
}

/** The site's icon (OpenAPI CustomizationFavicon), or null when none is set. */
export function siteIcon(stored: Prisma.JsonValue): Record<string, unknown> | null {
  const favicon = parseStoredCustomizations(stored).favicon;
  return isPlainObject(favicon) && Object.keys(favicon).length > 0 ? favicon : null;
}
