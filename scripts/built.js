// What `npm start` and `npm run cli` run: the compiled dist/ (scripts/build.ts). When src/ changed
// since that build (a `git pull` without `npm install`, an edit), it builds first, so that what
// runs is always the checkout's code; otherwise the check costs a few milliseconds.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SOURCES_STAMP, sourcesStamp } from './sources-stamp.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

function built() {
  try {
    return fs.readFileSync(path.join(dist, SOURCES_STAMP), 'utf8');
  } catch {
    return null;
  }
}

/**
 * The file URL of `dist/<entry>`, once dist/ holds the build of the current src/.
 * @param {string} entry
 * @returns {string}
 */
export function builtEntry(entry) {
  if (built() !== JSON.stringify(sourcesStamp(path.join(root, 'src')))) {
    console.error('src/ changed since the last build: building dist/ first (npm run build)');
    execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/build.ts')], { cwd: root, stdio: 'inherit' });
  }
  return pathToFileURL(path.join(dist, entry)).href;
}
