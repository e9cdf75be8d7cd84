/**
 * `npm run build`, also the last step of `npm install`: compiles src/ to
 * dist/ so that `npm start` runs JavaScript and nothing is transpiled when the
 * service starts (a restart after a crash is back in about a second, not ten:
 * bench/restart.ts).
 *
 * tsc with tsconfig.build.json emits one .js beside the place of each .ts
 * (dist/ mirrors src/), rewriting the `.ts` of relative imports to `.js`, and
 * does not type-check (`npm run typecheck` does). The other files of src/
 * that modules read at run time next to themselves (JSON schemas) are copied
 * beside them; paths a module computes from its own location therefore hold
 * from dist/ as from src/ (`new URL('./x.js', import.meta.url)` finds the
 * compiled sibling, `../..` is still the repository root).
 *
 * The build records which sources it compiled (dist/.sources.json, see
 * scripts/start.js): `npm start` rebuilds when src/ changed since.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SOURCES_STAMP, sourcesStamp } from './sources-stamp.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');

const started = performance.now();
// Taken before compiling: a file saved during the build makes the next start rebuild.
const stamp = sourcesStamp(src);
fs.rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });

let copied = 0;
for (const entry of fs.readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.endsWith('.ts') || entry.name.endsWith('.graphql')) continue;
  const from = path.join(entry.parentPath, entry.name);
  const to = path.join(dist, path.relative(src, from));
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
  copied++;
}
fs.writeFileSync(path.join(dist, SOURCES_STAMP), JSON.stringify(stamp));
console.error(`build: src/ compiled to dist/ (${copied} other files copied) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
