/**
 * The services some tests need besides the embedded SQLite database: PostgreSQL
 * (TEST_DATABASE_URL), Redis (TEST_REDIS_URL) and a browser (Chromium: TEST_CHROMIUM_PATH, or
 * Debian's /usr/bin/chromium when installed). When one is not configured, the tests that
 * need it are skipped and say so. REQUIRE_TEST_SERVICES, a comma-separated list such as
 * `postgres,redis,browser` (CI sets it), turns that skip into a failure: a run that must cover a
 * service cannot pass without it.
 */
import fs from 'node:fs';
import net from 'node:net';

export type TestService = 'postgres' | 'redis' | 'browser';

/** Debian's Chromium (`apt-get install chromium`), used when TEST_CHROMIUM_PATH is not set. */
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** Each service: its name, the variable that configures it (and what else does), and its value (a URL, or the browser's executable). */
const SERVICES: Record<TestService, { name: string; variable: string; otherwise?: string; value: string | undefined }> = {
  postgres: { name: 'PostgreSQL', variable: 'TEST_DATABASE_URL', value: process.env.TEST_DATABASE_URL || undefined },
  redis: { name: 'Redis', variable: 'TEST_REDIS_URL', value: process.env.TEST_REDIS_URL || undefined },
  browser: {
    name: 'Chromium',
    variable: 'TEST_CHROMIUM_PATH',
    otherwise: `or ${DEBIAN_CHROMIUM}: apt-get install chromium`,
    value: process.env.TEST_CHROMIUM_PATH || (fs.existsSync(DEBIAN_CHROMIUM) ? DEBIAN_CHROMIUM : undefined),
  },
};

/** The Redis of the tests that need one (TEST_REDIS_URL). */
export const TEST_REDIS_URL = SERVICES.redis.value;
/** The Chromium executable of the browser tests (TEST_CHROMIUM_PATH, else /usr/bin/chromium when it exists). */
export const TEST_CHROMIUM_PATH = SERVICES.browser.value;

function requiredServices(): TestService[] {
  const names = (process.env.REQUIRE_TEST_SERVICES ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!(name in SERVICES)) throw new Error(`REQUIRE_TEST_SERVICES: unknown service "${name}" (known: ${Object.keys(SERVICES).join(', ')})`);
  }
  return names as TestService[];
}

/**
 * Whether all of `services` are configured, for `describe.skipIf(!servicesConfigured(...))`.
 * When one is missing it logs that the tests are skipped, or throws (failing the file) when
 * REQUIRE_TEST_SERVICES names it.
 */
export function servicesConfigured(...services: TestService[]): boolean {
  const missing = services.filter((service) => !SERVICES[service].value);
  if (missing.length === 0) return true;
  const describe = (list: TestService[]) =>
    list.map((service) => `${SERVICES[service].name} (${[SERVICES[service].variable, SERVICES[service].otherwise].filter(Boolean).join(', ')})`).join(' and ');
  const required = requiredServices();
  const missingRequired = missing.filter((service) => required.includes(service));
  if (missingRequired.length > 0) {
    throw new Error(`These tests need ${describe(missingRequired)}, and REQUIRE_TEST_SERVICES=${process.env.REQUIRE_TEST_SERVICES} says they must run: set ${missingRequired.map((s) => SERVICES[s].variable).join(' and ')}`);
  }
  console.log(`Skipped: these tests need ${describe(missing)}, which is not configured`);
  return false;
}

/** Throws, naming TEST_REDIS_URL, unless something accepts connections at its host and port. */
export async function expectRedisAnswers(): Promise<void> {
  if (!TEST_REDIS_URL) throw new Error('TEST_REDIS_URL is not set');
  const { hostname, port } = new URL(TEST_REDIS_URL);
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect(Number(port || 6379), hostname);
    socket.once('connect', () => (socket.end(), resolve()));
    socket.once('error', (error) => reject(new Error(`Redis does not answer at TEST_REDIS_URL=${TEST_REDIS_URL}: ${error.message}`)));
  });
}

/** Chromium without anything that reaches out on its own (updates, sync, QUIC probes, first-run pages). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
