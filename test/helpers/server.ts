/**
 * Starts the real server (HTTP and WebSocket on a free port) on a fresh
 * database for one test file, with helpers to make users and call the API.
 */
import { createUserWithToken } from '../../src/auth/users.ts';
import { loadConfig } from '../../src/config.ts';
import { createApp, type App } from '../../src/server.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestServer {
  app: App;
  baseUrl: string;
  database: TestDatabase;
  /** Creates a user with a token, like `npm run cli -- user:create`. */
  createUser(name?: string): Promise<{ id: string; email: string; token: string }>;
  /** Calls the API; `body` is sent as JSON (a string is sent as is). */
  request<T = any>(method: string, path: string, options?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

let counter = 0;

export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const database = await createTestDatabase();
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_POINTS: '1000000',
    ...env,
  });
  const app = createApp({ config });
  const baseUrl = await app.listen();
  app.config.publicUrl = baseUrl;
  app.config.appUrl = baseUrl;
  return {
    app,
    baseUrl,
    database,
    async createUser(name = 'User') {
      counter += 1;
      const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${process.pid}-${counter}@example.com`;
      const { user, token } = await createUserWithToken(app.db, { email, displayName: name });
      return { id: user.id, email, token };
    },
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let body: string | undefined;
      if (options.body !== undefined) {
        body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, headers: response.headers, body: parsed as never };
    },
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
