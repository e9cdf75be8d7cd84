// `npm run cli -- <command>`: runs the compiled operator CLI, dist/cli.js, built first when src/
// changed (scripts/built.js). Compiled, a command starts in about a second; through tsx it took
// three on a busy machine, which the tests calling it dozens of times paid in full.
// The Docker image runs `node dist/cli.js` itself.
import { builtEntry } from './built.js';

await import(builtEntry('cli.js'));
