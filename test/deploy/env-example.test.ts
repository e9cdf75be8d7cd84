/**
 * .env.example, the README's configuration table and the settings src/config.ts reads list the
 * same variables, with the same defaults, so that none of the three can drift from the others.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configVariables, loadConfig } from '../../src/config.ts';
import { parseDatabaseUrl } from '../../src/db/provider/config.ts';
import { ROOT } from '../helpers/process.ts';

interface ReadmeRow {
  name: string;
  /** The default cell as written. */
  default: string;
  testsOnly: boolean;
}

function readmeTable(): ReadmeRow[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.split('\n## Configuration\n')[1]!.split('\n## ')[0]!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [name, def, meaning] = line.replace(/^\|\s*|\s*\|$/g, '').split(' | ');
      return { name: name!.replaceAll('`', ''), default: def!.trim(), testsOnly: meaning!.startsWith('tests only') };
    });
}

/** A default that is one value to write as is: `value`, not a reference to another setting, not "generated". */
function literalDefault(row: ReadmeRow, names: Set<string>): string | null {
  const match = /^`([^`]*)`$/.exec(row.default);
  if (!match || match[1]!.includes('$') || names.has(match[1]!)) return null;
  return match[1]!;
}

const COMPOSE_ONLY = '# ---- compose.yaml only';

/**
 * Each variable of .env.example in order, with its value when the line sets it (null: a commented
 * `# NAME=`); `composeOnly`: those of its last section, which compose.yaml reads and the server does not.
 */
function envExample(composeOnly = false): Array<{ name: string; value: string | null }> {
  const entries: Array<{ name: string; value: string | null }> = [];
  const [server, compose] = fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8').split(COMPOSE_ONLY);
  for (const line of (composeOnly ? compose ?? '' : server!).split('\n')) {
    const set = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    const unset = /^# ([A-Z][A-Z0-9_]*)=$/.exec(line);
    if (set) entries.push({ name: set[1]!, value: set[2]! });
    else if (unset) entries.push({ name: unset[1]!, value: null });
  }
  return entries;
}

describe('.env.example', () => {
  const rows = readmeTable();
  const names = new Set(rows.map((row) => row.name));

  it('lists every variable of the README table, in its order', () => {
    expect(rows.length).toBeGreaterThan(40);
    expect(envExample().map((entry) => entry.name)).toEqual(rows.map((row) => row.name));
  });

  it('sets each variable the README gives a plain default to that default, and leaves the others commented', () => {
    const example = new Map(envExample().map((entry) => [entry.name, entry.value]));
    for (const row of rows) expect([row.name, example.get(row.name)]).toEqual([row.name, literalDefault(row, names)]);
  });

  it('changes nothing the server would do without it', () => {
    const env = Object.fromEntries(envExample().flatMap((entry) => (entry.value === null ? [] : [[entry.name, entry.value]])));
    const { databaseUrl: exampleUrl, ...example } = loadConfig(env);
    const { databaseUrl: defaultUrl, ...defaults } = loadConfig({});
    expect(example).toEqual(defaults);
    expect(parseDatabaseUrl(exampleUrl)).toEqual(parseDatabaseUrl(defaultUrl));
  });
});

describe('.env.example, compose section', () => {
  it('lists only variables compose.yaml reads, commented', () => {
    const compose = fs.readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8');
    const entries = envExample(true);
    expect(entries.map((entry) => entry.name)).toEqual(['POSTGRES_PASSWORD', 'HTTP_PORT']);
    for (const entry of entries) {
      expect(entry.value).toBeNull();
      expect(compose).toContain(`\${${entry.name}:-`);
    }
  });
});

describe("the README's configuration table", () => {
  it('lists exactly the settings src/config.ts reads (besides the tests-only ones)', () => {
    const documented = readmeTable().filter((row) => !row.testsOnly).map((row) => row.name);
    expect([...documented].sort()).toEqual([...configVariables()].sort());
  });

  it('is all the server reads from the environment: nothing in src/ besides config.ts reads process.env', () => {
    const readers: string[] = [];
    for (const entry of fs.readdirSync(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.parentPath.includes('generated')) continue;
      const file = path.relative(ROOT, path.join(entry.parentPath, entry.name));
      if (file === path.join('src', 'config.ts')) continue;
      if (/process\.env\b/.test(fs.readFileSync(path.join(ROOT, file), 'utf8'))) readers.push(file);
    }
    expect(readers).toEqual([]);
  });
});
