/**
 * `npm run lint:deploy`: the deployment kit checked by its linters (README, "Deploying"; .ci/run).
 *
 * - Dockerfile: hadolint when it is installed (it is packaged neither for Debian 12 nor on npm, and
 *   its releases are downloaded from outside the registries this project may use), and always
 *   dockerfile-utils, the Dockerfile linter of the VS Code Docker extension (npm), with this
 *   project's rules on top (lintDockerfile).
 * - compose.yaml: `docker compose config` (Compose v2), or else `docker-compose config` (Debian's
 *   docker-compose 1.29), in a scratch project folder holding .env.example as .env; skipped with a
 *   message where neither exists.
 *
 * Exits 1 when a check that ran found something.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { validate, ValidationSeverity } from 'dockerfile-utils';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every dockerfile-utils rule that is off by default or a warning, raised so that it is reported. */
const ALL_RULES = {
  deprecatedMaintainer: ValidationSeverity.ERROR,
  directiveCasing: ValidationSeverity.ERROR,
  emptyContinuationLine: ValidationSeverity.ERROR,
  instructionCasing: ValidationSeverity.ERROR,
  instructionCmdMultiple: ValidationSeverity.ERROR,
  instructionEntrypointMultiple: ValidationSeverity.ERROR,
  instructionHealthcheckMultiple: ValidationSeverity.ERROR,
  instructionJSONInSingleQuotes: ValidationSeverity.ERROR,
  instructionWorkdirRelative: ValidationSeverity.ERROR,
};

/** The Dockerfile's problems, one line each (line number first): dockerfile-utils' and this project's rules. */
export function lintDockerfile(text: string): string[] {
  const problems = validate(text, ALL_RULES).map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
  // Instructions with their continuation lines joined, comments left out.
  const instructions = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const stages = instructions.filter((line) => /^FROM\s/i.test(line));
  if (stages.length < 2) problems.push('multi-stage: expected a build stage and a runtime stage');
  for (const from of stages) {
    const image = from.split(/\s+/)[1] ?? '';
    if (!image.includes(':') || image.endsWith(':latest')) problems.push(`${from}: pin the base image's version`);
  }
  const last = instructions.slice(instructions.findLastIndex((line) => /^FROM\s/i.test(line)));
  const user = last.filter((line) => /^USER\s/i.test(line)).at(-1);
  if (!user || /^USER\s+(root|0)(:|$)/i.test(user)) problems.push('the runtime stage must run as a user other than root (USER)');
  if (!last.some((line) => /^HEALTHCHECK\s+/i.test(line) && !/NONE$/i.test(line))) problems.push('the runtime stage needs a HEALTHCHECK');
  const cmd = last.filter((line) => /^(CMD|ENTRYPOINT)\s/i.test(line));
  if (!cmd.length || cmd.some((line) => !/^(CMD|ENTRYPOINT)\s+\[/i.test(line))) {
    problems.push('CMD/ENTRYPOINT in exec form (JSON), so that node, not a shell, is PID 1 and receives SIGTERM');
  }
  if (cmd.some((line) => /npm/.test(line))) problems.push('the container runs node itself, not npm (npm does not pass every signal on)');
  for (const line of instructions.filter((l) => /apt-get\s+install/.test(l))) {
    if (!/--no-install-recommends/.test(line)) problems.push(`${line.slice(0, 60)}...: apt-get install --no-install-recommends`);
    if (!/rm -rf \/var\/lib\/apt\/lists/.test(line)) problems.push(`${line.slice(0, 60)}...: remove /var/lib/apt/lists in the same layer`);
  }
  return problems;
}

/** The command that checks a compose file here, or null: `docker compose` (v2) first, then docker-compose. */
export function composeCommand(): string[] | null {
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0) return ['docker', 'compose'];
  if (spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0) return ['docker-compose'];
  return null;
}

/**
 * `config` of compose.yaml with .env.example as its .env (compose.yaml requires one), in a scratch
 * project folder so that a developer's own .env is neither needed nor read. The resolved file, or
 * throws with the tool's message.
 */
export function composeConfig(command: string[]): string {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-api-compose-'));
  try {
    fs.copyFileSync(path.join(ROOT, '.env.example'), path.join(project, '.env'));
    return execFileSync(command[0]!, [...command.slice(1), '--project-directory', project, '-f', path.join(ROOT, 'compose.yaml'), 'config'], {
      cwd: project,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`compose.yaml: ${stderr.trim() || (error as Error).message}`);
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
}

function main(): number {
  let failed = false;
  const dockerfile = path.join(ROOT, 'Dockerfile');
  if (spawnSync('hadolint', ['--version'], { stdio: 'ignore' }).status === 0) {
    const run = spawnSync('hadolint', [dockerfile], { encoding: 'utf8' });
    console.log(`hadolint: ${run.status === 0 ? 'ok' : run.stdout + run.stderr}`);
    failed ||= run.status !== 0;
  } else {
    console.log('hadolint: not installed, skipped (not packaged for Debian 12 nor on npm); dockerfile-utils checks the Dockerfile');
  }
  const problems = lintDockerfile(fs.readFileSync(dockerfile, 'utf8'));
  console.log(problems.length ? `dockerfile-utils and project rules:\n  ${problems.join('\n  ')}` : 'Dockerfile (dockerfile-utils and project rules): ok');
  failed ||= problems.length > 0;
  const compose = composeCommand();
  if (!compose) {
    console.log('compose.yaml: neither `docker compose` nor docker-compose is installed, skipped');
  } else {
    try {
      composeConfig(compose);
      console.log(`compose.yaml (${compose.join(' ')} config): ok`);
    } catch (error) {
      console.log((error as Error).message);
      failed = true;
    }
  }
  return failed ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) process.exit(main());
