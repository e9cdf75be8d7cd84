/**
 * A TCP proxy in front of a service (Redis), for tests of lost connections: `pause()`
 * holds the connections opened from then on (accepted, but joined to the service only at
 * `resume()`: a client that reconnects stays without an answer meanwhile), `cutAll()`
 * closes every connection now.
 */
import net from 'node:net';

export interface TcpProxy {
  host: string;
  port: number;
  pause(): void;
  resume(): void;
  /** Closes every connection, joined or held. */
  cutAll(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let held: Array<() => void> = [];
  let paused = false;
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    const join = () => {
      if (client.destroyed) return;
      const upstream = net.connect(target.port, target.host);
      track(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    };
    if (paused) held.push(join);
    else join();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const cutAll = () => {
    for (const socket of [...sockets]) socket.destroy();
  };
  return {
    host: '127.0.0.1',
    port,
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      const joins = held;
      held = [];
      for (const join of joins) join();
    },
    cutAll,
    async close() {
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
