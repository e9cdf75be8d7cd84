/**
 * Builds dist/ once before any test file runs when src/ changed since the last build. The tests that
 * start `npm start` as a user does (test/e2e/compiled-start.test.ts, signals, startup failures) run
 * in parallel, and each would otherwise rebuild dist/ under the others' feet (scripts/built.js).
 * After the run, drops the database templates the test processes made (test/helpers/database.ts).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SOURCES_STAMP, sourcesStamp } from '../scripts/sources-stamp.js';
import { dropTemplates } from './helpers/database.ts';

export default function setup(): () => Promise<void> {
  buildDist();
  // The test processes' database templates (test/helpers/database.ts), once every file ran.
  return () => dropTemplates(process.pid);
}

function buildDist(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  let built: string | null = null;
  try {
    built = fs.readFileSync(path.join(root, 'dist', SOURCES_STAMP), 'utf8');
  } catch {
    // never built
  }
  if (built === JSON.stringify(sourcesStamp(path.join(root, 'src')))) return;
  execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/build.ts')], { cwd: root, stdio: 'inherit' });
}
