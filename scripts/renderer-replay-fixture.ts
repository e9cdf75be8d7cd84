/**
 * Turns the API calls GitBook's site renderer made (recorded by a logging proxy between the
 * renderer and this service, one JSON object per line: method, path, requestBody, status, auth;
 * docs/renderer.md says how) into the fixture test/e2e/renderer-replay.test.ts replays: the ids
 * of that run are replaced by names the test finds again in content it seeds the same way
 * (`{org}`, `{site:<basename>}`, `{space:<site space path>}`, `{revision:<site space path>}`,
 * `{page:<page path>}`, `{visitorToken}`), and repeated calls are kept once.
 *
 *   node --import tsx scripts/renderer-replay-fixture.ts calls.jsonl > test/e2e/fixtures/renderer-calls.json
 */
import { readFileSync } from 'node:fs';

interface Recorded {
  method: string;
  path: string;
  auth: string | null;
  requestBody: unknown;
  status: number;
  responseBody: unknown;
}

type Json = Record<string, unknown>;

const calls = readFileSync(process.argv[2]!, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as Recorded)
  .filter((call) => call.path.startsWith('/v1/'));

const names = new Map<string, string>();
const name = (id: unknown, placeholder: string) => {
  if (typeof id === 'string' && id !== '' && !names.has(id)) names.set(id, placeholder);
};

/** Page ids by path, through a revision's page tree. */
function namePages(pages: unknown): void {
  for (const page of (pages as Json[] | undefined) ?? []) {
    name(page.id, `{page:${String(page.path)}}`);
    namePages(page.pages);
  }
}

const spacePaths = new Map<string, string>();
for (const call of calls) {
  const body = call.responseBody as Json | null;
  if (!body || typeof body !== 'object' || call.status >= 300) continue;
  if (call.path === '/v1/urls/published' && typeof body.site === 'string') {
    name(body.organization, '{org}');
    const basename = String(body.siteBasePath).split('/').filter(Boolean).pop()!;
    name(body.site, `{site:${basename}}`);
  }
  if (/^\/v1\/orgs\/[^/]+\/sites\/[^/]+\/published$/.test(call.path)) {
    for (const item of ((body.structure as Json)?.structure as Json[] | undefined) ?? []) {
      const spaceId = (item.space as Json | undefined)?.id;
      if (typeof spaceId === 'string') {
        spacePaths.set(spaceId, String(item.path));
        name(spaceId, `{space:${String(item.path)}}`);
      }
    }
  }
  const spaceMatch = /^\/v1\/spaces\/([^/?]+)$/.exec(call.path);
  if (spaceMatch && typeof body.revision === 'string') name(body.revision, `{revision:${spacePaths.get(spaceMatch[1]!) ?? spaceMatch[1]}}`);
  if (/\/revisions\/[^/?]+(\?|$)/.test(call.path)) namePages(body.pages);
  const visitor = ((call.requestBody as Json | null)?.visitor as Json | undefined)?.jwtToken;
  if (typeof visitor === 'string') names.set(visitor, '{visitorToken}');
}

const replace = (text: string) => {
  let out = text;
  // Longest first: a token holds no id, but an id may hold a shorter one's letters.
  for (const [id, placeholder] of [...names].sort((a, b) => b[0].length - a[0].length)) out = out.split(id).join(placeholder);
  return out;
};

const seen = new Set<string>();
const fixture = [];
for (const call of calls) {
  const entry = {
    method: call.method,
    path: replace(call.path),
    ...(call.requestBody ? { body: JSON.parse(replace(JSON.stringify(call.requestBody))) as unknown } : {}),
    auth: call.auth?.startsWith('Bearer eyJ') ? 'site-token' : call.auth ? 'api-token' : 'none',
    status: call.status,
  };
  const key = JSON.stringify([entry.method, entry.path, entry.body ?? null]);
  if (seen.has(key)) continue;
  seen.add(key);
  fixture.push(entry);
}
const unnamed = fixture.filter((entry) => /[A-Za-z0-9]{20}/.test(entry.path.replace(/\{[^}]*\}/g, '')));
if (unnamed.length) throw new Error(`ids left unnamed in: ${unnamed.map((e) => e.path).join(', ')}`);
process.stdout.write(`${JSON.stringify(fixture, null, 1)}\n`);
