/**
 * `node dist/cli.js db:migrate`, the compose deployment's one-shot migrate service: it applies every
 * migration to a database nothing created and brings the search index to the current rules, then,
 * run again, does neither.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/db/provider/config.ts';
import { dropDatabase } from '../../src/db/provider/setup.ts';
import { SEARCH_INDEX_VERSION } from '../../src/search/search-index.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { ROOT } from '../helpers/process.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-api-migrate-'));
const databaseUrl = TEST_DATABASE_URL
  ? (() => {
      const u = new URL(TEST_DATABASE_URL);
      u.searchParams.set('schema', `t_${randomBytes(6).toString('hex')}`);
      return u.toString();
    })()
  : `file:${path.join(dir, 'app.db')}`;

afterAll(async () => {
  await dropDatabase(parseDatabaseUrl(databaseUrl)).catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

function migrateCommand(): { applied: string[]; searchIndex: { from: number; spaces: number } } {
  const out = execFileSync(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'db:migrate'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl }, encoding: 'utf8' });
  return JSON.parse(out) as { applied: string[]; searchIndex: { from: number; spaces: number } };
}

describe('cli db:migrate', () => {
  it('applies every migration once, and brings the search index to the current rules once', () => {
    const provider = parseDatabaseUrl(databaseUrl).provider;
    const all = fs.readdirSync(path.join(ROOT, 'prisma/migrations', provider)).filter((name) => /^\d{14}_/.test(name)).sort();
    // The migration that records the index's version records 1: the rules before it.
    expect(migrateCommand()).toEqual({ applied: all, searchIndex: { from: 1, spaces: 0 } });
    expect(migrateCommand()).toEqual({ applied: [], searchIndex: { from: SEARCH_INDEX_VERSION, spaces: 0 } });
  }, 120_000);
});
