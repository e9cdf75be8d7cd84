/**
 * The fan-out's Git server (test/helpers/git-server.ts) in a process of its own, unpinned: the
 * fan-out's measure is when the benchmark's process receives each message, so serving the job's
 * clone (the HTTP relay, `git http-backend` processes) must not be work of that process, nor
 * of its core, where it delayed the receipt of the events sent meanwhile (the job's first events
 * come while it clones). A Git host is another machine in a deployment.
 *
 * Controlled over IPC (advanced serialization, so files may be Uint8Arrays):
 *   {create: name, files}  -> {created: url}
 *   {hold: name}           -> the first request for repository `name` waits; {reached} when one came
 *   {release: true}        -> the held request goes on; {released}
 * and {ready: baseUrl} once listening. It ends when its parent goes.
 */
import { startGitServer } from '../test/helpers/git-server.ts';

type Message = { create: string; files: Record<string, string | Uint8Array> } | { hold: string } | { release: true };

const git = await startGitServer();
let release: (() => void) | null = null;

process.on('message', (message: Message) => {
  void handle(message).catch((error: unknown) => process.send?.({ error: String((error as Error)?.stack ?? error) }));
});

async function handle(message: Message): Promise<void> {
  if ('create' in message) {
    process.send?.({ created: await git.createBareRepository(message.create, message.files) });
  } else if ('hold' in message) {
    const held = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    git.beforeRequest = async (request) => {
      if (!first || !request.path.startsWith(`/${message.hold}.git`)) return;
      first = false;
      process.send?.({ reached: true });
      await held;
    };
  } else if ('release' in message) {
    git.beforeRequest = null;
    release?.();
    release = null;
    process.send?.({ released: true });
  }
}

process.on('disconnect', () => void git.close().finally(() => process.exit(0)));
process.send?.({ ready: git.baseUrl });
