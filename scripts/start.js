// `npm start`: runs the compiled server, dist/main.js, built first when src/ changed (scripts/built.js).
// A process supervisor may run `node dist/main.js` itself.
import { builtEntry } from './built.js';

await import(builtEntry('main.js'));
