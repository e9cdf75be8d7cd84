import type { AppConfig } from './config.ts';

/** Absolute URLs for the `urls` members of resources. */
export class Urls {
  constructor(private readonly config: Pick<AppConfig, 'publicUrl' | 'appUrl'>) {}

  /** A REST location: `api('/spaces/x')` -> `<PUBLIC_URL>/v1/spaces/x`. */
  api(path: string): string {
    return `${this.config.publicUrl}/v1${path}`;
  }

  /** A page of the web app. */
  app(path: string): string {
    return `${this.config.appUrl}${path}`;
  }
}
