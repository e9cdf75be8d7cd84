/**
 * A TCP proxy in front of a database for fault tests: it forwards, refuses
 * (nothing listens on its port: connections are refused, open ones are cut)
 * or drops (connections are accepted and kept, but no byte goes either way,
 * as behind a firewall that silently discards packets). Switching back to
 * forwarding resumes the held connections where they stopped, as TCP does
 * after a network outage shorter than its retransmission limit.
 */
import net from 'node:net';

export type FaultMode = 'forward' | 'refuse' | 'drop';

interface Link {
  client: net.Socket;
  upstream: net.Socket | null;
  /** Cut on its next byte from the client (see breakOpenConnectionsAfterCommit). */
  breakOnNextWrite: boolean;
}

export interface FaultProxy {
  /** The port the proxy listens on (kept across refusals). */
  readonly port: number;
  readonly mode: FaultMode;
  setMode(mode: FaultMode): Promise<void>;
  /**
   * After the next COMMIT the database answers, every connection then open
   * is cut when it is next used (its next byte from the client is answered
   * by closing the connection), as a connection that died while idle in the
   * pool; connections opened later are forwarded.
   */
  breakOpenConnectionsAfterCommit(): void;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections cut by breakOpenConnectionsAfterCommit so far (each when it was next used). */
  readonly broken: number;
  close(): Promise<void>;
}

/** A proxy on a free port of 127.0.0.1 in front of `target`, forwarding. */
export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const links = new Set<Link>();
  let mode: FaultMode = 'forward';
  let accepted = 0;
  let broken = 0;
  let armedForCommit = false;

  const wire = (link: Link) => {
    const { client, upstream } = link;
    if (!upstream) return;
    client.removeAllListeners('data');
    upstream.removeAllListeners('data');
    let commitSent = false;
    client.on('data', (chunk: Buffer) => {
      if (link.breakOnNextWrite) {
        link.breakOnNextWrite = false;
        broken += 1;
        cut(link);
        return;
      }
      // A simple-protocol COMMIT (adapter-pg sends `COMMIT` as a query string).
      if (armedForCommit && chunk[0] === 0x51 && chunk.includes('COMMIT')) commitSent = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      if (commitSent && armedForCommit) {
        armedForCommit = false;
        commitSent = false;
        for (const other of links) other.breakOnNextWrite = true;
      }
    });
  };

  const connectUpstream = (link: Link) => {
    const upstream = net.connect(target.port, target.host);
    link.upstream = upstream;
    upstream.on('error', () => cut(link));
    upstream.on('close', () => cut(link));
    wire(link);
  };

  const cut = (link: Link) => {
    links.delete(link);
    link.client.destroy();
    link.upstream?.destroy();
  };

  const hold = (link: Link) => {
    link.client.pause();
    link.upstream?.pause();
  };

  const release = (link: Link) => {
    if (!link.upstream) connectUpstream(link);
    link.client.resume();
    link.upstream!.resume();
  };

  const server = net.createServer((client) => {
    accepted += 1;
    const link: Link = { client, upstream: null, breakOnNextWrite: false };
    links.add(link);
    client.on('error', () => cut(link));
    client.on('close', () => cut(link));
    if (mode === 'forward') connectUpstream(link);
    else hold(link);
  });

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    get mode() {
      return mode;
    },
    get accepted() {
      return accepted;
    },
    get broken() {
      return broken;
    },
    async setMode(next) {
      if (next === mode) return;
      const previous = mode;
      mode = next;
      if (previous === 'refuse') await listen(port);
      if (next === 'refuse') {
        for (const link of [...links]) cut(link);
        await new Promise<void>((resolve) => server.close(() => resolve()));
      } else if (next === 'drop') {
        for (const link of links) hold(link);
      } else {
        for (const link of links) release(link);
      }
    },
    breakOpenConnectionsAfterCommit() {
      armedForCommit = true;
    },
    async close() {
      for (const link of [...links]) cut(link);
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
