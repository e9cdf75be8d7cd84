/**
 * The deployment kit: the Dockerfile through its linter (scripts/lint-deploy.ts: dockerfile-utils
 * and the project's rules; hadolint in .ci/run where installed), compose.yaml through
 * `docker compose config` where a compose tool is installed, and what the README promises of both.
 * No image is built here: base images cannot be pulled without the internet (docs/decisions.md,
 * "Deployment kit").
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { composeCommand, composeConfig, lintDockerfile } from '../../scripts/lint-deploy.ts';
import { ROOT } from '../helpers/process.ts';

const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');

describe('Dockerfile', () => {
  it('passes the linter and the project rules', () => {
    expect(lintDockerfile(dockerfile)).toEqual([]);
  });

  it('the linter finds what it should', () => {
    const problems = lintDockerfile('FROM node\nRUN apt-get install -y git\nCMD npm start\n');
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^multi-stage/),
        expect.stringMatching(/pin the base image/),
        expect.stringMatching(/user other than root/),
        expect.stringMatching(/HEALTHCHECK/),
        expect.stringMatching(/exec form/),
        expect.stringMatching(/not npm/),
        expect.stringMatching(/--no-install-recommends/),
      ]),
    );
    expect(lintDockerfile('FROM node:20 AS a\nFROM node:20\nUSER root\nHEALTHCHECK CMD ["true"]\nCMD ["node"]\nMAINTAINER x\n')).toEqual([
      'line 6: MAINTAINER has been deprecated',
      'the runtime stage must run as a user other than root (USER)',
    ]);
  });

  it('generates the Prisma clients and builds dist/ at build time, and keeps production dependencies only', () => {
    // npm ci's postinstall runs scripts/prisma-generate.ts and scripts/build.ts.
    expect(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.postinstall).toMatch(/prisma-generate\.ts.*build\.ts/);
    expect(dockerfile).toMatch(/RUN npm ci [^\n]*\\\n\s*&& npm prune --omit=dev/);
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toContain('COPY --from=build /app/node_modules ./node_modules');
    expect(runtime).toContain('COPY --from=build /app/dist ./dist');
    expect(runtime).toContain('COPY --from=build /app/prisma/migrations ./prisma/migrations');
    expect(runtime).toMatch(/^CMD \["node", "dist\/main\.js"\]$/m);
  });

  it('copies only what .dockerignore lets into the build context', () => {
    const ignored = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n').filter((line) => line && !line.startsWith('#'));
    const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(/\s+/));
    expect(copied).toEqual(['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts', 'prisma', 'src']);
    for (const file of copied) {
      expect(fs.existsSync(path.join(ROOT, file)), file).toBe(true);
      expect(ignored, file).not.toContain(file);
    }
  });
});

describe('compose.yaml', () => {
  // `<<: *app` merge keys, as compose applies them.
  const compose = YAML.parse(fs.readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'), { merge: true });

  it('runs two replicas of the app behind the proxy on one port, after a one-shot migration', () => {
    const { app, migrate, proxy, postgres, redis } = compose.services;
    expect(app.deploy.replicas).toBe(2);
    expect(app.ports).toBeUndefined();
    expect(app.init).toBe(true);
    expect(app.environment.DATABASE_URL).toMatch(/^postgresql:\/\/docs:.*@postgres:5432\/docs$/);
    expect(app.environment.REDIS_URL).toBe('redis://redis:6379');
    expect(app.depends_on.migrate.condition).toBe('service_completed_successfully');
    expect(migrate.command).toEqual(['node', 'dist/cli.js', 'db:migrate']);
    expect(migrate.depends_on.postgres.condition).toBe('service_healthy');
    expect(proxy.ports).toEqual(['${HTTP_PORT:-8080}:8080']);
    expect(postgres.healthcheck).toBeDefined();
    expect(redis.healthcheck).toBeDefined();
    // Replicas share the stored files (and the keys generated beside them).
    expect(app.volumes).toEqual(['files:/app/data']);
  });

  it('the proxy passes WebSocket upgrades and SSE through to every replica', () => {
    const nginx = fs.readFileSync(path.join(ROOT, 'deploy/nginx.conf'), 'utf8');
    expect(nginx).toMatch(/server app:8080 resolve;/);
    expect(nginx).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
    expect(nginx).toMatch(/proxy_buffering off;/);
  });

  const command = composeCommand();
  if (!command) console.log("Skipped: compose.yaml's `config` check needs `docker compose` or docker-compose (.ci/run installs Debian's docker-compose)");
  it.skipIf(!command)('is valid for docker compose', () => {
    const resolved = YAML.parse(composeConfig(command!));
    expect(Object.keys(resolved.services).sort()).toEqual(['app', 'migrate', 'postgres', 'proxy', 'redis']);
    // .env.example's settings reach the server; compose.yaml's own win over them.
    expect(resolved.services.app.environment).toMatchObject({ RATE_LIMIT_POINTS: '600', DATABASE_URL: 'postgresql://docs:docs@postgres:5432/docs', PUBLIC_URL: 'http://localhost:8080' });
  });
});
