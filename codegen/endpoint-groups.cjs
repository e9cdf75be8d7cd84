/**
 * The README's list of endpoint groups (section "API reference"): per group of
 * GitBook's API (an operation's first tag, named by the tag's page title), how
 * many of its operations this server serves. GitBook's operations are those of
 * both documents the wire contract comes from (`@gitbook/api` 0.146.0 and
 * 0.202.0, by method and path; the first names the group). Written into the
 * README by scripts/readme-endpoint-groups.ts (`npm run codegen`); a test
 * compares the README with the route table.
 */
const PREFIX = '/v1';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** GitBook's documents, raw (the groups need only paths, tags and their titles), and api.md's extras (codegen/extras.openapi.json). */
function gitbookSources() {
  return [require('@gitbook/api/spec/openapi.json'), require('gitbook-api-next/spec/openapi.json'), require('./extras.openapi.json')];
}

/** `[{ tag, title, served, total }]` in GitBook's order of tags. */
function endpointGroups(routes, sources = gitbookSources()) {
  const served = new Set(routes.map((r) => `${r.method.toLowerCase()} ${r.path.slice(PREFIX.length)}`));
  const tagOf = new Map();
  for (const doc of sources) {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const key = `${method} ${path}`;
        if (item[method] && !tagOf.has(key)) tagOf.set(key, item[method].tags?.[0] ?? 'untagged');
      }
    }
  }
  const missing = [...served].filter((key) => !tagOf.has(key));
  if (missing.length) throw new Error(`Served but in no GitBook document: ${missing.join(', ')}`);
  const tags = [];
  for (const doc of sources) for (const tag of doc.tags ?? []) if (!tags.some((t) => t.name === tag.name)) tags.push(tag);
  const groups = new Map();
  for (const [key, tag] of tagOf) {
    const group = groups.get(tag) ?? { tag, title: tags.find((t) => t.name === tag)?.['x-page-title'] ?? tag, served: 0, total: 0 };
    group.total += 1;
    if (served.has(key)) group.served += 1;
    groups.set(tag, group);
  }
  const order = (tag) => {
    const i = tags.findIndex((t) => t.name === tag);
    return i < 0 ? Infinity : i;
  };
  return [...groups.values()].sort((a, b) => order(a.tag) - order(b.tag) || a.tag.localeCompare(b.tag));
}

/** The Markdown list: each group with a served endpoint, then the others on one line. */
function readmeList(groups) {
  const served = groups.filter((g) => g.served > 0);
  const others = groups.filter((g) => g.served === 0);
  const count = (key) => groups.reduce((n, g) => n + g[key], 0);
  return [
    `${count('served')} of the ${count('total')} operations of GitBook's API, by group:`,
    '',
    ...served.map((g) => `- ${g.title}: ${g.served} of ${g.total}`),
    '',
    `Not served yet: ${others.map((g) => `${g.title} (${g.total})`).join(', ')}.`,
  ].join('\n');
}

const START = '<!-- endpoint-groups: written by `npm run codegen` (scripts/readme-endpoint-groups.ts) -->';
const END = '<!-- /endpoint-groups -->';

/** The README's list between the markers, or null when they are missing. */
function readmeSection(readme) {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) return null;
  return readme.slice(start + START.length, end).trim();
}

/** `readme` with the list between the markers replaced. */
function withReadmeSection(readme, list) {
  if (readmeSection(readme) === null) throw new Error(`README.md has no ${START} ... ${END}`);
  return `${readme.slice(0, readme.indexOf(START) + START.length)}\n${list}\n${readme.slice(readme.indexOf(END))}`;
}

module.exports = { endpointGroups, readmeList, readmeSection, withReadmeSection };
