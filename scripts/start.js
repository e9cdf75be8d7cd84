// `npm start`: runs the compiled server, dist/main.js (scripts/build.ts). When src/ changed since
// that build (a `git pull` without `npm install`, an edit), it builds first, so that what runs is
// always the checkout's code; otherwise the check costs a few milliseconds of the start.
// A process supervisor may run `node dist/main.js` itself.
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

if (built() !== JSON.stringify(sourcesStamp(path.join(root, 'src')))) {
  console.error('src/ changed since the last build: building dist/ first (npm run build)');
  execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/build.ts')], { cwd: root, stdio: 'inherit' });
}
await import(pathToFileURL(path.join(dist, 'main.js')).href);
